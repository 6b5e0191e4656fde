// The FStrace interpreter; see interpreter.h.
// Resolution walks names through inodes like the kernel's path walk (symlinks, "..", dirfds,
// chroot), so the recorded path of an access is the one the kernel used.
#include "fsmove/analysis/interpreter.h"

#include <algorithm>
#include <iterator>

#include "fsmove/fstrace/lowering.h"
#include "fsmove/strace/args.h"

namespace fsmove::analysis {

using fstrace::Construct;
using fstrace::Effect;
using fstrace::Op;

namespace {
constexpr int kMaxSymlinkHops = 40;  // the kernel's ELOOP limit

bool UnderVirtualFs(std::string_view path) {
  return path.starts_with("/proc/") || path.starts_with("/dev/fd/");
}
}  // namespace

std::vector<std::pair<std::string, std::string>> InterpreterOptions::MergedUsrSymlinks() {
  return {{"bin", "usr/bin"},     {"sbin", "usr/sbin"},   {"lib", "usr/lib"},
          {"lib32", "usr/lib32"}, {"lib64", "usr/lib64"}, {"libx32", "usr/libx32"}};
}

Interpreter::Interpreter(InterpreterOptions options)
    : options_(std::move(options)), procs_(&inodes_) {
  for (const auto& [name, target] : options_.root_symlinks) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      continue;
    inodes_.SetSymlink(inodes_.LookupOrCreate(inodes_.root(), name), target, /*learned=*/true);
  }
  initial_cwd_ = inodes_.unknown_root();
  if (!options_.initial_cwd.empty() && options_.initial_cwd[0] == '/') {
    InodeId cur = inodes_.root();
    std::string_view rest = options_.initial_cwd;
    while (!rest.empty()) {
      size_t slash = rest.find('/');
      std::string_view comp = rest.substr(0, slash);
      rest = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
      if (comp.empty() || comp == ".") continue;
      cur = comp == ".." ? inodes_.parent(cur) : inodes_.LookupOrCreate(cur, comp);
    }
    initial_cwd_ = cur;
  }
}

// ---------------------------------------------------------------- processes

namespace {

// The units a systemctl run with this argument vector (as strace prints it) starts or
// reloads, by their full names ("hello" is hello.service); none unless its verb (the first
// argument after the program that is not an option) is one that starts or reloads units.
std::vector<std::string> UnitsStarted(std::string_view argv) {
  static constexpr std::string_view kStartVerbs[] = {
      "start",       "restart",      "try-restart",           "reload-or-restart",
      "reload",      "force-reload", "try-reload-or-restart", "reload-or-try-restart",
      "condrestart", "condreload",
  };
  std::vector<std::string> args;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] != '"') continue;
    size_t end = i + 1;
    while (end < argv.size() && argv[end] != '"') end += argv[end] == '\\' ? 2 : 1;
    std::string arg;
    if (!strace::DecodeString(argv.substr(i, end + 1 - i), &arg)) return {};
    i = end;
    if (!args.empty() && arg.starts_with("-")) continue;  // an option (or "--")
    args.push_back(std::move(arg));
  }
  if (args.size() < 3 ||
      std::find(std::begin(kStartVerbs), std::end(kStartVerbs), args[1]) == std::end(kStartVerbs)) {
    return {};
  }
  args.erase(args.begin(), args.begin() + 2);
  for (std::string& unit : args) {
    if (unit.find('.') == std::string::npos) unit += ".service";
  }
  return args;
}

// Whether PID 1 read `path` for one of the units a request starts: a file in a unit directory
// (.../systemd/system/NAME, NAME.d/..., NAME.wants/...) is read for the unit NAME (or, for a
// template foo@.service, for its instances); a unit's other files (EnvironmentFile=) are
// anywhere else.
bool ReadForUnits(std::string_view path, const std::vector<std::string>& units) {
  constexpr std::string_view kUnitDir = "/systemd/system/";
  size_t at = path.find(kUnitDir);
  if (at == std::string_view::npos) return true;
  std::string_view name = path.substr(at + kUnitDir.size());
  name = name.substr(0, name.find('/'));
  for (std::string_view suffix : {".d", ".wants", ".requires", ".upholds"}) {
    if (name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  for (std::string_view unit : units) {
    if (name == unit) return true;
    size_t at_sign = unit.find('@');
    if (at_sign != std::string_view::npos && name.size() > at_sign &&
        name.substr(0, at_sign + 1) == unit.substr(0, at_sign + 1) &&
        name.substr(at_sign + 1).starts_with('.') &&
        name.substr(at_sign + 1) == unit.substr(unit.rfind('.'))) {
      return true;
    }
  }
  return false;
}

}  // namespace

Process& Interpreter::ProcessFor(int32_t pid) {
  if (Process* p = procs_.Find(pid)) return *p;
  // A child often prints its first calls before its parent's clone returns: the parent is
  // the process whose clone started last.
  // (Not PID 1: with `strace -p 1` it shows up whenever it first makes a call, and it is
  // nobody's child.)
  int32_t parent = -1;
  for (auto it = pending_clones_by_line_.rbegin();
       pid != kInitPid && it != pending_clones_by_line_.rend(); ++it) {
    if (it->second != pid) {
      parent = it->second;
      break;
    }
  }
  if (parent >= 0) {
    CreateChild(parent, pid, pending_clones_[parent].flags, pending_clones_[parent].line);
    adopted_.insert(pid);
    ++stats_.adopted_processes;
    return *procs_.Find(pid);
  }
  if (procs_.size() > 0) ++stats_.orphan_processes;
  return procs_.CreateFresh(pid, initial_cwd_, inodes_.root());
}

void Interpreter::AddPendingClone(int32_t pid, PendingClone clone) {
  ErasePendingClone(pid);
  pending_clones_[pid] = clone;
  pending_clones_by_line_.emplace(clone.line, pid);
}

void Interpreter::ErasePendingClone(int32_t pid) {
  auto it = pending_clones_.find(pid);
  if (it == pending_clones_.end()) return;
  pending_clones_by_line_.erase({it->second.line, pid});
  pending_clones_.erase(it);
}

void Interpreter::NoteCloneStarted(int32_t pid, uint64_t clone_flags, uint64_t line) {
  ProcessFor(pid);  // the caller exists (ProcessFor relies on every parent being live)
  AddPendingClone(pid, PendingClone{clone_flags, line});
}

void Interpreter::NoteCloneFinished(int32_t pid) { ErasePendingClone(pid); }

void Interpreter::CreateChild(int32_t parent_pid, int32_t child, uint64_t flags, uint64_t line) {
  Process parent = ProcessFor(parent_pid);  // a copy: the table may rehash below
  programs_.Born(child, parent_pid, line);
  bool thread = flags & fstrace::kCloneThread;
  Process& c = procs_.CreateChild(parent, child, flags & fstrace::kCloneFiles,
                                  flags & fstrace::kCloneFs, thread);
  if (flags & fstrace::kCloneNewns) c.own_mounts = true;
  switch (parent.ownership) {
    case Ownership::kPuppet:
      if (thread) {
        c.ownership = Ownership::kPuppet;
      } else if (current_ != kNoBlock) {
        c.ownership = Ownership::kResource;  // e.g. an exec's shell, a service's daemon
        c.block = current_;
      }
      break;
    case Ownership::kResource:
      c.ownership = Ownership::kResource;
      c.block = parent.block;
      break;
    case Ownership::kNone:
      // systemd (PID 1) starting a unit that a resource's systemctl asked for. Not what it
      // runs for a request that starts no unit: a reload's generators (the sysv generator
      // lists /etc/init.d, others read every unit file and /etc/fstab) are PID 1 reloading
      // everything there is, as its own reads then are (BlockOf), not the requester's needs.
      if (const ServiceRequest* latest = LatestServiceRequest();
          parent_pid == kInitPid && !thread && latest != nullptr && !latest->starts.empty()) {
        c.ownership = Ownership::kResource;
        c.block = latest->block;
      }
      break;
  }
}

BlockId Interpreter::OutlivedBlock(int32_t pid, uint64_t line) {
  const Process* p = procs_.Find(pid);
  if (p == nullptr || p->ownership != Ownership::kResource) return kNoBlock;
  const BlockId block = p->block;
  if (block != current_) return block;
  const int32_t parent = programs_.ParentAt(pid, line);
  return parent > 0 && procs_.Find(parent) == nullptr ? block : kNoBlock;
}

void Interpreter::ProcessExit(int32_t pid) {
  if (pid == puppet_tgid_) {
    // Puppet's run is over; a later run in the same trace prints markers from a new process.
    if (current_ != kNoBlock) ++stats_.markers_unbalanced;
    current_ = kNoBlock;
    puppet_tgid_ = -1;
  }
  procs_.Remove(pid);
  ErasePendingClone(pid);
  adopted_.erase(pid);
  service_requests_.erase(pid);
  dpkg_written_.erase(pid);
}

void Interpreter::RenamePid(int32_t from, int32_t to) {
  if (procs_.Find(from) == nullptr) return;
  procs_.Rename(from, to);
  ErasePendingClone(to);
  if (auto it = pending_clones_.find(from); it != pending_clones_.end()) {
    PendingClone moved = it->second;
    ErasePendingClone(from);
    AddPendingClone(to, moved);
  }
  if (puppet_tgid_ == from) puppet_tgid_ = to;
  if (auto it = service_requests_.find(from); it != service_requests_.end()) {
    ServiceRequest moved = it->second;
    service_requests_.erase(it);
    service_requests_[to] = moved;
  }
  if (auto it = dpkg_written_.find(from); it != dpkg_written_.end()) {
    std::vector<PathId> moved = std::move(it->second);
    dpkg_written_.erase(it);
    dpkg_written_[to] = std::move(moved);
  }
}

// ---------------------------------------------------------------- blocks

void Interpreter::OnMarker(int32_t pid, const strace::Marker& marker, uint64_t line) {
  Process& p = ProcessFor(pid);
  if (puppet_tgid_ < 0) {
    // The first marker tells which thread group is Puppet's own.
    puppet_tgid_ = p.tgid;
    int32_t tgid = puppet_tgid_;
    procs_.ForEach([tgid](Process& q) {
      if (q.tgid == tgid) q.ownership = Ownership::kPuppet;
    });
  } else if (p.tgid != puppet_tgid_) {
    ++stats_.markers_foreign;  // an exec printing something that looks like Puppet's log
    return;
  }
  BlockId id = blocks_.Intern(marker.ref, marker.source);
  BlockInfo& info = blocks_.info(id);
  if (marker.kind == strace::MarkerKind::kBegin) {
    ++stats_.markers_begin;
    if (current_ != kNoBlock) ++stats_.markers_unbalanced;
    ++info.begins;
    if (info.first_line == 0) info.first_line = line;
    current_ = id;
  } else {
    ++stats_.markers_end;
    if (current_ != id) ++stats_.markers_unbalanced;
    ++info.ends;
    info.last_line = line;
    current_ = kNoBlock;
  }
}

bool Interpreter::MayBePuppet(int32_t pid) {
  return puppet_tgid_ < 0 || ProcessFor(pid).tgid == puppet_tgid_;
}

const Interpreter::ServiceRequest* Interpreter::LatestServiceRequest() const {
  const ServiceRequest* latest = nullptr;
  for (const auto& [pid, request] : service_requests_) {
    if (latest == nullptr || request.order > latest->order) latest = &request;
  }
  return latest;
}

BlockId Interpreter::BlockOf(int32_t pid) {
  Process& p = ProcessFor(pid);
  switch (p.ownership) {
    case Ownership::kPuppet:
      return current_;
    case Ownership::kResource:
      return p.block;
    case Ownership::kNone:
      // systemd itself reads a unit's file, its drop-ins and (before systemd 255) its
      // EnvironmentFile= when a Service's systemctl asks it to start the unit: those reads
      // are the Service's (Record keeps only what PID 1 reads). Other requests are left
      // out: a reload of PID 1 (daemon-reload, enable, unmask...) reads every unit there is,
      // and a package's or an exec's requests are not a service's start.
      if (pid == kInitPid) {
        const ServiceRequest* latest = LatestServiceRequest();
        if (latest != nullptr && !latest->starts.empty() &&
            blocks_.info(latest->block).type() == "Service") {
          return latest->block;
        }
      }
      return kNoBlock;
  }
  return kNoBlock;
}

// ---------------------------------------------------------------- resolution

const Interpreter::DirCacheEntry* Interpreter::FindDir(InodeId start, InodeId proc_root,
                                                       std::string_view prefix,
                                                       uint64_t generation) const {
  for (const DirCacheEntry& e : dir_cache_) {
    if (e.generation == generation && e.start == start && e.proc_root == proc_root &&
        e.prefix == prefix) {
      return &e;
    }
  }
  return nullptr;
}

void Interpreter::RememberDir(const DirCacheEntry& entry, std::string_view prefix) {
  DirCacheEntry& e = dir_cache_[dir_cache_next_];
  dir_cache_next_ = (dir_cache_next_ + 1) % kDirCacheWays;
  e.generation = entry.generation;
  e.start = entry.start;
  e.proc_root = entry.proc_root;
  e.dir = entry.dir;
  e.hops = entry.hops;
  e.prefix.assign(prefix);  // keeps its capacity
}

bool Interpreter::Resolve(Process& p, int dirfd, std::string_view path, bool follow_final,
                          bool empty_path, Resolution* r) {
  InodeId proc_root = procs_.root(p);
  InodeId cur;
  if (!path.empty() && path[0] == '/') {
    cur = proc_root;
  } else if (dirfd == fstrace::kAtFdcwd) {
    cur = procs_.cwd(p);
  } else {
    const FdEntry* e = procs_.Fd(p, dirfd);
    if (e == nullptr || e->inode == kNoInode) return false;
    cur = e->inode;
  }
  if (path.empty() && !empty_path) return false;  // ENOENT for the kernel too

  std::string_view rest = path;
  bool rest_in_path = true;  // else in expand_, after a symlink
  int hops = 0;
  int flip = 0;
  // The leading part up to the last '/' of a path whose final name is a plain one: resolved
  // once, then found in dir_cache_ while nothing in the namespace changes. The first
  // component left without a '/' in `rest` is then always that final name (every expansion of
  // a symlink before it ends with the rest of the path), where the walk is remembered.
  const size_t last_slash = path.rfind('/');
  std::string_view prefix;
  if (last_slash != std::string_view::npos && last_slash + 1 < path.size()) {
    const std::string_view final_name = path.substr(last_slash + 1);
    if (final_name != "." && final_name != "..") prefix = path.substr(0, last_slash + 1);
  }
  const uint64_t generation = inodes_.generation();
  const InodeId start = cur;
  if (!prefix.empty()) {
    if (const DirCacheEntry* e = FindDir(start, proc_root, prefix, generation)) {
      cur = e->dir;
      hops = e->hops;
      rest = path.substr(last_slash + 1);
      prefix = {};  // found: nothing to remember
    }
  }
  for (;;) {
    while (!rest.empty() && rest[0] == '/') rest.remove_prefix(1);
    if (rest.empty()) {  // the path names `cur` itself: "/", "dir/", ".", or an empty path
      r->inode = cur;
      r->dir = inodes_.parent(cur);
      r->name = {};
      return true;
    }
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos && !prefix.empty()) {
      RememberDir({generation, start, proc_root, cur, hops, {}}, prefix);
      prefix = {};
    }
    std::string_view comp = rest.substr(0, slash);
    std::string_view after = slash == std::string_view::npos ? "" : rest.substr(slash);
    bool last = after.find_first_not_of('/') == std::string_view::npos;
    bool trailing_slash = last && !after.empty();
    if (comp == ".") {
      rest = after;
      continue;
    }
    if (comp == "..") {
      if (cur != proc_root && cur != inodes_.root() && inodes_.parent(cur) != kNoInode) {
        cur = inodes_.parent(cur);
      }
      rest = after;
      continue;
    }
    InodeId child = inodes_.LookupOrCreate(cur, comp);
    const std::string* target = inodes_.symlink(child);
    if (target != nullptr && (!last || follow_final || trailing_slash)) {
      if (++hops > kMaxSymlinkHops) {
        ++stats_.symlink_loops;
        return false;
      }
      std::string& buf = expand_[flip ^= 1];
      buf.assign(*target);
      buf.append(after);
      rest = buf;
      rest_in_path = false;
      if (!target->empty() && (*target)[0] == '/') cur = proc_root;
      continue;
    }
    if (last) {
      r->dir = cur;
      if (rest_in_path) {
        r->name = comp;
      } else {
        r->spelled.assign(comp);
        r->name = r->spelled;
      }
      r->inode = child;
      return true;
    }
    cur = child;
    rest = after;
  }
}

bool Interpreter::PathOf(const Resolution& r, std::string* out) const {
  out->clear();
  if (r.name.empty()) return inodes_.AppendPath(r.inode, out);
  if (!inodes_.AppendPath(r.dir, out)) return false;
  if (out->back() != '/') out->push_back('/');
  out->append(r.name);
  return true;
}

Interpreter::RecordCacheEntry& Interpreter::RecordCacheFor(const Resolution& r) {
  const InodeId from = r.name.empty() ? r.inode : r.dir;
  const uint64_t h =
      (uint64_t{from} * 0x9e3779b97f4a7c15ull) ^ (uint64_t{r.inode} * 0xff51afd7ed558ccdull);
  RecordCacheEntry& e = record_cache_[(h >> 32) % kRecordCacheSlots];
  const uint64_t generation = inodes_.generation();
  if (e.generation == generation && e.from == from && e.name == r.name) return e;
  e.generation = UINT64_MAX;  // a miss: Record fills it
  e.from = from;
  e.name = r.name;
  e.id.reset();
  e.parent_id.reset();
  return e;
}

void Interpreter::Record(const Resolution& r, Effect e, const CallContext& ctx, bool probe,
                         bool listing) {
  if (ctx.block == kNoBlock) return;
  RecordCacheEntry& cached = RecordCacheFor(r);
  if (cached.generation != inodes_.generation()) {
    if (!PathOf(r, &cached.path)) {
      ++stats_.unnamed_paths;
      return;
    }
    cached.generation = inodes_.generation();
  }
  std::string_view path = cached.path;  // copied only to be rewritten
  // A unit that systemd sandboxes (PrivateTmp=, ProtectSystem=, ...) runs in a mount
  // namespace whose root is the real root bind-mounted at /run/systemd/unit-root: its paths
  // are the real root's.
  // The mount point itself, made or removed around the bind mount, is systemd's: it is not
  // the root it will show.
  constexpr std::string_view kUnitRoot = "/run/systemd/unit-root";
  if (path.starts_with(kUnitRoot) &&
      (path.size() == kUnitRoot.size() || path[kUnitRoot.size()] == '/')) {
    if (path.size() == kUnitRoot.size() && e != Effect::kConsumed) return;
    path.remove_prefix(kUnitRoot.size());
    if (path.empty()) path = "/";
  }
  // A mount or unmount in a mount namespace of the process's own (systemd setting up a unit's
  // sandbox at /run/systemd/mount-rootfs, a generator's private /tmp) changes nobody else's
  // files.
  if (e != Effect::kConsumed && fstrace::ChangesMountTable(ctx.syscall) &&
      ProcessFor(ctx.pid).own_mounts) {
    return;
  }
  // What PID 1 writes (its runtime state, cgroups, generator output) is the init system's,
  // never a product of the Service whose request it was serving; of what it reads, only the
  // started units' files are that Service's.
  if (ctx.pid == kInitPid) {
    const ServiceRequest* latest = LatestServiceRequest();
    if (e != Effect::kConsumed || latest == nullptr || !ReadForUnits(path, latest->starts)) {
      return;
    }
  }
  bool shallow = e == Effect::kConsumed   ? probe || fstrace::IsLookupSyscall(ctx.syscall)
                 : e == Effect::kProduced ? fstrace::IsMetadataSyscall(ctx.syscall)
                                          : false;
  Access a{.block = ctx.block,
           .effect = e,
           .failed = ctx.failed,
           .shallow = shallow,
           .listing = listing && e == Effect::kConsumed,
           .syscall = ctx.syscall,
           .pid = ctx.pid,
           .line = ctx.line};
  std::optional<PathId> id = cached.id;
  if (!id) {
    id = InternWithinBudget(path, ctx.line);
    if (!id) return;
    cached.id = id;  // ids are never taken back
  }
  accesses_.Record(*id, a);
  if (e == Effect::kProduced && !shallow) NoteDpkgWrite(ctx.pid, *id, path);
  if (e != Effect::kConsumed && !r.name.empty() && !shallow) {
    // Creating or removing a name needs the directory that holds it.
    if (!cached.parent_id) {
      const size_t cut = path.rfind('/');
      cached.parent_id = InternWithinBudget(path.substr(0, cut == 0 ? 1 : cut), ctx.line);
      if (!cached.parent_id) return;
    }
    a.effect = Effect::kConsumed;
    a.parent = true;
    a.shallow = false;
    a.listing = false;
    accesses_.Record(*cached.parent_id, a);
  }
}

// ---------------------------------------------------------------- the budget

std::optional<PathId> Interpreter::InternWithinBudget(std::string_view path, uint64_t line) {
  if (budget_hit_) return accesses_.Find(path);
  if (accesses_.path_count() >= options_.max_paths) {
    if (std::optional<PathId> known = accesses_.Find(path)) return known;
    HitBudget(base::BudgetLimit::kPaths, options_.max_paths, line);
    return std::nullopt;
  }
  return accesses_.Intern(path);
}

void Interpreter::HitBudget(base::BudgetLimit limit, uint64_t value, uint64_t line) {
  if (budget_hit_) return;
  budget_hit_ = base::BudgetHit{limit, value, line > 0 ? "trace line " + std::to_string(line) : ""};
}

void Interpreter::ApplyOverBudget(Process& p, const Construct& c, const CallContext& ctx) {
  switch (c.op) {
    case Op::kNewFd:
      // Open, on an object no longer named: the descriptor table stays right for close and dup.
      if (c.fd >= 0) procs_.SetFd(p, c.fd, kNoInode, c.cloexec);
      return;
    case Op::kDelFd:
    case Op::kDupFd:
    case Op::kSetCloexec:
    case Op::kCloseRange:
    case Op::kNewProc:
    case Op::kExec:
    case Op::kUnshare:
    case Op::kNop:
      // None of these resolves a path: applied as usual (the processes and their blocks).
      break;
    case Op::kHPath:
    case Op::kHPathSym:
    case Op::kSetCwd:
    case Op::kSetRoot:
    case Op::kRename:
    case Op::kLink:
    case Op::kSymlink:
    case Op::kLearnSymlink:
      ++stats_.over_budget_constructs;
      return;
  }
  ApplyWithinBudget(p, c, ctx);
}

// ---------------------------------------------------------------- constructs

void Interpreter::Apply(const Construct& c, const CallContext& ctx) {
  ++stats_.constructs;
  Process& p = ProcessFor(ctx.pid);
  // The inode table grows by the components of the paths a call names: checked before each,
  // so it stops within one call of the limit.
  if (!budget_hit_ && inodes_.live_inodes() >= options_.max_inodes) {
    HitBudget(base::BudgetLimit::kInodes, options_.max_inodes, ctx.line);
  }
  if (budget_hit_) {
    ApplyOverBudget(p, c, ctx);
    return;
  }
  ApplyWithinBudget(p, c, ctx);
}

void Interpreter::ApplyWithinBudget(Process& p, const Construct& c, const CallContext& ctx) {
  switch (c.op) {
    case Op::kHPath:
    case Op::kHPathSym: {
      Resolution r;
      if (!Resolve(p, c.dirfd, c.path, c.op == Op::kHPath, c.empty_path, &r)) {
        bool relative = c.path.empty() || c.path[0] != '/';
        // An open anonymous fd (pipe, socket) has no path to resolve against: not unknown.
        if (relative && c.dirfd != fstrace::kAtFdcwd && procs_.Fd(p, c.dirfd) == nullptr) {
          if (stats_.unresolved_dirfd++ < 5) stats_.unresolved_dirfd_lines.push_back(ctx.line);
        }
        return;
      }
      Record(r, c.effect, ctx, c.probe, c.listing);
      if (c.effect == Effect::kExpunged && !c.record_only && !ctx.failed && !r.name.empty()) {
        inodes_.Unbind(r.dir, r.name);
      }
      return;
    }
    case Op::kNewFd: {
      if (c.fd < 0) return;
      if (c.anonymous) {
        procs_.SetFd(p, c.fd, kNoInode, c.cloexec);
        return;
      }
      Resolution r;
      if (!Resolve(p, c.dirfd, c.path, c.follow, false, &r)) {
        procs_.SetFd(p, c.fd, kNoInode, c.cloexec);  // open, but on an object we cannot name
        return;
      }
      procs_.SetFd(p, c.fd, c.tmpfile ? inodes_.NewAnonymous() : r.inode, c.cloexec);
      return;
    }
    case Op::kDelFd:
      procs_.CloseFd(p, c.fd);
      return;
    case Op::kDupFd: {
      if (c.fd == c.fd2 || c.fd2 < 0) return;
      const FdEntry* e = procs_.Fd(p, c.fd);
      procs_.SetFd(p, c.fd2, e != nullptr ? e->inode : kNoInode, c.cloexec);
      return;
    }
    case Op::kSetCloexec:
      procs_.SetCloexec(p, c.fd, c.cloexec);
      return;
    case Op::kCloseRange:
      if (c.unshare_fds) procs_.UnshareFds(p);
      procs_.CloseRange(p, c.fd, c.fd2, c.cloexec);
      return;
    case Op::kSetCwd:
    case Op::kSetRoot: {
      Resolution r;
      if (!Resolve(p, c.dirfd, c.path, true, c.empty_path, &r)) return;
      if (c.op == Op::kSetCwd) {
        procs_.SetCwd(p, r.inode);
      } else {
        procs_.SetRoot(p, r.inode);
      }
      return;
    }
    case Op::kNewProc:
      if (adopted_.erase(c.child) > 0) return;  // created when it first showed up
      CreateChild(ctx.pid, c.child, c.clone_flags, ctx.line);
      return;
    case Op::kExec: {
      procs_.PrepareExec(p);
      programs_.Exec(ctx.pid, c.path, ctx.line);
      std::string_view program = c.path.substr(c.path.rfind('/') + 1);
      if (p.ownership == Ownership::kResource && program == "systemctl") {
        service_requests_[ctx.pid] =
            ServiceRequest{p.block, ++service_request_order_, UnitsStarted(c.path2)};
      } else {
        service_requests_.erase(ctx.pid);
      }
      dpkg_written_.erase(ctx.pid);
      return;
    }
    case Op::kRename:
      if (!unpacked_from_.empty()) NoteDpkgRename(p, c);
      ApplyRename(p, c);
      return;
    case Op::kLink: {
      Resolution src, dst;
      if (!Resolve(p, c.dirfd, c.path, c.follow, c.empty_path, &src)) return;
      inodes_.Ref(src.inode);
      if (Resolve(p, c.dirfd2, c.path2, false, false, &dst) && !dst.name.empty()) {
        inodes_.Bind(dst.dir, dst.name, src.inode);
      }
      inodes_.Unref(src.inode);
      return;
    }
    case Op::kSymlink: {
      Resolution r;
      if (!Resolve(p, c.dirfd2, c.path2, false, false, &r) || r.name.empty()) return;
      InodeId link = inodes_.NewAnonymous();
      inodes_.Bind(r.dir, r.name, link);
      inodes_.SetSymlink(link, c.path, /*learned=*/false);
      return;
    }
    case Op::kLearnSymlink: {
      Resolution r;
      if (!Resolve(p, c.dirfd, c.path, false, c.path.empty(), &r)) return;
      if (inodes_.symlink(r.inode) != nullptr && !inodes_.symlink_learned(r.inode)) return;
      if (!PathOf(r, &scratch_) || UnderVirtualFs(scratch_)) return;  // per-process links
      if (inodes_.symlink(r.inode) == nullptr) ++stats_.learned_symlinks;
      inodes_.SetSymlink(r.inode, c.path2, /*learned=*/true);
      return;
    }
    case Op::kUnshare:
      if (c.clone_flags & fstrace::kCloneNewns) p.own_mounts = true;
      if (c.clone_flags & fstrace::kCloneFiles) procs_.UnshareFds(p);
      if (c.clone_flags & fstrace::kCloneFs) procs_.UnshareFs(p);
      return;
    case Op::kNop:
      return;
  }
}

void Interpreter::ApplyRename(Process& p, const Construct& c) {
  Resolution from, to;
  if (!Resolve(p, c.dirfd, c.path, false, false, &from) || from.name.empty()) return;
  InodeId moved = from.inode;
  inodes_.Ref(moved);  // alive while the destination is looked up and rebound
  if (Resolve(p, c.dirfd2, c.path2, false, false, &to) && !to.name.empty() && to.inode != moved) {
    if (c.exchange) {
      InodeId other = to.inode;
      inodes_.Ref(other);
      inodes_.Bind(to.dir, to.name, moved);
      inodes_.Bind(from.dir, from.name, other);
      inodes_.Unref(other);
    } else {
      inodes_.Bind(to.dir, to.name, moved);  // a name, not the inode, moves: open fds follow
      inodes_.Unbind(from.dir, from.name);
    }
  }
  inodes_.Unref(moved);
}

// ---------------------------------------------------------------- dpkg

// dpkg is known by what it writes, not by its name: strace cannot always read execve's
// arguments (a vfork child's, under the kernel-side filter), and apt runs it by full path.
void Interpreter::NoteDpkgWrite(int32_t pid, PathId path, std::string_view text) {
  constexpr std::string_view kInfo = "/var/lib/dpkg/info/";
  std::string_view name = text;
  if (!name.starts_with(kInfo) || !name.ends_with(".list") ||
      name.find('/', kInfo.size()) != std::string_view::npos) {
    dpkg_written_[pid].push_back(path);
    return;
  }
  auto it = dpkg_written_.find(pid);
  if (it == dpkg_written_.end()) return;
  name = name.substr(kInfo.size(), name.size() - kInfo.size() - 5);
  name = name.substr(0, name.find(':'));  // libfoo1:amd64
  auto known = std::find(unpacked_packages_.begin(), unpacked_packages_.end(), name);
  uint32_t index = static_cast<uint32_t>(known - unpacked_packages_.begin());
  if (known == unpacked_packages_.end()) unpacked_packages_.emplace_back(name);
  // A path the configure step already gave its package (a conffile) keeps it.
  for (PathId p : it->second) unpacked_from_.try_emplace(p, index);
  it->second.clear();
}

// Configuring a package renames each conffile's NAME.dpkg-new to NAME: the package of the
// one is the package of the other.
void Interpreter::NoteDpkgRename(Process& p, const Construct& c) {
  Resolution from, to;
  if (!Resolve(p, c.dirfd, c.path, false, false, &from) || !PathOf(from, &scratch_)) return;
  std::optional<PathId> from_id = accesses_.Find(scratch_);
  if (!from_id) return;  // never recorded, so never unpacked
  auto it = unpacked_from_.find(*from_id);
  if (it == unpacked_from_.end()) return;
  uint32_t package = it->second;
  if (!Resolve(p, c.dirfd2, c.path2, false, false, &to) || !PathOf(to, &scratch_)) return;
  if (std::optional<PathId> to_id = InternWithinBudget(scratch_, 0)) {
    unpacked_from_[*to_id] = package;
  }
}

std::string_view Interpreter::UnpackedFrom(PathId path) const {
  auto it = unpacked_from_.find(path);
  return it == unpacked_from_.end() ? std::string_view() : unpacked_packages_[it->second];
}

// ---------------------------------------------------------------- paths

std::string Interpreter::CanonicalPath(std::string_view path) const {
  if (path.empty() || path[0] != '/') return std::string(path);
  // What CanonicalPathUncached makes of a path is what it makes of its directory part, then
  // the final name as it is.
  const std::string_view dir = path.substr(0, path.rfind('/') + 1);
  const std::string_view last = path.substr(dir.size());
  if (canonical_generation_ != inodes_.generation() || canonical_dir_ != dir) {
    canonical_generation_ = inodes_.generation();
    canonical_dir_.assign(dir);
    canonical_dir_result_ = CanonicalPathUncached(dir);
  }
  std::string out;
  out.reserve(canonical_dir_result_.size() + last.size());
  out.append(canonical_dir_result_);
  out.append(last);
  return out;
}

std::string Interpreter::CanonicalPathUncached(std::string_view path) const {
  if (path.empty() || path[0] != '/') return std::string(path);
  size_t last_slash = path.rfind('/');
  std::string_view last = path.substr(last_slash + 1);
  std::string buf[2];
  std::string_view rest = path.substr(0, last_slash);
  InodeId cur = inodes_.root();
  bool changed = false;
  int hops = 0, flip = 0;
  while (true) {
    while (!rest.empty() && rest[0] == '/') rest.remove_prefix(1);
    if (rest.empty()) break;
    size_t slash = rest.find('/');
    std::string_view comp = rest.substr(0, slash);
    std::string_view after = slash == std::string_view::npos ? "" : rest.substr(slash);
    if (comp == "." || comp == "..") {
      if (comp == ".." && cur != inodes_.root()) cur = inodes_.parent(cur);
      rest = after;
      continue;
    }
    InodeId child = inodes_.Lookup(cur, comp);
    if (child == kNoInode) {  // never seen: the rest cannot hold a known symlink
      if (!changed) return std::string(path);
      std::string out;
      if (!inodes_.AppendPath(cur, &out)) return std::string(path);
      if (out.back() != '/') out.push_back('/');
      out.append(rest);
      out.push_back('/');
      out.append(last);
      return out;
    }
    if (inodes_.symlink_learned(child)) {
      if (++hops > kMaxSymlinkHops) return std::string(path);
      const std::string& target = *inodes_.symlink(child);
      std::string& b = buf[flip ^= 1];
      b.assign(target);
      b.append(after);
      rest = b;
      if (!target.empty() && target[0] == '/') cur = inodes_.root();
      changed = true;
      continue;
    }
    cur = child;
    rest = after;
  }
  if (!changed) return std::string(path);
  std::string out;
  if (!inodes_.AppendPath(cur, &out)) return std::string(path);
  if (out.back() != '/') out.push_back('/');
  out.append(last);
  return out;
}

bool Interpreter::ResolveForTest(int32_t pid, int dirfd, std::string_view path, bool follow,
                                 std::string* out) {
  Resolution r;
  Process& p = ProcessFor(pid);
  return Resolve(p, dirfd, path, follow, false, &r) && PathOf(r, out);
}

}  // namespace fsmove::analysis
