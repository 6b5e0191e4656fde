// Processes, shared fd tables and fs contexts; see process_table.h.
// Tables are slots with user counts, so sharing is exact and copies are explicit.
#include "fsmove/analysis/process_table.h"

namespace fsmove::analysis {

ProcessTable::~ProcessTable() = default;

Process* ProcessTable::Lookup(int32_t pid) {
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
  fd_tables_[id].low.clear();
  fd_tables_[id].high.clear();
  fd_tables_[id].users = 1;
  return id;
}

uint32_t ProcessTable::CopyFdTable(uint32_t from) {
  uint32_t id = NewFdTable();
  FdTable& t = fd_tables_[id];
  t.low = fd_tables_[from].low;
  t.high = fd_tables_[from].high;
  for (const FdEntry& e : t.low) {
    if (e.open && e.inode != kNoInode) inodes_->Ref(e.inode);
  }
  for (const auto& [fd, e] : t.high) {
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
  for (FdEntry& e : t.low) CloseSlot(e);
  for (auto& [fd, e] : t.high) CloseSlot(e);
  t.low.clear();
  t.low.shrink_to_fit();
  t.high = {};
  free_fd_tables_.push_back(id);
}

FdEntry* ProcessTable::Slot(FdTable& t, int fd) {
  if (fd < 0) return nullptr;
  if (fd < kDenseFds) return static_cast<size_t>(fd) < t.low.size() ? &t.low[fd] : nullptr;
  auto it = t.high.find(fd);
  return it == t.high.end() ? nullptr : &it->second;
}

const FdEntry* ProcessTable::Slot(const FdTable& t, int fd) const {
  if (fd < 0) return nullptr;
  if (fd < kDenseFds) return static_cast<size_t>(fd) < t.low.size() ? &t.low[fd] : nullptr;
  auto it = t.high.find(fd);
  return it == t.high.end() ? nullptr : &it->second;
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
  ForgetFound();
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
  ForgetFound();
  Process& p = procs_[pid];
  p.pid = pid;
  p.tgid = thread ? parent.tgid : pid;
  p.own_mounts = parent.own_mounts;
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
  ForgetFound();
  ReleaseFdTable(it->second.fds);
  ReleaseFs(it->second.fs);
  procs_.erase(it);
}

void ProcessTable::Rename(int32_t from, int32_t to) {
  if (from == to) return;
  auto it = procs_.find(from);
  if (it == procs_.end()) return;
  ForgetFound();
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
  const FdEntry* e = Slot(fd_tables_[p.fds], fd);
  return e != nullptr && e->open ? e : nullptr;
}

void ProcessTable::SetFd(const Process& p, int fd, InodeId inode, bool cloexec) {
  if (fd < 0 || fd >= kMaxFd) return;
  FdTable& t = fd_tables_[p.fds];
  FdEntry* e;
  if (fd < kDenseFds) {
    if (static_cast<size_t>(fd) >= t.low.size()) t.low.resize(fd + 1);
    e = &t.low[fd];
  } else {
    e = &t.high[fd];
  }
  if (inode != kNoInode) inodes_->Ref(inode);  // before closing: fd may already hold it
  CloseSlot(*e);
  *e = FdEntry{inode, true, cloexec};
}

void ProcessTable::CloseFd(const Process& p, int fd) {
  FdTable& t = fd_tables_[p.fds];
  if (FdEntry* e = Slot(t, fd)) {
    CloseSlot(*e);
    if (fd >= kDenseFds) t.high.erase(fd);
  }
}

void ProcessTable::SetCloexec(const Process& p, int fd, bool cloexec) {
  FdEntry* e = Slot(fd_tables_[p.fds], fd);
  if (e != nullptr && e->open) e->cloexec = cloexec;
}

void ProcessTable::CloseRange(const Process& p, int first, int last, bool only_mark_cloexec) {
  FdTable& t = fd_tables_[p.fds];
  if (first < 0) first = 0;
  if (last < first) return;
  auto apply = [&](FdEntry& e) {
    if (only_mark_cloexec) {
      if (e.open) e.cloexec = true;
    } else {
      CloseSlot(e);
    }
  };
  for (size_t fd = first; fd < t.low.size() && fd <= static_cast<size_t>(last); ++fd) {
    apply(t.low[fd]);
  }
  if (last < kDenseFds) return;
  for (auto& [fd, e] : t.high) {
    if (fd >= first && fd <= last) apply(e);
  }
  if (!only_mark_cloexec) {
    absl::erase_if(t.high, [&](const auto& kv) { return kv.first >= first && kv.first <= last; });
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
  FdTable& t = fd_tables_[p.fds];
  for (FdEntry& e : t.low) {
    if (e.open && e.cloexec) CloseSlot(e);
  }
  absl::erase_if(t.high, [&](auto& kv) {
    if (!kv.second.cloexec) return false;
    CloseSlot(kv.second);
    return true;
  });
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
