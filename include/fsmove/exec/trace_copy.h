// `fsmove check --save-trace FILE[.zst]`: a copy of the trace as it streams past the analyzer,
// zstd-compressed when the name ends in .zst, so no giant file is written unless asked for.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace fsmove::exec {

// At most `max_bytes` of trace text are saved (before compression; the host's budget,
// --max-saved-trace): the copy ends at the last whole line that fits, and cut() says so; the
// trace streams on to the analysis whole.
class TraceCopy {
 public:
  static absl::StatusOr<std::unique_ptr<TraceCopy>> Create(
      const std::string& path, uint64_t max_bytes = std::numeric_limits<uint64_t>::max());
  virtual ~TraceCopy() = default;
  // Saves what fits of `data`; an error only when the file cannot be written.
  absl::Status Write(const char* data, size_t n);
  virtual absl::Status Close() = 0;  // flushes; the file is complete after this
  bool cut() const { return cut_; }
  // Called once, by the thread that writes, when the cap is reached: a long run says so then,
  // not only in its report (a user who stops it after learns why the file stopped growing).
  void OnCut(std::function<void()> said) { on_cut_ = std::move(said); }
  uint64_t saved_bytes() const { return saved_; }
  uint64_t max_bytes() const { return max_bytes_; }

 protected:
  virtual absl::Status Save(const char* data, size_t n) = 0;

 private:
  uint64_t max_bytes_ = std::numeric_limits<uint64_t>::max();
  uint64_t saved_ = 0;
  bool cut_ = false;
  std::function<void()> on_cut_;
};

}  // namespace fsmove::exec
