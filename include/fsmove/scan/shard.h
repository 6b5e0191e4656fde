// Splitting a scan over N independent jobs (`--shard I/N`, 1-based): module k of the sorted
// module list belongs to shard (k mod N) + 1, so every shard gets the same slice whatever
// order the list was given in, and shards differ in size by at most one module.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::scan {

struct Shard {
  int index = 1;  // 1..count
  int count = 1;
  std::string ToString() const;  // "I/N"
};

// "I/N" with 1 <= I <= N; the error says what was wrong.
absl::StatusOr<Shard> ParseShard(std::string_view text);

// The modules of `shard`, from a list in canonical order (CanonicalModuleList).
std::vector<std::string> SelectShard(const std::vector<std::string>& canonical_modules,
                                     const Shard& shard);

// A digest of the whole (canonical) module list, recorded by each shard so that `merge` can
// tell whether shards were cut from the same list.
std::string ModuleListDigest(const std::vector<std::string>& canonical_modules);

}  // namespace fsmove::scan
