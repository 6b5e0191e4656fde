// `fsmove check --save-trace FILE[.zst]`: a copy of the trace as it streams past the analyzer,
// zstd-compressed when the name ends in .zst, so no giant file is written unless asked for.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace fsmove::exec {

class TraceCopy {
 public:
  static absl::StatusOr<std::unique_ptr<TraceCopy>> Create(const std::string& path);
  virtual ~TraceCopy() = default;
  virtual absl::Status Write(const char* data, size_t n) = 0;
  virtual absl::Status Close() = 0;  // flushes; the file is complete after this
};

}  // namespace fsmove::exec
