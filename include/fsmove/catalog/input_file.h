// Reading an input that fsmove needs whole (a catalog, a configuration, a baseline): a
// regular file, up to a size cap. A FIFO or a device (/dev/zero) would otherwise be read
// until memory runs out or forever; a directory reads as nothing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace fsmove::catalog {

// Errors name the file and say what is wrong: "PATH: cannot open WHAT: No such file or
// directory", "PATH: cannot read WHAT: Is a directory", "PATH: WHAT is not a regular file
// (a FIFO)", "PATH: WHAT is larger than 1024 MiB".
absl::StatusOr<std::string> ReadInputFile(const std::string& path, std::string_view what,
                                          std::size_t max_bytes);

// A file something untrusted could have written or replaced (Puppet's log, catalog and graph
// in a sandbox's work directory): opened relative to `dir_fd` without following a final
// symlink and without blocking on a FIFO, and only a regular file up to `max_bytes` is read.
// Errors: "NAME is a symbolic link; WHAT is never one", "NAME is not a regular file",
// "NAME is N bytes, more than the M WHAT may have", "cannot open NAME: ...".
absl::StatusOr<std::string> ReadUntrustedFile(int dir_fd, const std::string& name,
                                              std::string_view what, std::size_t max_bytes);

inline constexpr std::size_t kMaxCatalogBytes = std::size_t{1} << 30;
inline constexpr std::size_t kMaxDocumentBytes = std::size_t{64} << 20;

}  // namespace fsmove::catalog
