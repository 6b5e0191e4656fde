// A pinned root as one file, to cache between CI jobs (`fsmove root export NAME FILE`,
// `fsmove root import FILE`): a zstd-compressed tar of what the root cache holds for it,
// NAME.json (its metadata, with "content_sha256") and the NAME/ tree, device nodes left out
// (the sandbox makes its own /dev). The content hash is SHA-256 over every member's type,
// mode, owner, size, name and content (a file's SHA-256, a link's target), in name order:
// recorded at export (roots built before it have none), checked at import on what was
// unpacked, before the root goes into the cache. An archive is listed and judged before
// anything of it is unpacked (tar_listing.h: no absolute name, no `..`, no member beneath a
// link, no link that climbs out, no device, a size bound) and unpacked into a directory of
// the cache only root can enter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/base/diagnostic.h"
#include "fsmove/exec/os_root.h"

namespace fsmove::exec {

// The content hash of the root in `dir` (lower-case hex), owners counted from `id_base`;
// `members`, when given, gets the names hashed, relative to `dir` ("" for `dir` itself). An
// unreadable file is an error naming it.
absl::StatusOr<std::string> RootContentHash(const std::string& dir, uint32_t id_base,
                                            std::vector<std::string>* members = nullptr);

// Writes the built root `name` to `file`; returns its content hash.
absl::StatusOr<std::string> ExportRoot(const std::string& name, const std::string& file,
                                       const base::DiagnosticSink& say);

struct RootImportOptions {
  // The content hash the root must have ("": the one its archive records).
  std::string expect_sha256;
  // The most its files may add up to, unpacked.
  uint64_t max_bytes = uint64_t{8} << 30;
  base::DiagnosticSink say;
};

// Unpacks the root in `file` into the root cache (replacing a root of the same name, unless
// it has the same content already); as root only.
absl::StatusOr<OsRoot> ImportRoot(const std::string& file, const RootImportOptions& options);

}  // namespace fsmove::exec
