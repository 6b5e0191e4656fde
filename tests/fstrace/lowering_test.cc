// Tests for the syscall table: its names are unique, its flags name the calls the trace
// parser asks about, and each row lowers a representative call to the constructs pinned here.
#include "fsmove/fstrace/lowering.h"

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fsmove/strace/args.h"
#include "fsmove/strace/strace_line.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::fstrace {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// One construct as text: its op, the effect of a path effect, and every field that differs
// from a default Construct (so a field a lowering starts to set shows up here).
std::string Describe(const Construct& c) {
  const Construct d;
  std::string s(OpName(c.op));
  if (c.op == Op::kHPath || c.op == Op::kHPathSym || c.effect != d.effect) {
    s += " " + std::string(EffectName(c.effect));
  }
  auto add = [&s](bool differs, const std::string& text) {
    if (differs) s += " " + text;
  };
  add(c.dirfd != d.dirfd, "dirfd=" + std::to_string(c.dirfd));
  add(!c.path.empty(), "path=" + std::string(c.path));
  add(c.dirfd2 != d.dirfd2, "dirfd2=" + std::to_string(c.dirfd2));
  add(!c.path2.empty(), "path2=" + std::string(c.path2));
  add(c.fd != d.fd, "fd=" + std::to_string(c.fd));
  add(c.fd2 != d.fd2, "fd2=" + std::to_string(c.fd2));
  add(c.cloexec, "cloexec");
  add(c.anonymous, "anonymous");
  add(c.empty_path, "empty_path");
  add(c.exchange, "exchange");
  add(c.unshare_fds, "unshare_fds");
  add(!c.follow, "nofollow");
  add(c.record_only, "record_only");
  add(c.tmpfile, "tmpfile");
  add(c.probe, "probe");
  add(c.listing, "listing");
  std::ostringstream flags;
  flags << "clone_flags=0x" << std::hex << c.clone_flags;
  add(c.clone_flags != d.clone_flags, flags.str());
  add(c.child != d.child, "child=" + std::to_string(c.child));
  return s;
}

// Every name the registry knows (the table and the reviewed no-effect calls), by index.
std::vector<std::string_view> RegisteredNames() {
  std::vector<std::string_view> names;
  for (uint16_t i = 1; SyscallSpecAt(i) != nullptr; ++i) names.push_back(SyscallName(i));
  return names;
}

TEST(SyscallTableTest, NamesAreUnique) {
  std::set<std::string_view> seen;
  for (std::string_view name : RegisteredNames()) {
    EXPECT_TRUE(seen.insert(name).second) << name << " is listed twice";
  }
  EXPECT_GT(seen.size(), 200u);
}

TEST(SyscallTableTest, EveryNameFindsItsOwnRow) {
  std::vector<std::string_view> names = RegisteredNames();
  for (size_t i = 0; i < names.size(); ++i) {
    const auto index = static_cast<uint16_t>(i + 1);
    EXPECT_EQ(FindSyscallIndex(names[i]), index) << names[i];
    EXPECT_EQ(FindSyscall(names[i]), SyscallSpecAt(index)) << names[i];
  }
  EXPECT_EQ(FindSyscall("no_such_call"), nullptr);
  EXPECT_EQ(FindSyscallIndex("no_such_call"), 0);
}

// The names whose row carries `flag`.
std::set<std::string_view> NamesWithFlag(uint16_t flag) {
  std::set<std::string_view> names;
  for (uint16_t i = 1; SyscallSpecAt(i) != nullptr; ++i) {
    if (SyscallSpecAt(i)->flags & flag) names.insert(SyscallName(i));
  }
  return names;
}

// trace/ asks the table these questions (CallAssembler, WrittenBytes): the flags must name
// exactly the calls the parser used to list by name.
TEST(SyscallTableTest, FlagsNameProcessCreationAndMarkerCalls) {
  EXPECT_THAT(NamesWithFlag(kCreatesProcess),
              UnorderedElementsAre("clone", "clone3", "fork", "vfork"));
  EXPECT_THAT(NamesWithFlag(kMayCarryMarker), UnorderedElementsAre("write", "writev"));
  EXPECT_THAT(NamesWithFlag(kMarkerInIovecs), UnorderedElementsAre("writev"));
  EXPECT_THAT(NamesWithFlag(kTeachesSymlink), UnorderedElementsAre("readlink", "readlinkat"));
  for (std::string_view name : {"clone", "clone3", "fork", "vfork"}) {
    EXPECT_TRUE(CreatesProcess(name)) << name;
  }
  for (std::string_view name : {"execve", "wait4", "clone4", "", "?"}) {
    EXPECT_FALSE(CreatesProcess(name)) << name;
  }
}

TEST(SyscallTableTest, ConsumeOnlyRowsAreLookups) {
  for (std::string_view name : NamesWithFlag(kConsumeOnly)) {
    EXPECT_TRUE(IsLookupSyscall(FindSyscallIndex(name))) << name;
  }
}

// The columns of one row agree: a call has one kind of path effect, and a reviewed no-effect
// row says nothing else of itself but where Puppet's markers are.
TEST(SyscallTableTest, FlagColumnsAgree) {
  EXPECT_THAT(NamesWithFlag(kLookup), ::testing::SizeIs(18));
  EXPECT_THAT(NamesWithFlag(kMetadata), ::testing::SizeIs(18));
  for (uint16_t i = 1; SyscallSpecAt(i) != nullptr; ++i) {
    const uint16_t flags = SyscallSpecAt(i)->flags;
    EXPECT_FALSE((flags & kLookup) && (flags & kMetadata)) << SyscallName(i);
    if (flags & kNoEffect) {
      EXPECT_EQ(flags & ~(kNoEffect | kMayCarryMarker | kMarkerInIovecs), 0) << SyscallName(i);
    }
  }
  EXPECT_TRUE(IsLookupSyscall(FindSyscallIndex("newfstatat")));
  EXPECT_TRUE(IsMetadataSyscall(FindSyscallIndex("fchownat")));
  EXPECT_FALSE(IsLookupSyscall(FindSyscallIndex("openat")));
  EXPECT_FALSE(IsMetadataSyscall(FindSyscallIndex("read")));
  // What a tracer records: the rows with an effect and the writes, never a reviewed no-effect
  // call such as read.
  std::vector<std::string_view> modelled = ModelledSyscalls();
  EXPECT_THAT(modelled, ::testing::Contains("writev"));
  EXPECT_THAT(modelled, ::testing::Contains("openat"));
  EXPECT_THAT(modelled, ::testing::Not(::testing::Contains("read")));
  EXPECT_THAT(modelled, ::testing::Not(::testing::Contains("fstat")));
}

struct LoweringCase {
  std::string_view line;  // one whole strace line, without a pid
  std::vector<std::string> constructs;
};

// A representative call of each modelled syscall (more for rows with branches: failed calls,
// flags that change the constructs) and what it lowers to.
const LoweringCase kLoweringCases[] = {
    {R"(open("/etc/hosts", O_RDONLY|O_CLOEXEC) = 3)",
     {"hpath consumed path=/etc/hosts", "newfd path=/etc/hosts fd=3 cloexec"}},
    {R"(open("/etc/motd", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4)",
     {"hpath produced path=/etc/motd", "newfd path=/etc/motd fd=4"}},
    {R"(open("/nonexistent", O_RDONLY) = -1 ENOENT (No such file or directory))",
     {"hpath consumed path=/nonexistent"}},
    {R"(openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3)",
     {"hpath consumed path=/etc/ld.so.cache", "newfd path=/etc/ld.so.cache fd=3 cloexec"}},
    {R"(openat(AT_FDCWD, "/usr/share/zoneinfo", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 5)",
     {"hpath consumed path=/usr/share/zoneinfo listing",
      "newfd path=/usr/share/zoneinfo fd=5 cloexec"}},
    {R"(openat(AT_FDCWD, "/etc/alternatives/ruby", O_RDONLY|O_PATH|O_NOFOLLOW) = 6)",
     {"hpathsym consumed path=/etc/alternatives/ruby probe",
      "newfd path=/etc/alternatives/ruby fd=6 nofollow"}},
    {R"(openat(AT_FDCWD, "/tmp/new", O_WRONLY|O_CREAT|O_EXCL, 0600) = 7)",
     {"hpathsym produced path=/tmp/new", "newfd path=/tmp/new fd=7 nofollow"}},
    {R"(openat(AT_FDCWD, "/var/tmp", O_RDWR|O_TMPFILE, 0600) = 8)",
     {"hpath consumed path=/var/tmp", "newfd path=/var/tmp fd=8 tmpfile"}},
    {R"(openat(3, "conf.d", O_RDONLY|O_DIRECTORY) = 9)",
     {"hpath consumed dirfd=3 path=conf.d listing", "newfd dirfd=3 path=conf.d fd=9"}},
    {R"(openat2(AT_FDCWD, "/etc/passwd", {flags=O_RDONLY|O_CLOEXEC, mode=0, resolve=0}, 24) = 3)",
     {"hpath consumed path=/etc/passwd", "newfd path=/etc/passwd fd=3 cloexec"}},
    {R"(creat("/tmp/out", 0644) = 3)",
     {"hpath produced path=/tmp/out", "newfd path=/tmp/out fd=3"}},
    {R"(stat("/etc/puppet", {st_mode=S_IFDIR|0755, st_size=4096, ...}) = 0)",
     {"hpath consumed path=/etc/puppet"}},
    {R"(stat64("/etc/puppet", {st_mode=S_IFDIR|0755, st_size=4096, ...}) = 0)",
     {"hpath consumed path=/etc/puppet"}},
    {R"(lstat("/usr/bin/ruby", {st_mode=S_IFLNK|0777, st_size=7, ...}) = 0)",
     {"hpathsym consumed path=/usr/bin/ruby"}},
    {R"(lstat64("/usr/bin/ruby", {st_mode=S_IFLNK|0777, st_size=7, ...}) = 0)",
     {"hpathsym consumed path=/usr/bin/ruby"}},
    {R"(newfstatat(AT_FDCWD, "/etc/hosts", {st_mode=S_IFREG|0644, st_size=186, ...}, 0) = 0)",
     {"hpath consumed path=/etc/hosts"}},
    {R"(newfstatat(AT_FDCWD, "/usr/bin/ruby", {st_mode=S_IFLNK|0777, st_size=7, ...}, AT_SYMLINK_NOFOLLOW) = 0)",
     {"hpathsym consumed path=/usr/bin/ruby"}},
    {R"(newfstatat(3, "", {st_mode=S_IFREG|0644, st_size=186, ...}, AT_EMPTY_PATH) = 0)",
     {"hpath consumed dirfd=3 empty_path"}},
    {R"(fstatat64(AT_FDCWD, "/etc/hosts", {st_mode=S_IFREG|0644, st_size=186, ...}, 0) = 0)",
     {"hpath consumed path=/etc/hosts"}},
    {R"(statx(AT_FDCWD, "/etc/hosts", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, STATX_ALL, {stx_mask=STATX_ALL, ...}) = 0)",
     {"hpathsym consumed path=/etc/hosts"}},
    {R"(access("/etc/ld.so.preload", R_OK) = -1 ENOENT (No such file or directory))",
     {"hpath consumed path=/etc/ld.so.preload"}},
    {R"(faccessat(AT_FDCWD, "/usr/bin/systemctl", X_OK) = 0)",
     {"hpath consumed path=/usr/bin/systemctl"}},
    {R"(faccessat2(AT_FDCWD, "/usr/bin/dpkg", X_OK, AT_EACCESS) = 0)",
     {"hpath consumed path=/usr/bin/dpkg"}},
    {R"(statfs("/sys/fs/selinux", 0x7ffc9d8f0e80) = -1 ENOENT (No such file or directory))",
     {"hpath consumed path=/sys/fs/selinux"}},
    {R"(statfs64("/", {f_type=EXT2_SUPER_MAGIC, ...}) = 0)", {"hpath consumed path=/"}},
    {R"(getxattr("/etc/hosts", "security.selinux", 0x55d0, 255) = -1 ENODATA (No data available))",
     {"hpath consumed path=/etc/hosts"}},
    {R"(lgetxattr("/etc/hosts", "security.selinux", 0x55d0, 255) = -1 ENODATA (No data available))",
     {"hpathsym consumed path=/etc/hosts"}},
    {R"(listxattr("/etc/hosts", NULL, 0) = 0)", {"hpath consumed path=/etc/hosts"}},
    {R"(llistxattr("/etc/hosts", NULL, 0) = 0)", {"hpathsym consumed path=/etc/hosts"}},
    {R"(readlink("/etc/alternatives/ruby", "/usr/bin/ruby3.1", 4095) = 16)",
     {"hpathsym consumed path=/etc/alternatives/ruby",
      "learnsymlink path=/etc/alternatives/ruby path2=/usr/bin/ruby3.1"}},
    {R"(readlink("/etc/hosts", 0x7ffd5a3c7e30, 4095) = -1 EINVAL (Invalid argument))",
     {"hpathsym consumed path=/etc/hosts"}},
    {R"(readlinkat(AT_FDCWD, "/proc/self/exe", "/usr/bin/ruby3.1", 4096) = 16)",
     {"hpathsym consumed path=/proc/self/exe",
      "learnsymlink path=/proc/self/exe path2=/usr/bin/ruby3.1"}},
    {R"(chmod("/etc/motd", 0644) = 0)", {"hpath produced path=/etc/motd"}},
    {R"(fchmod(3, 0600) = 0)", {"hpath produced dirfd=3 empty_path"}},
    {R"(fchmodat(AT_FDCWD, "/etc/motd", 0644) = 0)", {"hpath produced path=/etc/motd"}},
    {R"(fchmodat2(AT_FDCWD, "/etc/motd", 0644, AT_SYMLINK_NOFOLLOW) = 0)",
     {"hpathsym produced path=/etc/motd"}},
    {R"(chown("/etc/motd", 0, 0) = 0)", {"hpath produced path=/etc/motd"}},
    {R"(lchown("/etc/motd", 0, 0) = 0)", {"hpathsym produced path=/etc/motd"}},
    {R"(fchown(3, 0, 0) = 0)", {"hpath produced dirfd=3 empty_path"}},
    {R"(fchownat(AT_FDCWD, "/etc/motd", 0, 0, AT_SYMLINK_NOFOLLOW) = 0)",
     {"hpathsym produced path=/etc/motd"}},
    {R"(truncate("/var/log/app.log", 0) = 0)", {"hpath produced path=/var/log/app.log"}},
    {R"(ftruncate(5, 0) = 0)", {"hpath produced dirfd=5 empty_path"}},
    {R"(fallocate(5, 0, 0, 4096) = 0)", {"hpath produced dirfd=5 empty_path"}},
    {R"(utime("/etc/motd", NULL) = 0)", {"hpath produced path=/etc/motd"}},
    {R"(utimes("/etc/motd", [{tv_sec=1, tv_usec=0}, {tv_sec=1, tv_usec=0}]) = 0)",
     {"hpath produced path=/etc/motd"}},
    {R"(futimesat(AT_FDCWD, "/etc/motd", NULL) = 0)", {"hpath produced path=/etc/motd"}},
    {R"(utimensat(AT_FDCWD, "/etc/motd", [UTIME_NOW, UTIME_NOW], 0) = 0)",
     {"hpath produced path=/etc/motd"}},
    {R"(utimensat(AT_FDCWD, "/etc/motd", NULL, AT_SYMLINK_NOFOLLOW) = 0)",
     {"hpathsym produced path=/etc/motd"}},
    {R"(utimensat(4, NULL, [UTIME_NOW, UTIME_NOW], 0) = 0)", {"hpath produced dirfd=4 empty_path"}},
    {R"(setxattr("/etc/motd", "user.x", "1", 1, 0) = 0)", {"hpath produced path=/etc/motd"}},
    {R"(lsetxattr("/etc/motd", "user.x", "1", 1, 0) = 0)", {"hpathsym produced path=/etc/motd"}},
    {R"(fsetxattr(3, "user.x", "1", 1, 0) = 0)", {"hpath produced dirfd=3 empty_path"}},
    {R"(removexattr("/etc/motd", "user.x") = 0)", {"hpath produced path=/etc/motd"}},
    {R"(lremovexattr("/etc/motd", "user.x") = 0)", {"hpathsym produced path=/etc/motd"}},
    {R"(fremovexattr(3, "user.x") = 0)", {"hpath produced dirfd=3 empty_path"}},
    {R"(mkdir("/etc/app", 0755) = 0)", {"hpathsym produced path=/etc/app"}},
    {R"(mkdir("/etc/app", 0755) = -1 EEXIST (File exists))", {"hpathsym consumed path=/etc/app"}},
    {R"(mkdirat(AT_FDCWD, "/etc/app", 0755) = 0)", {"hpathsym produced path=/etc/app"}},
    {R"(mknod("/dev/null2", S_IFCHR|0666, makedev(0x1, 0x3)) = 0)",
     {"hpathsym produced path=/dev/null2"}},
    {R"(mknodat(AT_FDCWD, "/run/fifo", S_IFIFO|0600) = 0)", {"hpathsym produced path=/run/fifo"}},
    {R"(rmdir("/etc/app") = 0)", {"hpathsym expunged path=/etc/app"}},
    {R"(unlink("/etc/motd") = 0)", {"hpathsym expunged path=/etc/motd"}},
    {R"(unlinkat(AT_FDCWD, "/etc/app", AT_REMOVEDIR) = 0)", {"hpathsym expunged path=/etc/app"}},
    {R"(unlinkat(5, "old.conf", 0) = 0)", {"hpathsym expunged dirfd=5 path=old.conf"}},
    {R"(rename("/etc/motd.tmp", "/etc/motd") = 0)",
     {"hpathsym expunged path=/etc/motd.tmp record_only",
      "hpathsym produced path=/etc/motd record_only", "rename path=/etc/motd.tmp path2=/etc/motd"}},
    {R"(rename("/etc/motd.tmp", "/etc/motd") = -1 ENOENT (No such file or directory))",
     {"hpathsym consumed path=/etc/motd.tmp", "hpathsym consumed path=/etc/motd"}},
    {R"(renameat(AT_FDCWD, "/etc/a.tmp", AT_FDCWD, "/etc/a") = 0)",
     {"hpathsym expunged path=/etc/a.tmp record_only", "hpathsym produced path=/etc/a record_only",
      "rename path=/etc/a.tmp path2=/etc/a"}},
    {R"(renameat2(AT_FDCWD, "/etc/a", AT_FDCWD, "/etc/b", RENAME_EXCHANGE) = 0)",
     {"hpathsym produced path=/etc/a record_only", "hpathsym produced path=/etc/b record_only",
      "rename path=/etc/a path2=/etc/b exchange"}},
    {R"(renameat2(AT_FDCWD, "/etc/a", AT_FDCWD, "/etc/b", RENAME_NOREPLACE) = 0)",
     {"hpathsym expunged path=/etc/a record_only", "hpathsym produced path=/etc/b record_only",
      "rename path=/etc/a path2=/etc/b"}},
    {R"(link("/etc/a", "/etc/b") = 0)",
     {"hpathsym consumed path=/etc/a", "hpathsym produced path=/etc/b record_only",
      "link path=/etc/a path2=/etc/b nofollow"}},
    {R"(link("/etc/a", "/etc/b") = -1 EEXIST (File exists))",
     {"hpathsym consumed path=/etc/a", "hpathsym consumed path=/etc/b"}},
    {R"(linkat(AT_FDCWD, "/etc/a", AT_FDCWD, "/etc/b", AT_SYMLINK_FOLLOW) = 0)",
     {"hpath consumed path=/etc/a", "hpathsym produced path=/etc/b record_only",
      "link path=/etc/a path2=/etc/b"}},
    {R"(linkat(8, "", AT_FDCWD, "/var/tmp/named", AT_EMPTY_PATH) = 0)",
     {"hpathsym consumed dirfd=8 empty_path", "hpathsym produced path=/var/tmp/named record_only",
      "link dirfd=8 path2=/var/tmp/named empty_path nofollow"}},
    {R"(symlink("/usr/bin/ruby3.1", "/etc/alternatives/ruby") = 0)",
     {"hpathsym produced path=/etc/alternatives/ruby record_only",
      "symlink path=/usr/bin/ruby3.1 path2=/etc/alternatives/ruby"}},
    {R"(symlink("/usr/bin/ruby3.1", "/etc/alternatives/ruby") = -1 EEXIST (File exists))",
     {"hpathsym consumed path=/etc/alternatives/ruby"}},
    {R"(symlinkat("../lib/x", AT_FDCWD, "/usr/bin/x") = 0)",
     {"hpathsym produced path=/usr/bin/x record_only", "symlink path=../lib/x path2=/usr/bin/x"}},
    {R"(mount("tmpfs", "/mnt/t", "tmpfs", 0, NULL) = 0)", {"hpath produced path=/mnt/t"}},
    {R"(mount("/srv/a", "/mnt/a", NULL, MS_BIND|MS_REC, NULL) = 0)",
     {"hpath produced path=/mnt/a"}},
    {R"(mount(NULL, "/", NULL, MS_REC|MS_SLAVE, NULL) = 0)", {}},
    {R"(mount(NULL, "/mnt/a", NULL, MS_REMOUNT|MS_BIND|MS_RDONLY, NULL) = 0)", {}},
    {R"(mount(NULL, "/run", NULL, MS_SHARED, NULL) = 0)", {}},
    {R"(umount2("/mnt/t", 0) = 0)", {"hpath produced path=/mnt/t"}},
    {R"(chdir("/etc/puppet") = 0)", {"hpath consumed path=/etc/puppet", "setcwd path=/etc/puppet"}},
    {R"(chdir("/nonexistent") = -1 ENOENT (No such file or directory))",
     {"hpath consumed path=/nonexistent"}},
    {R"(fchdir(5) = 0)", {"setcwd dirfd=5 empty_path"}},
    {R"(getcwd("/root", 4096) = 6)", {"setcwd path=/root"}},
    {R"(getcwd("(unreachable)/", 4096) = 15)", {}},
    {R"(chroot("/srv/jail") = 0)", {"hpath consumed path=/srv/jail", "setroot path=/srv/jail"}},
    {R"(close(3) = 0)", {"delfd fd=3"}},
    {R"(close(3) = -1 EBADF (Bad file descriptor))", {}},
    {R"(close_range(3, 4294967295, 0) = 0)", {"closerange fd=3 fd2=2147483647"}},
    {R"(close_range(3, 10, CLOSE_RANGE_CLOEXEC) = 0)", {"closerange fd=3 fd2=10 cloexec"}},
    {R"(close_range(3, ~0U, CLOSE_RANGE_UNSHARE) = 0)",
     {"closerange fd=3 fd2=2147483647 unshare_fds"}},
    {R"(dup(3) = 4)", {"dupfd fd=3 fd2=4"}},
    {R"(dup2(4, 1) = 1)", {"dupfd fd=4 fd2=1"}},
    {R"(dup3(4, 1, O_CLOEXEC) = 1)", {"dupfd fd=4 fd2=1 cloexec"}},
    {R"(fcntl(3, F_DUPFD_CLOEXEC, 10) = 10)", {"dupfd fd=3 fd2=10 cloexec"}},
    {R"(fcntl(3, F_DUPFD, 10) = 11)", {"dupfd fd=3 fd2=11"}},
    {R"(fcntl(3, F_SETFD, FD_CLOEXEC) = 0)", {"setcloexec fd=3 cloexec"}},
    {R"(fcntl(3, F_SETFD, 0) = 0)", {"setcloexec fd=3"}},
    {R"(fcntl(3, F_GETFL) = 0x8000 (flags O_RDONLY|O_LARGEFILE))", {}},
    {R"(pipe([3, 4]) = 0)", {"newfd fd=3 anonymous", "newfd fd=4 anonymous"}},
    {R"(pipe2([5, 6], O_CLOEXEC) = 0)", {"newfd fd=5 anonymous", "newfd fd=6 anonymous"}},
    {R"(socketpair(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0, [7, 8]) = 0)",
     {"newfd fd=7 anonymous", "newfd fd=8 anonymous"}},
    {R"(socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, 0) = 3)", {"newfd fd=3 anonymous"}},
    {R"(accept(3, NULL, NULL) = 4)", {"newfd fd=4 anonymous"}},
    {R"(accept4(3, NULL, NULL, SOCK_CLOEXEC) = 5)", {"newfd fd=5 anonymous"}},
    {R"(epoll_create(1) = 6)", {"newfd fd=6 anonymous"}},
    {R"(epoll_create1(EPOLL_CLOEXEC) = 7)", {"newfd fd=7 anonymous"}},
    {R"(eventfd(0) = 8)", {"newfd fd=8 anonymous"}},
    {R"(eventfd2(0, EFD_CLOEXEC|EFD_NONBLOCK) = 9)", {"newfd fd=9 anonymous"}},
    {R"(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC) = 10)", {"newfd fd=10 anonymous"}},
    {R"(signalfd(-1, [CHLD], 8) = 11)", {"newfd fd=11 anonymous"}},
    {R"(signalfd4(-1, [CHLD], 8, SFD_CLOEXEC) = 12)", {"newfd fd=12 anonymous"}},
    {R"(inotify_init() = 13)", {"newfd fd=13 anonymous"}},
    {R"(inotify_init1(IN_CLOEXEC) = 14)", {"newfd fd=14 anonymous"}},
    {R"(memfd_create("ruby", MFD_CLOEXEC) = 15)", {"newfd fd=15 anonymous"}},
    {R"(pidfd_open(1234, 0) = 16)", {"newfd fd=16 anonymous"}},
    {R"(pidfd_getfd(16, 3, 0) = 17)", {"newfd fd=17 anonymous"}},
    {R"(userfaultfd(O_CLOEXEC) = 18)", {"newfd fd=18 anonymous"}},
    {R"(fanotify_init(FAN_CLASS_NOTIF, O_RDONLY) = 19)", {"newfd fd=19 anonymous"}},
    {R"(perf_event_open({type=PERF_TYPE_HARDWARE, size=0x80, ...}, 0, -1, -1, 0) = 20)",
     {"newfd fd=20 anonymous"}},
    {R"(io_uring_setup(8, {flags=0, ...}) = 21)", {"newfd fd=21 anonymous"}},
    {R"(io_uring_setup(8, {flags=0, ...}) = -1 ENOSYS (Function not implemented))", {}},
    {R"(clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f1c) = 4242)",
     {"newproc child=4242"}},
    {R"(clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=[4243], tls=0x7f01, child_tidptr=0x7f02) = 4243)",
     {"newproc clone_flags=0x10f00 child=4243"}},
    {R"(clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f03, parent_tid=0x7f03, exit_signal=0, stack=0x7f00, stack_size=0x7fff00, tls=0x7f04} => {parent_tid=[4244]}, 88) = 4244)",
     {"newproc clone_flags=0x10f00 child=4244"}},
    {R"(clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f00, stack_size=0x9000}, 88) = -1 ENOSYS (Function not implemented))",
     {}},
    {R"(fork() = 4245)", {"newproc child=4245"}},
    {R"(vfork() = 4246)", {"newproc child=4246"}},
    {R"(execve("/usr/bin/systemctl", ["systemctl", "restart", "nginx"], 0x7ffd /* 20 vars */) = 0)",
     {"hpath consumed path=/usr/bin/systemctl",
      "exec path=/usr/bin/systemctl path2=[\"systemctl\", \"restart\", \"nginx\"]"}},
    {R"(execve("/usr/local/bin/dpkg", ["dpkg", "-l"], 0x7ffd /* 20 vars */) = -1 ENOENT (No such file or directory))",
     {"hpath consumed path=/usr/local/bin/dpkg"}},
    {R"(execveat(3, "", ["sh"], 0x7ffd /* 20 vars */, AT_EMPTY_PATH) = 0)",
     {"hpath consumed dirfd=3 empty_path", "exec path2=[\"sh\"]"}},
    {R"(execveat(AT_FDCWD, "/bin/sh", ["sh"], 0x7ffd /* 20 vars */, 0) = 0)",
     {"hpath consumed path=/bin/sh", "exec path=/bin/sh path2=[\"sh\"]"}},
    {R"(unshare(CLONE_FILES|CLONE_FS) = 0)", {"unshare clone_flags=0x600"}},
    {R"(unshare(CLONE_NEWNS) = 0)", {"unshare clone_flags=0x20000"}},
    {R"(write(1, "\33[0;32mInfo: /Stage[main]/Main/File[/x]: Evaluated in 0.01 seconds\33[0m\n", 73) = 73)",
     {}},
    {R"(writev(1, [{iov_base="Info: a", iov_len=7}, {iov_base="\n", iov_len=1}], 2) = 8)", {}},
};

std::vector<std::string> LowerLine(Lowerer& lowerer, std::string_view line) {
  strace::LineHead head = strace::ParseLineHead(line);
  const SyscallSpec* spec = FindSyscall(head.name);
  strace::CallTail tail;
  if (spec == nullptr || !strace::ParseCallTail(head.rest, &tail)) {
    ADD_FAILURE() << "not a modelled call: " << line;
    return {};
  }
  strace::ArgList args(tail.args);
  size_t n = lowerer.Lower(*spec, args, tail);
  EXPECT_EQ(lowerer.undecodable_paths(), 0u) << line;
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(Describe(lowerer.construct(i)));
  return out;
}

// strace prints a path's address where it cannot read the process's memory (a process that
// changed its user is not dumpable): the call is not analysed, and counted so that the summary
// says so. A NULL path is none to read.
TEST(SyscallTableTest, PathsPrintedAsAddressesAreCountedNullIsNot) {
  Lowerer lowerer;
  const std::pair<std::string_view, uint32_t> cases[] = {
      {R"(openat(AT_FDCWD, 0x7efcd6a08be1, O_RDONLY|O_CLOEXEC) = 5)", 1},
      {R"(execve(0x7efcd29de778, 0x55ff0deb2c48, 0x55ff0bafca80) = 0)", 2},  // path, argv
      {R"(rename(0x7efcd6a08be1, 0x7efcd6a08bf0) = 0)", 1},
      {R"(utimensat(5, NULL, NULL, 0) = 0)", 0},
  };
  for (const auto& [line, want] : cases) {
    strace::LineHead head = strace::ParseLineHead(line);
    const SyscallSpec* spec = FindSyscall(head.name);
    strace::CallTail tail;
    ASSERT_TRUE(spec != nullptr && strace::ParseCallTail(head.rest, &tail)) << line;
    strace::ArgList args(tail.args);
    lowerer.Lower(*spec, args, tail);
    EXPECT_EQ(lowerer.undecodable_paths(), want) << line;
  }
}

TEST(SyscallTableTest, EachRowLowersToItsConstructs) {
  Lowerer lowerer;
  for (const LoweringCase& c : kLoweringCases) {
    EXPECT_EQ(LowerLine(lowerer, c.line), c.constructs) << c.line;
  }
}

TEST(SyscallTableTest, EveryModelledSyscallHasALoweringCase) {
  std::set<std::string_view> covered;
  for (const LoweringCase& c : kLoweringCases) covered.insert(strace::ParseLineHead(c.line).name);
  for (std::string_view name : ModelledSyscalls()) {
    EXPECT_TRUE(covered.contains(name)) << name << " has no case in kLoweringCases";
  }
}

// Failed calls keep their path effects, as consumption, and drop every state change.
TEST(SyscallTableTest, FailedCallsOnlyConsume) {
  Lowerer lowerer;
  EXPECT_THAT(LowerLine(lowerer, R"(openat(AT_FDCWD, "/etc/x", O_WRONLY|O_CREAT, 0644) = ?)"),
              ElementsAre("hpath consumed path=/etc/x"));
  EXPECT_TRUE(lowerer.failed());
}

}  // namespace
}  // namespace fsmove::fstrace
