// A progress line on stderr; see progress_line.h.
#include "fsmove/base/progress_line.h"

#include <cstdio>
#include <string>

namespace fsmove::base {

void ProgressLine::Show(std::string_view text) {
  if (!enabled_) return;
  std::string line(text);
  if (max_columns_ > 3 && line.size() > max_columns_) {
    line = line.substr(0, max_columns_ - 3) + "...";
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::fprintf(stderr, "\r\x1b[K%s", line.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::Clear() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (shown_) std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace fsmove::base
