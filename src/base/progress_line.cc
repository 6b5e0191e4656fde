// A progress line on stderr; see progress_line.h.
#include "fsmove/base/progress_line.h"

#include <cstdio>
#include <string>

#include "fsmove/base/terminal_text.h"

namespace fsmove::base {

void ProgressLine::Show(std::string_view text) {
  if (!enabled_) return;
  // Titles and paths from the sandbox are shown: nothing in them may move the cursor, clear
  // the screen or start a new line under the one erased next.
  std::string line = TerminalSafe(text);
  if (max_columns_ > 3 && line.size() > max_columns_) {
    // Cut at a character's start, never inside a UTF-8 sequence.
    size_t cut = max_columns_ - 3;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
    line = line.substr(0, cut) + "...";
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
