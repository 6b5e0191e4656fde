// The FStrace interpreter (paper, section 3.3): keeps the inode, process, fd and cwd state
// exact while it applies constructs, and records which resource block consumed, produced or
// expunged which path. Also decides which block each process's calls are charged to.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fsmove/analysis/access_map.h"
#include "fsmove/analysis/blocks.h"
#include "fsmove/analysis/inode_table.h"
#include "fsmove/analysis/process_table.h"
#include "fsmove/analysis/program_history.h"
#include "fsmove/base/host_budget.h"
#include "fsmove/fstrace/construct.h"
#include "fsmove/strace/puppet_markers.h"

namespace fsmove::analysis {

struct InterpreterOptions {
  // Working directory of processes whose start the trace does not show (the first one).
  // Empty: unknown; relative paths below it cannot be named and are counted, not recorded.
  std::string initial_cwd;
  // Symlinks directly under / that existed before the trace (name -> target), known as if a
  // readlink had shown them. The default is the merged /usr of every current distribution
  // (Debian 12, Ubuntu 20.04, Fedora, Arch): a program run as /bin/ssh-keygen is the file its
  // package wrote as /usr/bin/ssh-keygen. `fsmove check` reads them from the root it applied
  // on; the trace itself overrides any of them it replaces.
  std::vector<std::pair<std::string, std::string>> root_symlinks = MergedUsrSymlinks();
  // The host's budget (base/host_budget.h): past this many distinct paths recorded, or this
  // many names in the inode table, the interpreter stops taking in paths (budget_hit()).
  uint64_t max_paths = base::kDefaultMaxPaths;
  uint64_t max_inodes = base::kDefaultMaxInodes;

  static std::vector<std::pair<std::string, std::string>> MergedUsrSymlinks();
};

struct InterpreterStats {
  uint64_t constructs = 0;
  uint64_t unresolved_dirfd = 0;                 // relative to an fd the model does not know
  std::vector<uint64_t> unresolved_dirfd_lines;  // the first few, for people to look at
  uint64_t unnamed_paths = 0;                    // below an unknown cwd, or of a deleted file
  uint64_t symlink_loops = 0;
  uint64_t learned_symlinks = 0;
  uint64_t orphan_processes = 0;   // first seen without a clone we could match
  uint64_t adopted_processes = 0;  // seen before their parent's clone returned
  uint64_t markers_begin = 0;
  uint64_t markers_end = 0;
  uint64_t markers_foreign = 0;         // marker-like writes by processes other than Puppet
  uint64_t markers_unbalanced = 0;      // begin while a block was open, end without begin/mismatch
  uint64_t over_budget_constructs = 0;  // path constructs not applied once the budget was hit
};

// What one system call is being interpreted for.
struct CallContext {
  int32_t pid = 0;
  BlockId block = kNoBlock;  // kNoBlock: update the state, record nothing
  uint16_t syscall = 0;
  uint64_t line = 0;
  bool failed = false;
};

class Interpreter {
 public:
  explicit Interpreter(InterpreterOptions options = {});
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // ---- processes ----
  // The process with this pid; an unknown pid is adopted by a pending clone when one is in
  // flight, else created as an orphan.
  Process& ProcessFor(int32_t pid);
  // A clone/fork/vfork call has started in `pid` and not returned yet.
  void NoteCloneStarted(int32_t pid, uint64_t clone_flags, uint64_t line);
  void NoteCloneFinished(int32_t pid);
  void ProcessExit(int32_t pid);
  // The resource block a process belongs to (its block started it, and it is not Puppet's own)
  // when the resource's run left it behind: Puppet has left that block, or the process that
  // made it has exited (a daemon that forked away from its start, at `line`). kNoBlock else: a
  // process whose parent still runs it is the resource's own step.
  BlockId OutlivedBlock(int32_t pid, uint64_t line);
  void RenamePid(int32_t from, int32_t to);

  // ---- resource blocks ----
  void OnMarker(int32_t pid, const strace::Marker& marker, uint64_t line);
  BlockId BlockOf(int32_t pid);
  BlockId current_block() const { return current_; }
  // `pid` belongs to the thread group that prints the markers, or none has been seen yet (a
  // message Puppet prints before its first resource: a dependency cycle).
  bool MayBePuppet(int32_t pid);

  // ---- constructs ----
  void Apply(const fstrace::Construct& c, const CallContext& ctx);

  // ---- results ----
  const AccessMap& accesses() const { return accesses_; }
  AccessMap& mutable_accesses() { return accesses_; }
  const BlockTable& blocks() const { return blocks_; }
  const InterpreterStats& stats() const { return stats_; }
  const InodeTable& inodes() const { return inodes_; }
  // The limit of max_paths or max_inodes, once reached: from then on no path is resolved or
  // recorded (so neither table grows), while processes, descriptors and blocks are still
  // followed; the check that reads this analysis is incomplete.
  const std::optional<base::BudgetHit>& budget_hit() const { return budget_hit_; }
  // The Debian package whose files dpkg was unpacking when it wrote `path` (a path of
  // accesses()), or empty: apt installs a package's dependencies in the same run, and a file
  // of a dependency is not the named package's own.
  std::string_view UnpackedFrom(PathId path) const;
  // Which program each process ran when (program_history.h).
  const ProgramHistory& programs() const { return programs_; }
  ProcessTable& processes() { return procs_; }
  // The path with its directory part rewritten through symlinks that existed before the
  // trace (learned from readlink), so that /lib/x and /usr/lib/x meet. Final components are
  // kept: a link and its target are different names.
  std::string CanonicalPath(std::string_view path) const;
  // Resolves a path for tests and tools: the absolute path it names now for `pid`.
  bool ResolveForTest(int32_t pid, int dirfd, std::string_view path, bool follow, std::string* out);

 private:
  struct Resolution {
    Resolution() = default;
    Resolution(const Resolution&) = delete;  // `name` may view `spelled`
    Resolution& operator=(const Resolution&) = delete;
    InodeId dir = kNoInode;  // directory holding the final name
    // The final name; empty when the path names a dir-like object itself. A view of the path
    // resolved (no copy: 23 M instructions on the gitolite trace), or of `spelled` when the
    // name came from a symlink's target, whose expansion buffer the next resolution reuses.
    std::string_view name;
    InodeId inode = kNoInode;  // the object named
    std::string spelled;
  };

  bool Resolve(Process& p, int dirfd, std::string_view path, bool follow_final, bool empty_path,
               Resolution* r);
  bool PathOf(const Resolution& r, std::string* out) const;
  void Record(const Resolution& r, fstrace::Effect e, const CallContext& ctx, bool probe = false,
              bool listing = false);
  void CreateChild(int32_t parent, int32_t child, uint64_t flags, uint64_t line);
  void ApplyRename(Process& p, const fstrace::Construct& c);
  // The path's id, or nullopt (and the budget hit) when it is new and max_paths are recorded.
  std::optional<PathId> InternWithinBudget(std::string_view path, uint64_t line);
  void HitBudget(base::BudgetLimit limit, uint64_t value, uint64_t line);
  // Apply() once the budget is hit: what keeps processes, descriptors and blocks right
  // without resolving a path.
  void ApplyOverBudget(Process& p, const fstrace::Construct& c, const CallContext& ctx);
  void ApplyWithinBudget(Process& p, const fstrace::Construct& c, const CallContext& ctx);

  InterpreterOptions options_;
  InodeTable inodes_;
  ProcessTable procs_;
  BlockTable blocks_;
  AccessMap accesses_;
  InterpreterStats stats_;
  InodeId initial_cwd_ = kNoInode;
  std::optional<base::BudgetHit> budget_hit_;

  // Block tracking.
  int32_t puppet_tgid_ = -1;  // the thread group that prints the markers, once known
  BlockId current_ = kNoBlock;

  // Clones in flight (parent pid -> flags, start line), for children seen before the
  // parent's clone returns. Every parent is a live process. Also ordered by start line, so
  // that finding the latest one is O(log n) however many are in flight (a trace with
  // thousands of never-finished clones made every new pid scan them all: quadratic).
  struct PendingClone {
    uint64_t flags;
    uint64_t line;
  };
  void AddPendingClone(int32_t pid, PendingClone clone);
  void ErasePendingClone(int32_t pid);
  absl::flat_hash_map<int32_t, PendingClone> pending_clones_;
  std::set<std::pair<uint64_t, int32_t>> pending_clones_by_line_;
  absl::flat_hash_set<int32_t> adopted_;

  // With systemd as PID 1 (traced with `strace -p 1`), a daemon is PID 1's child, not the
  // child of the resource that asked for it: while a resource's `systemctl` runs, what PID 1
  // starts is charged to that resource. systemctl processes by pid, with their block and the
  // order they started in (the latest request wins).
  // `starts`: the units the request starts or reloads (systemctl start, restart, reload,
  // ...), so that what PID 1 itself reads meanwhile (their unit files and drop-ins, their
  // EnvironmentFile=) is read for them; empty for queries, and for daemon-reload and the
  // verbs that imply one (enable, unmask, ...), which read every unit there is.
  struct ServiceRequest {
    BlockId block;
    uint64_t order;
    std::vector<std::string> starts;
  };
  absl::flat_hash_map<int32_t, ServiceRequest> service_requests_;
  uint64_t service_request_order_ = 0;
  const ServiceRequest* LatestServiceRequest() const;

  // dpkg's unpacking, read from its calls: it extracts a package's files, then writes the
  // package's file list (/var/lib/dpkg/info/NAME[:ARCH].list); a conffile stays NAME.dpkg-new
  // until the package is configured. Per dpkg process, the paths written since its last file
  // list (any process's: the one that writes a file list is dpkg); per path, the package it
  // came from (an index into unpacked_packages_).
  void NoteDpkgWrite(int32_t pid, PathId path, std::string_view text);
  void NoteDpkgRename(Process& p, const fstrace::Construct& c);
  absl::flat_hash_map<int32_t, std::vector<PathId>> dpkg_written_;
  absl::flat_hash_map<PathId, uint32_t> unpacked_from_;
  std::vector<std::string> unpacked_packages_;

  ProgramHistory programs_;

  std::string scratch_;
  std::string expand_[2];

  // The directories that paths' leading parts (up to their last '/') resolved to lately: most
  // calls in a row name files of one directory. An entry holds while the inode table's
  // generation is unchanged, for the same starting directory and process root.
  struct DirCacheEntry {
    uint64_t generation = UINT64_MAX;
    InodeId start = kNoInode;
    InodeId proc_root = kNoInode;
    InodeId dir = kNoInode;
    int hops = 0;  // symlinks followed on the way
    std::string prefix;
  };
  static constexpr size_t kDirCacheWays = 4;
  DirCacheEntry dir_cache_[kDirCacheWays];
  size_t dir_cache_next_ = 0;
  // CanonicalPath's last directory part (up to its last '/') and what it became, at a
  // generation of the inode table: the checker asks for every path in turn, in the order they
  // were first recorded, so neighbours share their directory. (CanonicalPath is const but not
  // safe to call from two threads at once.)
  mutable uint64_t canonical_generation_ = UINT64_MAX;
  mutable std::string canonical_dir_, canonical_dir_result_;
  std::string CanonicalPathUncached(std::string_view path) const;
  const DirCacheEntry* FindDir(InodeId start, InodeId proc_root, std::string_view prefix,
                               uint64_t generation) const;
  void RememberDir(const DirCacheEntry& entry, std::string_view prefix);

  // What Record found lately for a resolution: the path PathOf gave and the ids that path
  // (as Record rewrites it) and its directory were interned as. A file's accesses come in runs
  // (open, read, stat, close, within one block; a package's files written and renamed), so
  // most Records skip the path's walk up the inode table and its hashing. An entry holds while
  // the inode table's generation is unchanged.
  struct RecordCacheEntry {
    uint64_t generation = UINT64_MAX;
    InodeId from = kNoInode;  // the resolution's dir, or its inode when it has no final name
    std::string name;         // the resolution's final name
    std::string path;         // PathOf's answer
    std::optional<PathId> id;
    std::optional<PathId> parent_id;  // the directory holding the final name
  };
  static constexpr size_t kRecordCacheSlots = 512;  // direct-mapped, by `from` and the inode
  RecordCacheEntry record_cache_[kRecordCacheSlots];
  // The entry for `r`: a hit when its generation is current (path and, if known, id hold).
  RecordCacheEntry& RecordCacheFor(const Resolution& r);
};

}  // namespace fsmove::analysis
