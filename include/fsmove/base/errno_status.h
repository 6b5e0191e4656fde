// A failed system call as an absl::Status: one message convention, "WHAT: strerror", and one
// mapping from errno to a status code (abseil's: ENOENT is NotFound, EACCES PermissionDenied).
#pragma once

#include <cerrno>
#include <string_view>

#include "absl/status/status.h"

namespace fsmove::base {

// `what` says what failed and on what, e.g. "cannot open /tmp/x" or "mount proc on /proc":
// the status reads "cannot open /tmp/x: No such file or directory". Pass `error` when errno
// may have changed since the call failed (a close() in between).
absl::Status ErrnoStatus(std::string_view what, int error = errno);

}  // namespace fsmove::base
