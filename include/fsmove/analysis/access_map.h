// The analysis result the relations are computed from: for each path, which resource block
// consumed, produced or expunged it, with the first system call and trace line proving it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "fsmove/analysis/blocks.h"
#include "fsmove/base/byte_hash.h"
#include "fsmove/fstrace/construct.h"

namespace fsmove::analysis {

using PathId = uint32_t;
using fstrace::Effect;

// The sandbox's PID 1 as the trace numbers it: systemd under --init systemd, whose reads of a
// unit's files for a Service's start are that Service's (Interpreter::BlockOf).
inline constexpr int32_t kInitPid = 1;

struct Access {
  BlockId block = kNoBlock;
  Effect effect = Effect::kConsumed;
  bool failed = false;   // the call failed (e.g. ENOENT): the resource still needed the path
  bool parent = false;   // consumed because the call created or removed an entry inside it
  bool managed = false;  // produced in the catalog's view: the resource manages the path
  // consumed: the call only looked (stat, access, readlink, O_PATH); no content was read.
  // produced: the call changed only metadata (chmod, chown, utimes, xattrs).
  bool shallow = false;
  // consumed: the directory was opened to list its entries (kept apart from other uses).
  bool listing = false;
  uint16_t syscall = 0;  // index into the syscall table (see fstrace/lowering.h)
  int32_t pid = 0;
  uint64_t line = 0;
};

// How much an access says of a dependency, for ranking evidence (higher is stronger):
// consumed: 3 content read or an entry made inside (a directory), 2 a failed open or
// creation, 1 a lookup (stat, access, O_PATH) or failed lookup; produced: 2 content or
// existence, 1 metadata only. Expunged: 2.
int AccessStrength(const Access& a);

class AccessMap {
 public:
  PathId Intern(std::string_view path);
  // The path's id if it was interned.
  std::optional<PathId> Find(std::string_view path) const;
  // Room for this many paths without rehashing (a copy of another map's paths).
  void Reserve(size_t paths) {
    paths_.reserve(paths);
    index_.reserve(paths);
    accesses_.reserve(paths);
  }
  // Keeps one access of each (path, block, effect): the strongest, the first among equals;
  // the others only count.
  void Record(PathId path, const Access& access);

  size_t path_count() const { return paths_.size(); }
  std::string_view path(PathId id) const { return paths_[id]; }
  const absl::InlinedVector<Access, 1>& accesses(PathId id) const { return accesses_[id]; }
  uint64_t records() const { return records_; }

 private:
  // A path's accesses are searched in place up to this many; longer lists are indexed.
  static constexpr size_t kScannedAccesses = 8;
  static uint64_t SeenKey(PathId path, const Access& access);

  // Each path's bytes once, in large chunks that never move (the views and the index point
  // into them): no allocation per path.
  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_used_ = 0, chunk_size_ = 0;
  std::vector<std::string_view> paths_;
  struct PathHash {
    size_t operator()(absl::string_view path) const {
      return base::HashBytes(std::string_view(path.data(), path.size()));
    }
  };
  absl::flat_hash_map<absl::string_view, PathId, PathHash> index_;
  std::vector<absl::InlinedVector<Access, 1>> accesses_;  // one access for most paths
  // (path, block, effect) -> list position, for the lists longer than kScannedAccesses.
  absl::flat_hash_map<uint64_t, uint32_t> seen_;
  uint64_t records_ = 0;
};

}  // namespace fsmove::analysis
