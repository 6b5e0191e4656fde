// Path interning and de-duplicated access records; see access_map.h.
#include "fsmove/analysis/access_map.h"

namespace fsmove::analysis {

PathId AccessMap::Intern(std::string_view path) {
  auto it = index_.find(absl::string_view(path.data(), path.size()));
  if (it != index_.end()) return it->second;
  PathId id = static_cast<PathId>(paths_.size());
  const std::string& stored = paths_.emplace_back(path);
  index_.emplace(absl::string_view(stored.data(), stored.size()), id);
  accesses_.emplace_back();
  return id;
}

int AccessStrength(const Access& a) {
  switch (a.effect) {
    case Effect::kConsumed:
      if (a.shallow) return 1;
      return a.failed ? 2 : 3;
    case Effect::kProduced:
      return a.shallow ? 1 : 2;
    case Effect::kExpunged:
      return 2;
  }
  return 1;
}

void AccessMap::Record(PathId path, const Access& access) {
  ++records_;
  // Effects take the values 0-2; a listing is kept apart as 3.
  uint64_t key = (uint64_t{path} << 32) ^ (uint64_t{access.block} << 2) ^
                 (access.listing ? 3 : static_cast<uint64_t>(access.effect));
  auto [it, fresh] = seen_.try_emplace(key, static_cast<uint32_t>(accesses_[path].size()));
  if (fresh) {
    accesses_[path].push_back(access);
    return;
  }
  Access& kept = accesses_[path][it->second];
  if (AccessStrength(access) > AccessStrength(kept)) kept = access;
}

}  // namespace fsmove::analysis
