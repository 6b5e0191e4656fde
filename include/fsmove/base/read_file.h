// Reading a whole file into memory. Only a regular file up to a size cap is read: a FIFO or
// a device (/dev/zero) would otherwise hang fsmove or fill its memory, and a directory would
// read as nothing. Every failure reads "cannot read [WHAT ]PATH: REASON".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace fsmove::base {

// The cap for a file a user writes by hand (a configuration, a baseline, a list).
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{64} << 20;

// `what` names the file in errors ("catalog": "cannot read catalog cat.json: No such file or
// directory"); empty, the path alone. Errors: the errno's code and strerror when the file
// cannot be opened or read ("Is a directory" for one), InvalidArgument for "a FIFO, not a
// regular file", ResourceExhausted for "larger than 64 MiB".
absl::StatusOr<std::string> ReadFile(const std::string& path, std::string_view what = {},
                                     std::size_t max_bytes = kMaxDocumentBytes);

// A file something untrusted could have written or replaced (Puppet's log, catalog and graph
// in a sandbox's work directory, a shard from another machine): opened relative to `dir_fd`
// and never through a final symlink (PermissionDenied: "a symbolic link, never followed");
// otherwise as ReadFile. A missing file is NotFound.
absl::StatusOr<std::string> ReadUntrustedFile(int dir_fd, const std::string& name,
                                              std::string_view what, std::size_t max_bytes);

}  // namespace fsmove::base
