// Resource blocks interned by reference; see blocks.h.
#include "fsmove/analysis/blocks.h"

namespace fsmove::analysis {

BlockId BlockTable::Intern(std::string_view ref, std::string_view source) {
  auto it = index_.find(ref);
  if (it != index_.end()) return it->second;
  BlockId id = static_cast<BlockId>(blocks_.size());
  BlockInfo& b = blocks_.emplace_back();
  b.ref.assign(ref);
  b.source.assign(source);
  index_.emplace(b.ref, id);  // the deque keeps b.ref where it is
  return id;
}

BlockId BlockTable::Find(std::string_view ref) const {
  auto it = index_.find(ref);
  return it == index_.end() ? kNoBlock : it->second;
}

}  // namespace fsmove::analysis
