// The syscall table: each modelled call and the FStrace constructs it lowers to.
// Reading it top to bottom shows every call fsmove understands and what it does with it.
#include "fsmove/fstrace/lowering.h"

#include <vector>

#include "name_dispatch.h"

namespace fsmove::fstrace {

using strace::FlagName;

const FlagName kOpenFlagNames[] = {
    {"O_RDONLY", 0},          {"O_WRONLY", kOWronly},       {"O_RDWR", kORdwr},
    {"O_CREAT", kOCreat},     {"O_EXCL", kOExcl},           {"O_TRUNC", kOTrunc},
    {"O_APPEND", kOAppend},   {"O_DIRECTORY", kODirectory}, {"O_NOFOLLOW", kONofollow},
    {"O_CLOEXEC", kOCloexec}, {"O_PATH", kOPath},           {"O_TMPFILE", kOTmpfile | kODirectory},
};
const size_t kOpenFlagNameCount = std::size(kOpenFlagNames);

namespace {

constexpr uint64_t kAtSymlinkNofollow = 0x100, kAtRemovedir = 0x200, kAtSymlinkFollow = 0x400,
                   kAtEmptyPath = 0x1000;
const FlagName kAtFlagNames[] = {
    {"AT_SYMLINK_NOFOLLOW", kAtSymlinkNofollow},
    {"AT_REMOVEDIR", kAtRemovedir},
    {"AT_SYMLINK_FOLLOW", kAtSymlinkFollow},
    {"AT_EMPTY_PATH", kAtEmptyPath},
};
constexpr uint64_t kRenameExchange = 2;
const FlagName kRenameFlagNames[] = {
    {"RENAME_NOREPLACE", 1}, {"RENAME_EXCHANGE", kRenameExchange}, {"RENAME_WHITEOUT", 4}};
const FlagName kCloneFlagNames[] = {
    {"CLONE_VM", 0x100},
    {"CLONE_FS", kCloneFs},
    {"CLONE_FILES", kCloneFiles},
    {"CLONE_SIGHAND", 0x800},
    {"CLONE_VFORK", 0x4000},
    {"CLONE_PARENT", 0x8000},
    {"CLONE_THREAD", kCloneThread},
    {"CLONE_NEWNS", kCloneNewns},
};
constexpr uint64_t kCloseRangeUnshare = 2, kCloseRangeCloexec = 4;
const FlagName kCloseRangeFlagNames[] = {{"CLOSE_RANGE_UNSHARE", kCloseRangeUnshare},
                                         {"CLOSE_RANGE_CLOEXEC", kCloseRangeCloexec}};
const FlagName kFdFlagNames[] = {{"FD_CLOEXEC", 1}};
// mount(2)'s flags that make a call change a mount's options or propagation, not what its
// path holds.
constexpr uint64_t kMsRemount = 0x20, kMsUnbindable = 1U << 17, kMsPrivate = 1U << 18,
                   kMsSlave = 1U << 19, kMsShared = 1U << 20;
const FlagName kMountFlagNames[] = {{"MS_REMOUNT", kMsRemount},
                                    {"MS_UNBINDABLE", kMsUnbindable},
                                    {"MS_PRIVATE", kMsPrivate},
                                    {"MS_SLAVE", kMsSlave},
                                    {"MS_SHARED", kMsShared}};

bool Has(uint64_t flags, uint64_t bit) { return (flags & bit) == bit; }

// ---- lowering helpers shared by call families ----

void OpenLike(Lowerer& l, int dirfd, size_t path_i, uint64_t flags) {
  std::string_view path;
  if (!l.Str(path_i, &path)) return;
  uint64_t acc = flags & 3;
  bool follow = !Has(flags, kONofollow) && !(Has(flags, kOCreat) && Has(flags, kOExcl));
  if (Has(flags, kOTmpfile)) {  // an unnamed file in directory `path`; linkat names it later
    l.HPath(dirfd, path, Effect::kConsumed, true);
    l.NewFd(dirfd, path, static_cast<int>(l.ret()), Has(flags, kOCloexec), true, true);
    return;
  }
  bool writes = acc == kOWronly || Has(flags, kOCreat) || (Has(flags, kOTrunc) && acc != 0);
  if (Has(flags, kOPath)) writes = false;
  // opendir(3) and fts open the directory read-only with O_DIRECTORY: a listing. A dirfd
  // for *at() calls is usually O_PATH, or its lookups show up as such.
  bool listing = !writes && Has(flags, kODirectory) && !Has(flags, kOPath) && acc == 0;
  l.HPath(dirfd, path, writes ? Effect::kProduced : Effect::kConsumed, follow, false,
          Has(flags, kOPath), listing);
  l.NewFd(dirfd, path, static_cast<int>(l.ret()), Has(flags, kOCloexec), follow, false);
}

uint64_t OpenFlags(Lowerer& l, size_t i) { return l.Flags(i, kOpenFlagNames, kOpenFlagNameCount); }
uint64_t AtFlags(Lowerer& l, size_t i) { return l.Flags(i, kAtFlagNames, std::size(kAtFlagNames)); }
uint64_t RenameFlags(Lowerer& l, size_t i) {
  return l.Flags(i, kRenameFlagNames, std::size(kRenameFlagNames));
}

// A path effect through (dirfd, path) honouring AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH.
void AtPath(Lowerer& l, int dirfd, size_t path_i, Effect e, uint64_t at_flags,
            bool follow_default) {
  std::string_view path;
  if (!l.Str(path_i, &path)) return;
  bool follow = follow_default && !Has(at_flags, kAtSymlinkNofollow);
  if (Has(at_flags, kAtSymlinkFollow)) follow = true;
  l.HPath(dirfd, path, e, follow, path.empty() && Has(at_flags, kAtEmptyPath));
}

// A path argument with no dirfd.
void PathArg(Lowerer& l, size_t i, Effect e, bool follow) {
  std::string_view path;
  if (l.Str(i, &path)) l.HPath(kAtFdcwd, path, e, follow);
}

// An effect on the object an fd refers to.
void FdObject(Lowerer& l, size_t fd_i, Effect e) { l.HPath(l.Fd(fd_i), "", e, true, true); }

void RenameLike(Lowerer& l, int d1, size_t p1, int d2, size_t p2, uint64_t flags) {
  std::string_view from, to;
  if (!l.Str(p1, &from) || !l.Str(p2, &to)) return;
  if (l.failed()) {  // both names were still needed
    l.HPath(d1, from, Effect::kConsumed, false);
    l.HPath(d2, to, Effect::kConsumed, false);
    return;
  }
  bool exchange = Has(flags, kRenameExchange);
  l.Emit(make::NameEffect(d1, from, exchange ? Effect::kProduced : Effect::kExpunged));
  l.Emit(make::NameEffect(d2, to, Effect::kProduced));
  l.Emit(make::Rename(d1, from, d2, to, exchange));
}

void LinkLike(Lowerer& l, int d1, size_t p1, int d2, size_t p2, uint64_t at_flags) {
  std::string_view from, to;
  if (!l.Str(p1, &from) || !l.Str(p2, &to)) return;
  bool empty = from.empty() && Has(at_flags, kAtEmptyPath);
  bool follow = Has(at_flags, kAtSymlinkFollow);
  l.HPath(d1, from, Effect::kConsumed, follow, empty);
  if (l.failed()) {
    l.HPath(d2, to, Effect::kConsumed, false);
    return;
  }
  l.Emit(make::NameEffect(d2, to, Effect::kProduced));
  l.Emit(make::Link(d1, from, d2, to, empty, follow));
}

void SymlinkLike(Lowerer& l, size_t target_i, int dirfd, size_t link_i) {
  std::string_view target, link;
  if (!l.Str(target_i, &target) || !l.Str(link_i, &link)) return;
  if (l.failed()) {
    l.HPath(dirfd, link, Effect::kConsumed, false);
    return;
  }
  l.Emit(make::NameEffect(dirfd, link, Effect::kProduced));
  l.Emit(make::Symlink(target, dirfd, link));
}

void ReadlinkLike(Lowerer& l, int dirfd, size_t path_i, size_t buf_i) {
  std::string_view path;
  if (!l.Str(path_i, &path)) return;
  l.HPath(dirfd, path, Effect::kConsumed, false, path.empty());
  std::string_view target;
  if (!l.failed() && l.Str(buf_i, &target) && !target.empty()) {
    l.Emit(make::LearnSymlink(dirfd, path, target));
  }
}

void NewProc(Lowerer& l, uint64_t flags) {
  if (l.ret() > 0) l.Emit(make::NewProc(static_cast<int32_t>(l.ret()), flags));
}

void DupTo(Lowerer& l, int from, int to, bool cloexec) { l.Emit(make::DupFd(from, to, cloexec)); }

void Exec(Lowerer& l, int dirfd, size_t path_i, uint64_t at_flags) {
  AtPath(l, dirfd, path_i, Effect::kConsumed, at_flags, true);
  std::string_view program;  // by name (systemctl, ...); empty when it cannot be decoded
  if (!l.Str(path_i, &program)) program = {};
  l.Emit(make::Exec(program, l.args()[path_i + 1]));
}

// Calls that return a new descriptor for an object without a path.
void AnonymousFd(Lowerer& l) {
  if (l.ret() >= 0) l.AnonFd(static_cast<int>(l.ret()), false);
}

void PipeLike(Lowerer& l) {
  // pipe([3, 4]), socketpair(AF_UNIX, SOCK_STREAM, 0, [3, 4])
  for (size_t i = 0; i < l.args().size(); ++i) {
    auto fds = strace::ArrayItems(l.args()[i]);
    if (fds.size() != 2) continue;
    for (std::string_view f : fds) {
      int64_t fd = 0;
      if (strace::ParseInt(f, &fd)) l.AnonFd(static_cast<int>(fd), false);
    }
    return;
  }
}

void Nop(Lowerer&) {}

// ---- calls that take more than one statement: their rows name them ----

void Openat2(Lowerer& l) {
  OpenLike(l, l.Fd(0), 1,
           strace::ParseFlags(strace::StructField(l.args()[2], "flags"), kOpenFlagNames,
                              kOpenFlagNameCount));
}

// utimensat(fd, NULL, ...) touches the object fd refers to.
void Utimensat(Lowerer& l) {
  if (l.args()[1] == "NULL") {
    FdObject(l, 0, Effect::kProduced);
  } else {
    AtPath(l, l.Fd(0), 1, Effect::kProduced, AtFlags(l, 3), true);
  }
}

// A file system or a bind mount over the target changes what the path holds: produced. A
// remount (new options) or a change of propagation (MS_SHARED, MS_SLAVE, ...; systemd's
// generators start with mount(NULL, "/", NULL, MS_REC|MS_SLAVE, NULL) at every
// daemon-reload) leaves every file as it was: no effect.
void Mount(Lowerer& l) {
  constexpr uint64_t kNoContent = kMsRemount | kMsUnbindable | kMsPrivate | kMsSlave | kMsShared;
  if (l.args().size() > 3 && (l.Flags(3, kMountFlagNames, std::size(kMountFlagNames)) & kNoContent))
    return;
  PathArg(l, 1, Effect::kProduced, true);
}

void Chdir(Lowerer& l) {
  std::string_view p;
  if (!l.Str(0, &p)) return;
  l.HPath(kAtFdcwd, p, Effect::kConsumed, true);
  l.Emit(make::SetCwd(kAtFdcwd, p, false));
}

void Fchdir(Lowerer& l) { l.Emit(make::SetCwd(l.Fd(0), "", true)); }

// The result is the working directory, unless it is not absolute ("(unreachable)/...").
void Getcwd(Lowerer& l) {
  std::string_view p;
  if (!l.failed() && l.Str(0, &p) && p.starts_with("/")) l.Emit(make::SetCwd(kAtFdcwd, p, false));
}

void Chroot(Lowerer& l) {
  std::string_view p;
  if (!l.Str(0, &p)) return;
  l.HPath(kAtFdcwd, p, Effect::kConsumed, true);
  l.Emit(make::SetRoot(p));
}

void Close(Lowerer& l) { l.Emit(make::DelFd(l.Fd(0))); }

// close_range(first, ~0U, flags): the last fd is clamped to INT_MAX.
void CloseRange(Lowerer& l) {
  int64_t last = 0;
  if (!strace::ParseInt(l.args()[1], &last) || last > 0x7fffffff) last = 0x7fffffff;
  uint64_t f = l.Flags(2, kCloseRangeFlagNames, std::size(kCloseRangeFlagNames));
  l.Emit(make::CloseRange(l.Fd(0), static_cast<int>(last), Has(f, kCloseRangeCloexec),
                          Has(f, kCloseRangeUnshare)));
}

void Fcntl(Lowerer& l) {
  std::string_view cmd = l.args()[1];
  if (cmd.starts_with("F_DUPFD_CLOEXEC")) {
    DupTo(l, l.Fd(0), static_cast<int>(l.ret()), true);
  } else if (cmd.starts_with("F_DUPFD")) {
    DupTo(l, l.Fd(0), static_cast<int>(l.ret()), false);
  } else if (cmd.starts_with("F_SETFD")) {
    l.Emit(make::SetCloexec(l.Fd(0), (l.Flags(2, kFdFlagNames, std::size(kFdFlagNames)) & 1) != 0));
  }
}

void Unshare(Lowerer& l) {
  l.Emit(make::Unshare(l.Flags(0, kCloneFlagNames, std::size(kCloneFlagNames))));
}

#define L(...) [](Lowerer& l) { __VA_ARGS__; }
constexpr uint8_t kC = kConsumeOnly;

const SyscallSpec kTable[] = {
    // ---- opening files ----
    {"open", L(OpenLike(l, kAtFdcwd, 0, OpenFlags(l, 1))), 0},
    {"openat", L(OpenLike(l, l.Fd(0), 1, OpenFlags(l, 2))), 0},
    {"openat2", Openat2, 0},
    {"creat", L(OpenLike(l, kAtFdcwd, 0, kOWronly | kOCreat | kOTrunc)), 0},
    // ---- looking at paths (consume) ----
    {"stat", L(PathArg(l, 0, Effect::kConsumed, true)), kC | kLookup},
    {"stat64", L(PathArg(l, 0, Effect::kConsumed, true)), kC | kLookup},
    {"lstat", L(PathArg(l, 0, Effect::kConsumed, false)), kC | kLookup},
    {"lstat64", L(PathArg(l, 0, Effect::kConsumed, false)), kC | kLookup},
    {"newfstatat", L(AtPath(l, l.Fd(0), 1, Effect::kConsumed, AtFlags(l, 3), true)), kC | kLookup},
    {"fstatat64", L(AtPath(l, l.Fd(0), 1, Effect::kConsumed, AtFlags(l, 3), true)), kC | kLookup},
    {"statx", L(AtPath(l, l.Fd(0), 1, Effect::kConsumed, AtFlags(l, 2), true)), kC | kLookup},
    {"access", L(PathArg(l, 0, Effect::kConsumed, true)), kC | kLookup},
    {"faccessat", L(AtPath(l, l.Fd(0), 1, Effect::kConsumed, 0, true)), kC | kLookup},
    {"faccessat2", L(AtPath(l, l.Fd(0), 1, Effect::kConsumed, AtFlags(l, 3), true)), kC | kLookup},
    {"statfs", L(PathArg(l, 0, Effect::kConsumed, true)), kC | kLookup},
    {"statfs64", L(PathArg(l, 0, Effect::kConsumed, true)), kC | kLookup},
    {"getxattr", L(PathArg(l, 0, Effect::kConsumed, true)), kC | kLookup},
    {"lgetxattr", L(PathArg(l, 0, Effect::kConsumed, false)), kC | kLookup},
    {"listxattr", L(PathArg(l, 0, Effect::kConsumed, true)), kC | kLookup},
    {"llistxattr", L(PathArg(l, 0, Effect::kConsumed, false)), kC | kLookup},
    {"readlink", L(ReadlinkLike(l, kAtFdcwd, 0, 1)), kC | kTeachesSymlink | kLookup},
    {"readlinkat", L(ReadlinkLike(l, l.Fd(0), 1, 2)), kC | kTeachesSymlink | kLookup},
    // ---- changing a file's attributes or content in place (produce) ----
    {"chmod", L(PathArg(l, 0, Effect::kProduced, true)), kMetadata},
    {"fchmod", L(FdObject(l, 0, Effect::kProduced)), kMetadata},
    {"fchmodat", L(AtPath(l, l.Fd(0), 1, Effect::kProduced, 0, true)), kMetadata},
    {"fchmodat2", L(AtPath(l, l.Fd(0), 1, Effect::kProduced, AtFlags(l, 3), true)), kMetadata},
    {"chown", L(PathArg(l, 0, Effect::kProduced, true)), kMetadata},
    {"lchown", L(PathArg(l, 0, Effect::kProduced, false)), kMetadata},
    {"fchown", L(FdObject(l, 0, Effect::kProduced)), kMetadata},
    {"fchownat", L(AtPath(l, l.Fd(0), 1, Effect::kProduced, AtFlags(l, 4), true)), kMetadata},
    {"truncate", L(PathArg(l, 0, Effect::kProduced, true)), 0},
    {"ftruncate", L(FdObject(l, 0, Effect::kProduced)), 0},
    {"fallocate", L(FdObject(l, 0, Effect::kProduced)), 0},
    {"utime", L(PathArg(l, 0, Effect::kProduced, true)), kMetadata},
    {"utimes", L(PathArg(l, 0, Effect::kProduced, true)), kMetadata},
    {"futimesat", L(AtPath(l, l.Fd(0), 1, Effect::kProduced, 0, true)), kMetadata},
    {"utimensat", Utimensat, kMetadata},
    {"setxattr", L(PathArg(l, 0, Effect::kProduced, true)), kMetadata},
    {"lsetxattr", L(PathArg(l, 0, Effect::kProduced, false)), kMetadata},
    {"fsetxattr", L(FdObject(l, 0, Effect::kProduced)), kMetadata},
    {"removexattr", L(PathArg(l, 0, Effect::kProduced, true)), kMetadata},
    {"lremovexattr", L(PathArg(l, 0, Effect::kProduced, false)), kMetadata},
    {"fremovexattr", L(FdObject(l, 0, Effect::kProduced)), kMetadata},
    // ---- creating and removing names ----
    {"mkdir", L(PathArg(l, 0, Effect::kProduced, false)), 0},
    {"mkdirat", L(AtPath(l, l.Fd(0), 1, Effect::kProduced, 0, false)), 0},
    {"mknod", L(PathArg(l, 0, Effect::kProduced, false)), 0},
    {"mknodat", L(AtPath(l, l.Fd(0), 1, Effect::kProduced, 0, false)), 0},
    {"rmdir", L(PathArg(l, 0, Effect::kExpunged, false)), 0},
    {"unlink", L(PathArg(l, 0, Effect::kExpunged, false)), 0},
    {"unlinkat", L(AtPath(l, l.Fd(0), 1, Effect::kExpunged, 0, false)), 0},
    {"rename", L(RenameLike(l, kAtFdcwd, 0, kAtFdcwd, 1, 0)), 0},
    {"renameat", L(RenameLike(l, l.Fd(0), 1, l.Fd(2), 3, 0)), 0},
    {"renameat2", L(RenameLike(l, l.Fd(0), 1, l.Fd(2), 3, RenameFlags(l, 4))), 0},
    {"link", L(LinkLike(l, kAtFdcwd, 0, kAtFdcwd, 1, 0)), 0},
    {"linkat", L(LinkLike(l, l.Fd(0), 1, l.Fd(2), 3, AtFlags(l, 4))), 0},
    {"symlink", L(SymlinkLike(l, 0, kAtFdcwd, 1)), 0},
    {"symlinkat", L(SymlinkLike(l, 0, l.Fd(1), 2)), 0},
    {"mount", Mount, kMountTable},
    {"umount2", L(PathArg(l, 0, Effect::kProduced, true)), kMountTable},
    // ---- working and root directory ----
    {"chdir", Chdir, 0},
    {"fchdir", Fchdir, 0},
    {"getcwd", Getcwd, 0},
    {"chroot", Chroot, 0},
    // ---- descriptors ----
    {"close", Close, 0},
    {"close_range", CloseRange, 0},
    {"dup", L(DupTo(l, l.Fd(0), static_cast<int>(l.ret()), false)), 0},
    {"dup2", L(DupTo(l, l.Fd(0), l.Fd(1), false)), 0},
    {"dup3", L(DupTo(l, l.Fd(0), l.Fd(1), Has(OpenFlags(l, 2), kOCloexec))), 0},
    {"fcntl", Fcntl, 0},
    {"pipe", L(PipeLike(l)), 0},
    {"pipe2", L(PipeLike(l)), 0},
    {"socketpair", L(PipeLike(l)), 0},
    {"socket", L(AnonymousFd(l)), 0},
    {"accept", L(AnonymousFd(l)), 0},
    {"accept4", L(AnonymousFd(l)), 0},
    {"epoll_create", L(AnonymousFd(l)), 0},
    {"epoll_create1", L(AnonymousFd(l)), 0},
    {"eventfd", L(AnonymousFd(l)), 0},
    {"eventfd2", L(AnonymousFd(l)), 0},
    {"timerfd_create", L(AnonymousFd(l)), 0},
    {"signalfd", L(AnonymousFd(l)), 0},
    {"signalfd4", L(AnonymousFd(l)), 0},
    {"inotify_init", L(AnonymousFd(l)), 0},
    {"inotify_init1", L(AnonymousFd(l)), 0},
    {"memfd_create", L(AnonymousFd(l)), 0},
    {"pidfd_open", L(AnonymousFd(l)), 0},
    {"pidfd_getfd", L(AnonymousFd(l)), 0},
    {"userfaultfd", L(AnonymousFd(l)), 0},
    {"fanotify_init", L(AnonymousFd(l)), 0},
    {"perf_event_open", L(AnonymousFd(l)), 0},
    {"io_uring_setup", L(AnonymousFd(l)), 0},
    // ---- processes ----
    {"clone", L(NewProc(l, CloneFlags("clone", l.args()))), kCreatesProcess},
    {"clone3", L(NewProc(l, CloneFlags("clone3", l.args()))), kCreatesProcess},
    {"fork", L(NewProc(l, 0)), kCreatesProcess},
    {"vfork", L(NewProc(l, 0)), kCreatesProcess},
    {"execve", L(Exec(l, kAtFdcwd, 0, 0)), 0},
    {"execveat", L(Exec(l, l.Fd(0), 1, AtFlags(l, 4))), 0},
    {"unshare", Unshare, 0},
    // ---- stdout writes: Puppet's markers are taken out before lowering ----
    {"write", Nop, kNoEffect | kMayCarryMarker},
    {"writev", Nop, kNoEffect | kMayCarryMarker | kMarkerInIovecs},
    // ---- reviewed: no effect on names, descriptors, working directories or processes ----
    {"read", Nop, kNoEffect},
    {"readv", Nop, kNoEffect},
    {"pread64", Nop, kNoEffect},
    {"preadv", Nop, kNoEffect},
    {"preadv2", Nop, kNoEffect},
    {"pwrite64", Nop, kNoEffect},
    {"pwritev", Nop, kNoEffect},
    {"pwritev2", Nop, kNoEffect},
    {"lseek", Nop, kNoEffect},
    {"_llseek", Nop, kNoEffect},
    {"mmap", Nop, kNoEffect},
    {"mmap2", Nop, kNoEffect},
    {"munmap", Nop, kNoEffect},
    {"mprotect", Nop, kNoEffect},
    {"mremap", Nop, kNoEffect},
    {"madvise", Nop, kNoEffect},
    {"mlock", Nop, kNoEffect},
    {"munlock", Nop, kNoEffect},
    {"mlockall", Nop, kNoEffect},
    {"munlockall", Nop, kNoEffect},
    {"mincore", Nop, kNoEffect},
    {"msync", Nop, kNoEffect},
    {"brk", Nop, kNoEffect},
    {"rt_sigaction", Nop, kNoEffect},
    {"rt_sigprocmask", Nop, kNoEffect},
    {"rt_sigreturn", Nop, kNoEffect},
    {"rt_sigsuspend", Nop, kNoEffect},
    {"rt_sigtimedwait", Nop, kNoEffect},
    {"rt_sigqueueinfo", Nop, kNoEffect},
    {"sigaltstack", Nop, kNoEffect},
    {"ioctl", Nop, kNoEffect},
    {"getpid", Nop, kNoEffect},
    {"getppid", Nop, kNoEffect},
    {"gettid", Nop, kNoEffect},
    {"getuid", Nop, kNoEffect},
    {"geteuid", Nop, kNoEffect},
    {"getgid", Nop, kNoEffect},
    {"getegid", Nop, kNoEffect},
    {"getresuid", Nop, kNoEffect},
    {"getresgid", Nop, kNoEffect},
    {"getgroups", Nop, kNoEffect},
    {"setuid", Nop, kNoEffect},
    {"setgid", Nop, kNoEffect},
    {"setreuid", Nop, kNoEffect},
    {"setregid", Nop, kNoEffect},
    {"setresuid", Nop, kNoEffect},
    {"setresgid", Nop, kNoEffect},
    {"setgroups", Nop, kNoEffect},
    {"setfsuid", Nop, kNoEffect},
    {"setfsgid", Nop, kNoEffect},
    {"setsid", Nop, kNoEffect},
    {"setpgid", Nop, kNoEffect},
    {"getpgrp", Nop, kNoEffect},
    {"getpgid", Nop, kNoEffect},
    {"getsid", Nop, kNoEffect},
    {"uname", Nop, kNoEffect},
    {"sysinfo", Nop, kNoEffect},
    {"getrlimit", Nop, kNoEffect},
    {"setrlimit", Nop, kNoEffect},
    {"prlimit64", Nop, kNoEffect},
    {"getrusage", Nop, kNoEffect},
    {"times", Nop, kNoEffect},
    {"arch_prctl", Nop, kNoEffect},
    {"set_tid_address", Nop, kNoEffect},
    {"set_robust_list", Nop, kNoEffect},
    {"get_robust_list", Nop, kNoEffect},
    {"rseq", Nop, kNoEffect},
    {"futex", Nop, kNoEffect},
    {"futex_waitv", Nop, kNoEffect},
    {"nanosleep", Nop, kNoEffect},
    {"clock_nanosleep", Nop, kNoEffect},
    {"clock_gettime", Nop, kNoEffect},
    {"clock_getres", Nop, kNoEffect},
    {"gettimeofday", Nop, kNoEffect},
    {"time", Nop, kNoEffect},
    {"sched_yield", Nop, kNoEffect},
    {"sched_getaffinity", Nop, kNoEffect},
    {"sched_setaffinity", Nop, kNoEffect},
    {"sched_getparam", Nop, kNoEffect},
    {"sched_getscheduler", Nop, kNoEffect},
    {"sched_setscheduler", Nop, kNoEffect},
    {"sched_get_priority_min", Nop, kNoEffect},
    {"sched_get_priority_max", Nop, kNoEffect},
    {"getrandom", Nop, kNoEffect},
    {"poll", Nop, kNoEffect},
    {"ppoll", Nop, kNoEffect},
    {"select", Nop, kNoEffect},
    {"pselect6", Nop, kNoEffect},
    {"epoll_wait", Nop, kNoEffect},
    {"epoll_pwait", Nop, kNoEffect},
    {"epoll_pwait2", Nop, kNoEffect},
    {"epoll_ctl", Nop, kNoEffect},
    {"wait4", Nop, kNoEffect},
    {"waitid", Nop, kNoEffect},
    {"kill", Nop, kNoEffect},
    {"tkill", Nop, kNoEffect},
    {"tgkill", Nop, kNoEffect},
    {"exit", Nop, kNoEffect},
    {"exit_group", Nop, kNoEffect},
    {"restart_syscall", Nop, kNoEffect},
    {"umask", Nop, kNoEffect},
    {"fstat", Nop, kNoEffect},
    {"fstat64", Nop, kNoEffect},
    {"fstatfs", Nop, kNoEffect},
    {"fstatfs64", Nop, kNoEffect},
    {"getdents", Nop, kNoEffect},
    {"getdents64", Nop, kNoEffect},
    {"fsync", Nop, kNoEffect},
    {"fdatasync", Nop, kNoEffect},
    {"sync", Nop, kNoEffect},
    {"syncfs", Nop, kNoEffect},
    {"fadvise64", Nop, kNoEffect},
    {"flock", Nop, kNoEffect},
    {"connect", Nop, kNoEffect},
    {"bind", Nop, kNoEffect},
    {"listen", Nop, kNoEffect},
    {"sendto", Nop, kNoEffect},
    {"recvfrom", Nop, kNoEffect},
    {"sendmsg", Nop, kNoEffect},
    {"recvmsg", Nop, kNoEffect},
    {"sendmmsg", Nop, kNoEffect},
    {"recvmmsg", Nop, kNoEffect},
    {"shutdown", Nop, kNoEffect},
    {"getsockname", Nop, kNoEffect},
    {"getpeername", Nop, kNoEffect},
    {"setsockopt", Nop, kNoEffect},
    {"getsockopt", Nop, kNoEffect},
    {"alarm", Nop, kNoEffect},
    {"pause", Nop, kNoEffect},
    {"capget", Nop, kNoEffect},
    {"capset", Nop, kNoEffect},
    {"prctl", Nop, kNoEffect},
    {"personality", Nop, kNoEffect},
    {"membarrier", Nop, kNoEffect},
    {"getpriority", Nop, kNoEffect},
    {"setpriority", Nop, kNoEffect},
    {"getcpu", Nop, kNoEffect},
    {"timer_create", Nop, kNoEffect},
    {"timer_settime", Nop, kNoEffect},
    {"timer_gettime", Nop, kNoEffect},
    {"timer_delete", Nop, kNoEffect},
    {"timer_getoverrun", Nop, kNoEffect},
    {"timerfd_settime", Nop, kNoEffect},
    {"timerfd_gettime", Nop, kNoEffect},
    {"setitimer", Nop, kNoEffect},
    {"getitimer", Nop, kNoEffect},
    {"sendfile", Nop, kNoEffect},
    {"splice", Nop, kNoEffect},
    {"tee", Nop, kNoEffect},
    {"copy_file_range", Nop, kNoEffect},
    {"sync_file_range", Nop, kNoEffect},
    {"inotify_add_watch", Nop, kNoEffect},
    {"inotify_rm_watch", Nop, kNoEffect},
    {"ioprio_get", Nop, kNoEffect},
    {"ioprio_set", Nop, kNoEffect},
    {"fgetxattr", Nop, kNoEffect},
    {"flistxattr", Nop, kNoEffect},
    {"pidfd_send_signal", Nop, kNoEffect},
    {"mbind", Nop, kNoEffect},
    {"get_mempolicy", Nop, kNoEffect},
    {"set_mempolicy", Nop, kNoEffect},
    {"io_uring_enter", Nop, kNoEffect},
    {"io_uring_register", Nop, kNoEffect},
};
#undef L

// The table as rows 1.. (row 0 stands for a call not in it), and its name dispatch.
struct Registry {
  std::vector<SyscallSpec> specs;
  std::vector<std::string_view> names;  // specs[i].name
  NameDispatch dispatch;
  Registry() {
    specs.push_back({"?", Nop, kNoEffect});
    for (const SyscallSpec& s : kTable) specs.push_back(s);
    for (const SyscallSpec& s : specs) names.push_back(s.name);
    dispatch.Build(names);
  }
};

const Registry& GetRegistry() {
  static const Registry* registry = new Registry();
  return *registry;
}

}  // namespace

uint64_t CloneFlags(std::string_view syscall, const strace::ArgList& args) {
  if (syscall == "clone") return strace::ParseFlags(args.Named("flags"), kCloneFlagNames);
  if (syscall == "clone3") {
    return strace::ParseFlags(strace::StructField(args[0], "flags"), kCloneFlagNames);
  }
  return 0;
}

std::vector<std::string_view> ModelledSyscalls() {
  std::vector<std::string_view> names;
  for (const SyscallSpec& s : kTable) {
    if (!(s.flags & kNoEffect) || (s.flags & kMayCarryMarker)) names.push_back(s.name);
  }
  return names;
}

const SyscallSpec* FindSyscall(std::string_view name) {
  const Registry& r = GetRegistry();
  const uint16_t i = r.dispatch.Find(name);
  return i == 0 ? nullptr : &r.specs[i];
}

bool CreatesProcess(std::string_view name) {
  const SyscallSpec* spec = FindSyscall(name);
  return spec != nullptr && (spec->flags & kCreatesProcess) != 0;
}

uint16_t FindSyscallIndex(std::string_view name) { return GetRegistry().dispatch.Find(name); }

const SyscallSpec* SyscallSpecAt(uint16_t index) {
  const Registry& r = GetRegistry();
  return index == 0 || index >= r.specs.size() ? nullptr : &r.specs[index];
}

uint16_t SyscallIndex(const SyscallSpec* spec) {
  const Registry& r = GetRegistry();
  return static_cast<uint16_t>(spec - r.specs.data());
}

std::string_view SyscallName(uint16_t index) {
  const Registry& r = GetRegistry();
  return index < r.specs.size() ? r.specs[index].name : "?";
}

bool ChangesMountTable(uint16_t index) {
  const SyscallSpec* spec = SyscallSpecAt(index);
  return spec != nullptr && (spec->flags & kMountTable) != 0;
}

bool IsLookupSyscall(uint16_t index) {
  const SyscallSpec* spec = SyscallSpecAt(index);
  return spec != nullptr && (spec->flags & kLookup) != 0;
}

bool IsMetadataSyscall(uint16_t index) {
  const SyscallSpec* spec = SyscallSpecAt(index);
  return spec != nullptr && (spec->flags & kMetadata) != 0;
}

// ---- Lowerer ----

size_t Lowerer::Lower(const SyscallSpec& spec, const strace::ArgList& args,
                      const strace::CallTail& tail) {
  args_ = &args;
  tail_ = &tail;
  failed_ = !tail.has_return || tail.return_unknown || tail.ret < 0 || !tail.errno_name.empty();
  count_ = 0;
  strings_used_ = 0;
  undecodable_ = 0;
  spec.lower(*this);
  return count_;
}

bool Lowerer::Str(size_t i, std::string_view* out) {
  if (strings_used_ >= strings_.size()) return false;
  std::string& slot = strings_[strings_used_];
  if (!strace::DecodeString((*args_)[i], &slot)) {
    // An address where strace prints the string when it can read the process's memory (a
    // NULL path, as in utimensat(fd, NULL, ...), is no string to read).
    if ((*args_)[i].starts_with("0x")) ++undecodable_;
    return false;
  }
  ++strings_used_;
  *out = slot;
  return true;
}

int Lowerer::Fd(size_t i) const {
  int64_t v = kAtFdcwd;
  if (!strace::ParseInt((*args_)[i], &v)) return kAtFdcwd;
  return static_cast<int>(v);
}

uint64_t Lowerer::Flags(size_t i, const strace::FlagName* names, size_t n) {
  const std::string_view token = (*args_)[i];
  FlagsSeen& seen = flags_seen_[(reinterpret_cast<uintptr_t>(names) >> 4) % flags_seen_.size()];
  if (seen.names != names || seen.token != token) {
    seen.names = names;
    seen.token.assign(token);
    seen.bits = strace::ParseFlags(token, names, n);
  }
  return seen.bits;
}

void Lowerer::HPath(int dirfd, std::string_view path, Effect e, bool follow, bool empty_path,
                    bool probe, bool listing) {
  Construct c = make::HPath(dirfd, path, failed_ ? Effect::kConsumed : e, follow);
  c.empty_path = empty_path;
  c.probe = probe;
  c.listing = listing && !failed_;
  if (count_ < out_.size()) out_[count_++] = c;
}

void Lowerer::NewFd(int dirfd, std::string_view path, int fd, bool cloexec, bool follow,
                    bool tmpfile) {
  Emit(make::NewFd(dirfd, path, fd, cloexec, follow, tmpfile));
}

void Lowerer::AnonFd(int fd, bool cloexec) { Emit(make::AnonFd(fd, cloexec)); }

void Lowerer::Emit(const Construct& c) {
  if (failed_ && c.op != Op::kHPath && c.op != Op::kHPathSym) return;
  if (count_ < out_.size()) out_[count_++] = c;
}

}  // namespace fsmove::fstrace
