// The relations the paper infers from the access map (section 3.3.2), with their evidence:
// ordering b1 < b2 (b1 produces a path b2 consumes or expunges, and b2 does not produce it),
// notification b1 ~> b2 (b2 is a Service consuming a path b1 produces and b2 does not
// produce it itself), and write-write
// pairs (both produce the same path: a race the paper's definitions miss; for many writers
// of one path, each is paired with the next one in trace order).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fsmove/analysis/access_map.h"
#include "fsmove/analysis/blocks.h"

namespace fsmove::analysis {

enum class RelationKind : uint8_t { kOrdering, kNotification, kWriteWrite };

struct Evidence {
  std::string path;  // canonical path
  Access first;      // the producing access of `first`
  Access second;     // the access of `second` (consuming, expunging or producing)
};

struct Relation {
  RelationKind kind = RelationKind::kOrdering;
  BlockId first = kNoBlock;        // must come first / notifies
  BlockId second = kNoBlock;       // depends on it / is notified
  std::vector<Evidence> evidence;  // sorted by path; at most max_evidence entries
  uint64_t evidence_total = 0;     // before the cap
};

struct Relations {
  std::vector<Relation> ordering;
  std::vector<Relation> notification;
  std::vector<Relation> write_write;
};

struct RelationOptions {
  size_t max_evidence = 64;
  // Maps a recorded path to the name it is compared under (e.g. through pre-existing
  // symlinks); identity when empty.
  std::function<std::string(std::string_view)> canonical_path;
  // Whether a block is a service (notification targets); by default its type is Service.
  std::function<bool(BlockId)> is_service;
};

Relations InferRelations(const AccessMap& accesses, const BlockTable& blocks,
                         const RelationOptions& options = {});

std::string_view RelationKindName(RelationKind k);

}  // namespace fsmove::analysis
