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

void AccessMap::Record(PathId path, const Access& access) {
  ++records_;
  uint64_t key = (uint64_t{path} << 32) ^ (uint64_t{access.block} << 2) ^
                 static_cast<uint64_t>(access.effect);
  if (!seen_.insert(key).second) return;
  accesses_[path].push_back(access);
}

}  // namespace fsmove::analysis
