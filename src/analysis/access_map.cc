// Path interning and de-duplicated access records; see access_map.h.
#include "fsmove/analysis/access_map.h"

#include <algorithm>
#include <memory>

namespace fsmove::analysis {

PathId AccessMap::Intern(std::string_view path) {
  auto it = index_.find(absl::string_view(path.data(), path.size()));
  if (it != index_.end()) return it->second;
  PathId id = static_cast<PathId>(paths_.size());
  // The first path needs a chunk even when it is empty (no chunk to point into yet).
  if (chunks_.empty() || chunk_size_ - chunk_used_ < path.size()) {
    chunk_size_ = std::max<size_t>(size_t{1} << 20, path.size());
    chunks_.push_back(std::make_unique_for_overwrite<char[]>(chunk_size_));
    chunk_used_ = 0;
  }
  char* stored = chunks_.back().get() + chunk_used_;
  std::copy(path.begin(), path.end(), stored);
  chunk_used_ += path.size();
  paths_.emplace_back(stored, path.size());
  index_.emplace(absl::string_view(stored, path.size()), id);
  accesses_.emplace_back();
  return id;
}

std::optional<PathId> AccessMap::Find(std::string_view path) const {
  auto it = index_.find(absl::string_view(path.data(), path.size()));
  if (it == index_.end()) return std::nullopt;
  return it->second;
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

uint64_t AccessMap::SeenKey(PathId path, const Access& access) {
  // Effects take the values 0-2; a listing is kept apart as 3.
  return (uint64_t{path} << 32) ^ (uint64_t{access.block} << 2) ^
         (access.listing ? 3 : static_cast<uint64_t>(access.effect));
}

void AccessMap::Record(PathId path, const Access& access) {
  ++records_;
  auto& list = accesses_[path];
  const uint64_t key = SeenKey(path, access);
  Access* kept = nullptr;
  if (list.size() <= kScannedAccesses) {
    for (Access& a : list) {
      if (SeenKey(path, a) == key) kept = &a;
    }
  } else if (auto it = seen_.find(key); it != seen_.end()) {
    kept = &list[it->second];
  }
  if (kept != nullptr) {
    if (AccessStrength(access) > AccessStrength(*kept)) *kept = access;
    return;
  }
  list.push_back(access);
  if (list.size() == kScannedAccesses + 1) {  // from now on indexed
    for (uint32_t i = 0; i < list.size(); ++i) seen_.emplace(SeenKey(path, list[i]), i);
  } else if (list.size() > kScannedAccesses + 1) {
    seen_.emplace(key, static_cast<uint32_t>(list.size() - 1));
  }
}

}  // namespace fsmove::analysis
