// One line of progress on a terminal's stderr, rewritten in place ("\r" + erase line), and
// erased when the work is done; shared by `fsmove check` and `fsmove scan`.
#pragma once

#include <cstddef>
#include <mutex>
#include <string_view>

namespace fsmove::base {

class ProgressLine {
 public:
  // Disabled, it prints nothing. `max_columns` > 3: longer text is cut to that with "...".
  explicit ProgressLine(bool enabled, size_t max_columns = 0)
      : enabled_(enabled), max_columns_(max_columns) {}
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  // Replaces the line with `text` (thread-safe).
  void Show(std::string_view text);
  // Erases the line if one is shown.
  void Clear();

 private:
  const bool enabled_;
  const size_t max_columns_;
  std::mutex mu_;
  bool shown_ = false;
};

}  // namespace fsmove::base
