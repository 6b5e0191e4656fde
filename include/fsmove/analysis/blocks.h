// Resource blocks: one per Puppet resource reference seen in the trace's evaltrace markers.
// A resource evaluated several times (classes print twice) keeps one block id.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace fsmove::analysis {

using BlockId = uint32_t;
inline constexpr BlockId kNoBlock = UINT32_MAX;

struct BlockInfo {
  std::string ref;     // canonical Type[title]
  std::string source;  // Puppet's resource path as first printed
  uint32_t begins = 0;
  uint32_t ends = 0;
  uint64_t first_line = 0;  // line of the first begin marker
  uint64_t last_line = 0;   // line of the last end marker
  std::string_view type() const { return std::string_view(ref).substr(0, ref.find('[')); }
};

class BlockTable {
 public:
  BlockId Intern(std::string_view ref, std::string_view source);
  BlockId Find(std::string_view ref) const;
  BlockInfo& info(BlockId id) { return blocks_[id]; }
  const BlockInfo& info(BlockId id) const { return blocks_[id]; }
  size_t size() const { return blocks_.size(); }

 private:
  std::deque<BlockInfo> blocks_;
  absl::flat_hash_map<std::string_view, BlockId> index_;
};

}  // namespace fsmove::analysis
