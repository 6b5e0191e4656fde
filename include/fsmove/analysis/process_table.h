// Processes as the interpreter sees them: each points to an fd table and to an fs context
// (cwd + root) that threads and CLONE_FILES/CLONE_FS children share, and records which
// resource block, if any, its system calls are charged to.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fsmove/analysis/blocks.h"
#include "fsmove/analysis/inode_table.h"

namespace fsmove::analysis {

struct FdEntry {
  InodeId inode = kNoInode;  // kNoInode for anonymous objects (pipes, sockets)
  bool open = false;
  bool cloexec = false;
};

enum class Ownership : uint8_t {
  kNone,      // charged to no resource (Puppet start-up, processes started outside blocks)
  kPuppet,    // Puppet's own process: follows whichever block is open
  kResource,  // created inside a block: charged to that resource for its whole life
};

struct Process {
  int32_t pid = 0;
  int32_t tgid = 0;
  uint32_t fds = 0;  // fd table slot
  uint32_t fs = 0;   // fs context slot
  Ownership ownership = Ownership::kNone;
  BlockId block = kNoBlock;  // for kResource
  // In a mount namespace of its own (it or an ancestor unshared or cloned with CLONE_NEWNS):
  // its mounts and unmounts change no other process's view.
  bool own_mounts = false;
};

class ProcessTable {
 public:
  static constexpr int kMaxFd = 1 << 20;

  explicit ProcessTable(InodeTable* inodes) : inodes_(inodes) {}
  ProcessTable(const ProcessTable&) = delete;
  ProcessTable& operator=(const ProcessTable&) = delete;
  ~ProcessTable();

  // Most lines come from the process of the line before (Ruby's start-up is runs of one
  // process's calls): the last answer is kept until the table changes.
  Process* Find(int32_t pid) {
    if (pid != found_pid_) {
      found_ = Lookup(pid);
      found_pid_ = pid;
    }
    return found_;
  }
  // A process with fresh tables: cwd `cwd`, root `root`, no descriptors.
  Process& CreateFresh(int32_t pid, InodeId cwd, InodeId root);
  // A child of `parent` that shares or copies its tables per the clone flags.
  Process& CreateChild(const Process& parent, int32_t pid, bool share_fds, bool share_fs,
                       bool thread);
  void Remove(int32_t pid);
  // `from` is now called `to` (whatever `to` was is removed).
  void Rename(int32_t from, int32_t to);

  // Descriptors.
  const FdEntry* Fd(const Process& p, int fd) const;
  void SetFd(const Process& p, int fd, InodeId inode, bool cloexec);  // closes what fd was
  void CloseFd(const Process& p, int fd);
  void SetCloexec(const Process& p, int fd, bool cloexec);
  void CloseRange(const Process& p, int first, int last, bool only_mark_cloexec);
  // execve: the process gets its own fd table, without the close-on-exec descriptors.
  void PrepareExec(Process& p);
  void UnshareFds(Process& p);
  void UnshareFs(Process& p);

  // Working and root directories (shared through CLONE_FS).
  InodeId cwd(const Process& p) const { return fs_[p.fs].cwd; }
  InodeId root(const Process& p) const { return fs_[p.fs].root; }
  void SetCwd(const Process& p, InodeId dir);
  void SetRoot(const Process& p, InodeId dir);

  size_t size() const { return procs_.size(); }
  template <class F>
  void ForEach(F&& f) {
    for (auto& [pid, proc] : procs_) f(proc);
  }

 private:
  // Descriptors below kDenseFds in a vector, the others in a hash map: memory follows the
  // open descriptors, not the highest number (`dup2(3, 1048575)` before 300 forks once took
  // 8 MB per copy, 2.4 GB in all).
  static constexpr int kDenseFds = 1024;
  struct FdTable {
    std::vector<FdEntry> low;
    absl::flat_hash_map<int32_t, FdEntry> high;
    uint32_t users = 0;
  };
  FdEntry* Slot(FdTable& t, int fd);  // null if fd is not in the table (open or closed)
  const FdEntry* Slot(const FdTable& t, int fd) const;
  struct FsContext {
    InodeId cwd = kNoInode;
    InodeId root = kNoInode;
    uint32_t users = 0;
  };

  Process* Lookup(int32_t pid);
  void ForgetFound() { found_pid_ = INT32_MIN; }  // before procs_ changes (it may rehash)
  uint32_t NewFdTable();
  uint32_t CopyFdTable(uint32_t from);
  void ReleaseFdTable(uint32_t id);
  uint32_t NewFs(InodeId cwd, InodeId root);
  void ReleaseFs(uint32_t id);
  void CloseSlot(FdEntry& e);

  InodeTable* inodes_;
  absl::flat_hash_map<int32_t, Process> procs_;
  int32_t found_pid_ = INT32_MIN;  // Find's last question (INT32_MIN: none) and answer
  Process* found_ = nullptr;
  std::vector<FdTable> fd_tables_;
  std::vector<uint32_t> free_fd_tables_;
  std::vector<FsContext> fs_;
  std::vector<uint32_t> free_fs_;
};

}  // namespace fsmove::analysis
