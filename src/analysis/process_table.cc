// Processes, shared fd tables and fs contexts; see process_table.h.
// Tables are slots with user counts, so sharing is exact and copies are explicit.
#include "fsmove/analysis/process_table.h"

namespace fsmove::analysis {

ProcessTable::~ProcessTable() = default;

Process* ProcessTable::Find(int32_t pid) {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

uint32_t ProcessTable::NewFdTable() {
  uint32_t id;
  if (!free_fd_tables_.empty()) {
    id = free_fd_tables_.back();
    free_fd_tables_.pop_back();
  } else {
    id = static_cast<uint32_t>(fd_tables_.size());
    fd_tables_.emplace_back();
  }
  fd_tables_[id].slots.clear();
  fd_tables_[id].users = 1;
  return id;
}

uint32_t ProcessTable::CopyFdTable(uint32_t from) {
  uint32_t id = NewFdTable();
  fd_tables_[id].slots = fd_tables_[from].slots;
  for (const FdEntry& e : fd_tables_[id].slots) {
    if (e.open && e.inode != kNoInode) inodes_->Ref(e.inode);
  }
  return id;
}

void ProcessTable::CloseSlot(FdEntry& e) {
  if (e.open && e.inode != kNoInode) inodes_->Unref(e.inode);
  e = FdEntry{};
}

void ProcessTable::ReleaseFdTable(uint32_t id) {
  FdTable& t = fd_tables_[id];
  if (--t.users > 0) return;
  for (FdEntry& e : t.slots) CloseSlot(e);
  t.slots.clear();
  t.slots.shrink_to_fit();
  free_fd_tables_.push_back(id);
}

uint32_t ProcessTable::NewFs(InodeId cwd, InodeId root) {
  uint32_t id;
  if (!free_fs_.empty()) {
    id = free_fs_.back();
    free_fs_.pop_back();
  } else {
    id = static_cast<uint32_t>(fs_.size());
    fs_.emplace_back();
  }
  fs_[id] = FsContext{cwd, root, 1};
  inodes_->Ref(cwd);
  inodes_->Ref(root);
  return id;
}

void ProcessTable::ReleaseFs(uint32_t id) {
  FsContext& f = fs_[id];
  if (--f.users > 0) return;
  inodes_->Unref(f.cwd);
  inodes_->Unref(f.root);
  free_fs_.push_back(id);
}

Process& ProcessTable::CreateFresh(int32_t pid, InodeId cwd, InodeId root) {
  Remove(pid);
  Process& p = procs_[pid];
  p.pid = pid;
  p.tgid = pid;
  p.fds = NewFdTable();
  p.fs = NewFs(cwd, root);
  return p;
}

Process& ProcessTable::CreateChild(const Process& parent_ref, int32_t pid, bool share_fds,
                                   bool share_fs, bool thread) {
  Process parent = parent_ref;  // procs_ may rehash below
  Remove(pid);
  Process& p = procs_[pid];
  p.pid = pid;
  p.tgid = thread ? parent.tgid : pid;
  if (share_fds) {
    p.fds = parent.fds;
    ++fd_tables_[p.fds].users;
  } else {
    p.fds = CopyFdTable(parent.fds);
  }
  if (share_fs) {
    p.fs = parent.fs;
    ++fs_[p.fs].users;
  } else {
    p.fs = NewFs(fs_[parent.fs].cwd, fs_[parent.fs].root);
  }
  return p;
}

void ProcessTable::Remove(int32_t pid) {
  auto it = procs_.find(pid);
  if (it == procs_.end()) return;
  ReleaseFdTable(it->second.fds);
  ReleaseFs(it->second.fs);
  procs_.erase(it);
}

void ProcessTable::Rename(int32_t from, int32_t to) {
  if (from == to) return;
  auto it = procs_.find(from);
  if (it == procs_.end()) return;
  Process moved = it->second;
  procs_.erase(it);
  Remove(to);
  moved.pid = to;
  if (moved.tgid == from) moved.tgid = to;
  for (auto& [pid, proc] : procs_) {
    if (proc.tgid == from) proc.tgid = to;
  }
  procs_[to] = moved;
}

const FdEntry* ProcessTable::Fd(const Process& p, int fd) const {
  const FdTable& t = fd_tables_[p.fds];
  if (fd < 0 || static_cast<size_t>(fd) >= t.slots.size() || !t.slots[fd].open) return nullptr;
  return &t.slots[fd];
}

void ProcessTable::SetFd(const Process& p, int fd, InodeId inode, bool cloexec) {
  if (fd < 0 || fd >= kMaxFd) return;
  FdTable& t = fd_tables_[p.fds];
  if (static_cast<size_t>(fd) >= t.slots.size()) t.slots.resize(fd + 1);
  if (inode != kNoInode) inodes_->Ref(inode);  // before closing: fd may already hold it
  CloseSlot(t.slots[fd]);
  t.slots[fd] = FdEntry{inode, true, cloexec};
}

void ProcessTable::CloseFd(const Process& p, int fd) {
  FdTable& t = fd_tables_[p.fds];
  if (fd < 0 || static_cast<size_t>(fd) >= t.slots.size()) return;
  CloseSlot(t.slots[fd]);
}

void ProcessTable::SetCloexec(const Process& p, int fd, bool cloexec) {
  FdTable& t = fd_tables_[p.fds];
  if (fd < 0 || static_cast<size_t>(fd) >= t.slots.size() || !t.slots[fd].open) return;
  t.slots[fd].cloexec = cloexec;
}

void ProcessTable::CloseRange(const Process& p, int first, int last, bool only_mark_cloexec) {
  FdTable& t = fd_tables_[p.fds];
  if (first < 0) first = 0;
  for (size_t fd = first; fd < t.slots.size() && fd <= static_cast<size_t>(last); ++fd) {
    if (only_mark_cloexec) {
      if (t.slots[fd].open) t.slots[fd].cloexec = true;
    } else {
      CloseSlot(t.slots[fd]);
    }
  }
}

void ProcessTable::UnshareFds(Process& p) {
  if (fd_tables_[p.fds].users <= 1) return;
  uint32_t copy = CopyFdTable(p.fds);
  ReleaseFdTable(p.fds);
  p.fds = copy;
}

void ProcessTable::UnshareFs(Process& p) {
  if (fs_[p.fs].users <= 1) return;
  uint32_t copy = NewFs(fs_[p.fs].cwd, fs_[p.fs].root);
  ReleaseFs(p.fs);
  p.fs = copy;
}

void ProcessTable::PrepareExec(Process& p) {
  UnshareFds(p);
  for (FdEntry& e : fd_tables_[p.fds].slots) {
    if (e.open && e.cloexec) CloseSlot(e);
  }
}

void ProcessTable::SetCwd(const Process& p, InodeId dir) {
  FsContext& f = fs_[p.fs];
  inodes_->Ref(dir);
  inodes_->Unref(f.cwd);
  f.cwd = dir;
}

void ProcessTable::SetRoot(const Process& p, InodeId dir) {
  FsContext& f = fs_[p.fs];
  inodes_->Ref(dir);
  inodes_->Unref(f.root);
  f.root = dir;
}

}  // namespace fsmove::analysis
