// Interpreter semantics, each scenario a few strace lines through the real pipeline:
// inode-accurate resolution, fd/cwd sharing, close-on-exec, renames, links, symlinks,
// failed calls and the charging of processes to resource blocks.
#include "fsmove/analysis/interpreter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace_harness.h"

namespace fsmove::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

const std::string kE = "Exec[e]";

// The paper's motivating example (section 3.1): a directory opened, then renamed; a
// lookup relative to its fd must land under the new name.
TEST(InterpreterTest, PaperPerlRenameOfOpenDirectory) {
  Harness h({Begin(100, kE), "100 open(\"/usr/lib/perl5\", O_RDONLY|O_DIRECTORY) = 3",
             "100 rename(\"/usr/lib/perl5\", \"/usr/lib/perl\") = 0",
             "100 openat(3, \"5.26/Socket6.pm\", O_RDONLY) = 4", End(100, kE)});
  EXPECT_THAT(h.At("/usr/lib/perl/5.26/Socket6.pm"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/usr/lib/perl5/5.26/Socket6.pm"), IsEmpty());
  EXPECT_THAT(h.At("/usr/lib/perl5"),
              UnorderedElementsAre(Pair(kE, "consumed"), Pair(kE, "expunged")));
  EXPECT_THAT(h.At("/usr/lib/perl"), UnorderedElementsAre(Pair(kE, "produced")));
}

TEST(InterpreterTest, RenamingADirectoryMovesItsSubtree) {
  Harness h({Begin(100, kE), "100 mkdir(\"/srv/a\", 0755) = 0",
             "100 openat(AT_FDCWD, \"/srv/a/f\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3",
             "100 rename(\"/srv/a\", \"/srv/b\") = 0", "100 fchmod(3, 0600) = 0", End(100, kE)});
  EXPECT_THAT(h.At("/srv/b/f"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/srv/a/f"), UnorderedElementsAre(Pair(kE, "produced")));
}

TEST(InterpreterTest, CloneFilesSharesTheFdTable) {
  Harness shared({Begin(100, kE),
                  "100 clone(child_stack=0x7f, flags=CLONE_VM|CLONE_FILES|SIGCHLD) = 200",
                  "200 open(\"/etc/app\", O_RDONLY|O_DIRECTORY) = 5",
                  "100 openat(5, \"conf\", O_RDONLY) = 6", End(100, kE)});
  EXPECT_THAT(shared.At("/etc/app/conf"), UnorderedElementsAre(Pair(kE, "consumed")));

  Harness copied({Begin(100, kE), "100 clone(child_stack=0x7f, flags=CLONE_VM|SIGCHLD) = 200",
                  "200 open(\"/etc/app\", O_RDONLY|O_DIRECTORY) = 5",
                  "100 openat(5, \"conf\", O_RDONLY) = 6", End(100, kE)});
  EXPECT_THAT(copied.At("/etc/app/conf"), IsEmpty());
  EXPECT_EQ(copied.analyzer.interpreter().stats().unresolved_dirfd, 1u);
}

TEST(InterpreterTest, ChildCopiesParentFdsAtCloneTime) {
  Harness h({Begin(100, kE), "100 open(\"/data\", O_RDONLY|O_DIRECTORY) = 4",
             "100 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD) = 200",
             "100 close(4) = 0", "200 openat(4, \"x\", O_RDONLY) = 5", End(100, kE)});
  EXPECT_THAT(h.At("/data/x"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, CloneFsSharesTheWorkingDirectory) {
  Harness shared({Begin(100, kE), "100 chdir(\"/\") = 0",
                  "100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, "
                  "exit_signal=0, stack=0x7f, stack_size=0x1000} => {parent_tid=[201]}, 88) = 201",
                  "201 chdir(\"/var/lib\") = 0", "100 open(\"app.db\", O_RDONLY) = 3",
                  End(100, kE)});
  EXPECT_THAT(shared.At("/var/lib/app.db"), UnorderedElementsAre(Pair(kE, "consumed")));

  Harness copied({Begin(100, kE), "100 chdir(\"/\") = 0",
                  "100 clone(child_stack=NULL, flags=SIGCHLD) = 201", "201 chdir(\"/var/lib\") = 0",
                  "100 open(\"app.db\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(copied.At("/app.db"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, ExecClosesCloseOnExecDescriptors) {
  Harness h({Begin(100, kE), "100 open(\"/a\", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 3",
             "100 open(\"/b\", O_RDONLY|O_DIRECTORY) = 4", "100 fcntl(4, F_DUPFD_CLOEXEC, 10) = 10",
             "100 execve(\"/bin/sh\", [\"sh\"], 0x7ffd /* 5 vars */) = 0",
             "100 openat(3, \"x\", O_RDONLY) = -1 EBADF (Bad file descriptor)",
             "100 openat(4, \"y\", O_RDONLY) = 5", "100 openat(10, \"z\", O_RDONLY) = 6",
             End(100, kE)});
  EXPECT_THAT(h.At("/a/x"), IsEmpty());
  EXPECT_THAT(h.At("/b/y"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/b/z"), IsEmpty());
  // Merged /usr (the default): /bin is usr/bin.
  EXPECT_THAT(h.At("/usr/bin/sh"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, RootSymlinksThatExistedBeforeTheTrace) {
  // A package writes /usr/bin/tool; a later exec runs it as /bin/tool.
  const std::vector<std::string> lines = {
      Begin(100, "Package[tool]"),
      "100 openat(AT_FDCWD, \"/usr/bin/tool.dpkg-new\", O_WRONLY|O_CREAT|O_EXCL, 0755) = 3",
      "100 rename(\"/usr/bin/tool.dpkg-new\", \"/usr/bin/tool\") = 0",
      End(100, "Package[tool]"),
      Begin(100, kE),
      "100 execve(\"/bin/tool\", [\"tool\"], 0x7ffd /* 5 vars */) = 0",
      End(100, kE)};
  Harness merged(lines);
  EXPECT_THAT(merged.At("/usr/bin/tool"), ::testing::Contains(Pair(kE, "consumed")));
  EXPECT_THAT(merged.Pairs(analysis::RelationKind::kOrdering),
              ::testing::Contains(Pair("Package[tool]", kE)));
  // Before merged /usr (analyze --no-merged-usr): /bin/tool is another file.
  analysis::AnalyzerOptions split;
  split.interpreter.root_symlinks.clear();
  Harness own(lines, split);
  EXPECT_THAT(own.At("/bin/tool"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(own.Pairs(analysis::RelationKind::kOrdering), IsEmpty());
  // The trace replacing a link overrides what was assumed.
  Harness replaced({Begin(100, kE), "100 unlink(\"/bin\") = 0", "100 mkdir(\"/bin\", 0755) = 0",
                    "100 execve(\"/bin/tool\", [\"tool\"], NULL) = 0", End(100, kE)});
  EXPECT_THAT(replaced.At("/bin/tool"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, FcntlSetfdMarksCloseOnExec) {
  Harness h({Begin(100, kE), "100 open(\"/a\", O_RDONLY|O_DIRECTORY) = 3",
             "100 fcntl(3, F_SETFD, FD_CLOEXEC) = 0", "100 execve(\"/bin/true\", [], NULL) = 0",
             "100 openat(3, \"x\", O_RDONLY) = 4", End(100, kE)});
  EXPECT_THAT(h.At("/a/x"), IsEmpty());
}

TEST(InterpreterTest, DupAndDup2CarryTheInode) {
  Harness h({Begin(100, kE), "100 open(\"/d\", O_RDONLY|O_DIRECTORY) = 3", "100 dup2(3, 7) = 7",
             "100 dup(7) = 8", "100 close(3) = 0", "100 openat(7, \"f\", O_RDONLY) = 4",
             "100 openat(8, \"g\", O_RDONLY) = 5", End(100, kE)});
  EXPECT_THAT(h.At("/d/f"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/d/g"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, UnlinkOfAnOpenFileKeepsItForItsDescriptor) {
  Harness h({Begin(100, kE), "100 open(\"/tmp/f\", O_WRONLY|O_CREAT, 0600) = 3",
             "100 unlink(\"/tmp/f\") = 0", "100 open(\"/tmp/f\", O_WRONLY|O_CREAT, 0600) = 4",
             "100 fchmod(3, 0644) = 0", "100 fchmod(4, 0644) = 0", End(100, kE)});
  // fchmod(3) touches the deleted inode: it has no name and must not be charged to /tmp/f.
  EXPECT_EQ(h.analyzer.interpreter().stats().unnamed_paths, 1u);
  EXPECT_THAT(h.At("/tmp/f"), UnorderedElementsAre(Pair(kE, "produced"), Pair(kE, "expunged")));
}

TEST(InterpreterTest, RelativeSymlinkTargetsResolveAgainstTheLinkDirectory) {
  Harness h({Begin(100, kE), "100 symlink(\"../lib/tool\", \"/usr/bin/tool\") = 0",
             "100 open(\"/usr/bin/tool\", O_RDONLY) = 3",
             "100 lstat(\"/usr/bin/tool\", {st_mode=S_IFLNK|0777, st_size=11, ...}) = 0",
             End(100, kE)});
  EXPECT_THAT(h.At("/usr/lib/tool"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/usr/bin/tool"),
              UnorderedElementsAre(Pair(kE, "produced"), Pair(kE, "consumed")));
}

TEST(InterpreterTest, SymlinksInTheMiddleOfAPathAreFollowed) {
  Harness h({Begin(100, kE), "100 symlink(\"/real\", \"/link\") = 0",
             "100 mkdir(\"/link/d\", 0755) = 0", "100 open(\"/link/d/../f\", O_RDONLY) = 3",
             End(100, kE)});
  EXPECT_THAT(h.At("/real/d"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/real/f"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, SymlinkLoopsStop) {
  Harness h({Begin(100, kE), "100 symlink(\"/b\", \"/a\") = 0", "100 symlink(\"/a\", \"/b\") = 0",
             "100 open(\"/a/x\", O_RDONLY) = -1 ELOOP (Too many levels of symbolic links)",
             End(100, kE)});
  EXPECT_EQ(h.analyzer.interpreter().stats().symlink_loops, 1u);
}

TEST(InterpreterTest, DotDotAndWorkingDirectories) {
  Harness h({Begin(100, kE), "100 chdir(\"/a/b\") = 0", "100 open(\"../c\", O_RDONLY) = 3",
             "100 open(\"/../../etc/./x\", O_RDONLY) = 4",
             "100 open(\"/srv\", O_RDONLY|O_DIRECTORY) = 5", "100 fchdir(5) = 0",
             "100 mkdir(\"sub\", 0755) = 0", End(100, kE)});
  EXPECT_THAT(h.At("/a/c"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/etc/x"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/srv/sub"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/srv"), UnorderedElementsAre(Pair(kE, "consumed")));  // mkdir needs it
}

TEST(InterpreterTest, UnknownInitialWorkingDirectoryIsNotGuessed) {
  Harness unknown({Begin(100, kE), "100 open(\"rel.txt\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(unknown.Paths(), IsEmpty());
  EXPECT_EQ(unknown.analyzer.interpreter().stats().unnamed_paths, 1u);

  analysis::AnalyzerOptions options;
  options.interpreter.initial_cwd = "/root";
  Harness known({Begin(100, kE), "100 open(\"rel.txt\", O_RDONLY) = 3", End(100, kE)}, options);
  EXPECT_THAT(known.At("/root/rel.txt"), UnorderedElementsAre(Pair(kE, "consumed")));

  Harness getcwd({"100 getcwd(\"/home/u\", 4096) = 8", Begin(100, kE),
                  "100 open(\"rel.txt\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(getcwd.At("/home/u/rel.txt"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, OpenFlagsDecideTheEffect) {
  Harness h({Begin(100, kE), "100 openat(AT_FDCWD, \"/r\", O_RDONLY) = 3",
             "100 openat(AT_FDCWD, \"/w\", O_WRONLY) = 3",
             "100 openat(AT_FDCWD, \"/rw\", O_RDWR) = 3",
             "100 openat(AT_FDCWD, \"/rwc\", O_RDWR|O_CREAT, 0644) = 3",
             "100 openat(AT_FDCWD, \"/log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3",
             "100 openat(AT_FDCWD, \"/t\", O_RDWR|O_TRUNC) = 3",
             "100 openat(AT_FDCWD, \"/p\", O_PATH|O_CLOEXEC) = 3", "100 creat(\"/c\", 0644) = 3",
             "100 openat(AT_FDCWD, \"/raw\", 0x241, 0644) = 3", End(100, kE)});
  EXPECT_THAT(h.At("/r"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/w"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/rw"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/rwc"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/log"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/t"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/p"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/c"), UnorderedElementsAre(Pair(kE, "produced")));
  EXPECT_THAT(h.At("/raw"),
              UnorderedElementsAre(Pair(kE, "produced")));  // -X raw O_WRONLY|O_CREAT|O_TRUNC
}

TEST(InterpreterTest, FailedCallsStillConsumeTheirPaths) {
  Harness h(
      {Begin(100, kE),
       "100 openat(AT_FDCWD, \"/etc/app.conf\", O_RDONLY) = -1 ENOENT (No such file or directory)",
       "100 mkdir(\"/var\", 0755) = -1 EEXIST (File exists)",
       "100 unlink(\"/nope\") = -1 ENOENT (No such file or directory)",
       "100 rename(\"/a\", \"/b\") = -1 ENOENT (No such file or directory)",
       "100 execve(\"/usr/local/bin/tool\", [\"tool\"], 0x1 /* 3 vars */) = -1 ENOENT (No such "
       "file or directory)",
       End(100, kE)});
  EXPECT_THAT(h.At("/etc/app.conf"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/var"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/nope"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/a"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/b"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/usr/local/bin/tool"), UnorderedElementsAre(Pair(kE, "consumed")));
  // A failed call changes no state: fd 3 was never opened.
  EXPECT_EQ(h.analyzer.stats().failed_calls, 5u);
}

TEST(InterpreterTest, AtFlagsChooseSymlinkFollowingAndEmptyPaths) {
  Harness h(
      {Begin(100, kE), "100 symlink(\"/target\", \"/l\") = 0",
       "100 newfstatat(AT_FDCWD, \"/l\", {st_mode=S_IFLNK|0777, ...}, AT_SYMLINK_NOFOLLOW) = 0",
       "100 newfstatat(AT_FDCWD, \"/l\", {st_mode=S_IFREG|0644, ...}, 0) = 0",
       "100 openat(AT_FDCWD, \"/etc/f\", O_RDONLY) = 3",
       "100 fchownat(3, \"\", 0, 42, AT_EMPTY_PATH) = 0", "100 utimensat(3, NULL, NULL, 0) = 0",
       "100 statx(AT_FDCWD, \"/s\", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, STATX_ALL, "
       "{stx_mask=0}) = 0",
       End(100, kE)});
  EXPECT_THAT(h.At("/l"), UnorderedElementsAre(Pair(kE, "produced"), Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/target"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/etc/f"), UnorderedElementsAre(Pair(kE, "consumed"), Pair(kE, "produced")));
  EXPECT_THAT(h.At("/s"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, RenameReplacesAndExchanges) {
  Harness h({Begin(100, kE), "100 openat(AT_FDCWD, \"/x\", O_RDONLY|O_DIRECTORY) = 3",
             "100 openat(AT_FDCWD, \"/y\", O_RDONLY|O_DIRECTORY) = 4",
             "100 renameat2(AT_FDCWD, \"/x\", AT_FDCWD, \"/y\", RENAME_EXCHANGE) = 0",
             "100 openat(3, \"in-x\", O_RDONLY) = 5", "100 openat(4, \"in-y\", O_RDONLY) = 6",
             End(100, kE)});
  EXPECT_THAT(h.At("/y/in-x"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/x/in-y"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, HardLinksAndTmpfiles) {
  Harness h({Begin(100, kE), "100 link(\"/a\", \"/b\") = 0", "100 unlink(\"/a\") = 0",
             "100 openat(AT_FDCWD, \"/b\", O_RDONLY) = 3", "100 fchmod(3, 0600) = 0",
             "100 openat(AT_FDCWD, \"/tmpd\", O_RDWR|O_TMPFILE, 0600) = 4",
             "100 linkat(4, \"\", AT_FDCWD, \"/tmpd/named\", AT_EMPTY_PATH) = 0",
             "100 fchown(4, 1, 1) = 0", End(100, kE)});
  EXPECT_THAT(h.At("/b"), UnorderedElementsAre(Pair(kE, "produced"), Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/tmpd/named"), UnorderedElementsAre(Pair(kE, "produced")));
}

TEST(InterpreterTest, ChrootChangesWhereAbsolutePathsStart) {
  Harness h({Begin(100, kE), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             "200 chroot(\"/srv/jail\") = 0", "200 open(\"/etc/passwd\", O_RDONLY) = 3",
             "100 open(\"/etc/passwd\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(h.At("/srv/jail/etc/passwd"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/etc/passwd"), UnorderedElementsAre(Pair(kE, "consumed")));
}

// ---- charging calls to resource blocks ----

TEST(InterpreterTest, CallsOutsideBlocksAreChargedToNoResource) {
  Harness h({"100 open(\"/etc/puppet/puppet.conf\", O_RDONLY) = 3",
             "100 openat(AT_FDCWD, \"/var/cache/x\", O_WRONLY|O_CREAT, 0644) = 4",
             Begin(100, "File[/a]"), "100 open(\"/a\", O_WRONLY|O_CREAT, 0644) = 5",
             End(100, "File[/a]"),
             "100 open(\"/b\", O_WRONLY|O_CREAT, 0644) = 6",  // between blocks: prefetch
             Begin(100, "File[/c]"), End(100, "File[/c]")});
  EXPECT_THAT(h.Paths(), UnorderedElementsAre("/", "/a"));
  EXPECT_EQ(h.analyzer.interpreter().stats().markers_begin, 2u);
}

TEST(InterpreterTest, ADaemonStartedByAServiceStaysChargedToIt) {
  const std::string svc = "Service[memcached]";
  const std::string file = "File[/etc/other]";
  Harness h({Begin(100, svc), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             "200 clone(child_stack=NULL, flags=SIGCHLD) = 300",  // init script forks the daemon
             End(100, svc), Begin(100, file), "300 open(\"/etc/memcached.conf\", O_RDONLY) = 3",
             "100 open(\"/etc/other\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4", End(100, file),
             "300 open(\"/var/log/memcached.log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 5"});
  EXPECT_THAT(h.At("/etc/memcached.conf"), UnorderedElementsAre(Pair(svc, "consumed")));
  EXPECT_THAT(h.At("/var/log/memcached.log"), UnorderedElementsAre(Pair(svc, "produced")));
  EXPECT_THAT(h.At("/etc/other"), UnorderedElementsAre(Pair(file, "produced")));
}

TEST(InterpreterTest, PuppetThreadsFollowTheOpenBlock) {
  Harness h(
      {"100 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|"
       "CLONE_SYSVSEM, exit_signal=0, stack=0x7f, stack_size=0x7fc0} => {parent_tid=[101]}, 88) = "
       "101",
       Begin(100, "File[/a]"), "101 open(\"/a\", O_RDONLY) = 3", End(100, "File[/a]"),
       Begin(100, "File[/b]"), "101 open(\"/b\", O_RDONLY) = 3", End(100, "File[/b]"),
       "101 open(\"/c\", O_RDONLY) = 3"});
  EXPECT_THAT(h.At("/a"), UnorderedElementsAre(Pair("File[/a]", "consumed")));
  EXPECT_THAT(h.At("/b"), UnorderedElementsAre(Pair("File[/b]", "consumed")));
  EXPECT_THAT(h.At("/c"), IsEmpty());
}

TEST(InterpreterTest, ProcessesStartedBeforeTheFirstBlockStayUncharged) {
  Harness h({"100 clone(child_stack=NULL, flags=SIGCHLD) = 150",  // e.g. facter's uname
             Begin(100, kE), "150 open(\"/etc/x\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(h.Paths(), IsEmpty());
}

TEST(InterpreterTest, MarkersPrintedByOtherProcessesAreIgnored) {
  Harness h({Begin(100, kE), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             // the exec's own output mimics Puppet's log
             Begin(200, "File[/fake]"), "200 open(\"/x\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(h.At("/x"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_EQ(h.analyzer.interpreter().stats().markers_foreign, 1u);
}

TEST(InterpreterTest, ASecondPuppetRunInTheSameTraceIsFollowed) {
  Harness h({Begin(100, "File[/a]"), "100 open(\"/a\", O_RDONLY) = 3", End(100, "File[/a]"),
             "100 +++ exited with 0 +++", Begin(500, "File[/b]"), "500 open(\"/b\", O_RDONLY) = 3",
             End(500, "File[/b]")});
  EXPECT_THAT(h.At("/b"), UnorderedElementsAre(Pair("File[/b]", "consumed")));
  EXPECT_EQ(h.analyzer.interpreter().stats().markers_foreign, 0u);
}

TEST(InterpreterTest, ChildrenSeenBeforeTheirCloneReturnsAreAdopted) {
  Harness h({Begin(100, kE), "100 open(\"/d\", O_RDONLY|O_DIRECTORY) = 3",
             "100 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD <unfinished ...>",
             "200 openat(3, \"f\", O_RDONLY) = 4",
             "100 <... clone resumed>, child_tidptr=0x7f) = 200",
             "200 openat(3, \"g\", O_RDONLY) = 5", End(100, kE)});
  EXPECT_THAT(h.At("/d/f"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/d/g"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_EQ(h.analyzer.interpreter().stats().adopted_processes, 1u);
  EXPECT_EQ(h.analyzer.interpreter().stats().orphan_processes, 0u);
}

TEST(InterpreterTest, MarkersOnUnfinishedLinesStartTheBlockAtOnce) {
  const std::string begin = Begin(100, kE);
  std::string unfinished = begin.substr(0, begin.rfind(") = ")) + " <unfinished ...>";
  Harness h({unfinished, "200 open(\"/ignored\", O_RDONLY) = 3", "100 <... writev resumed>) = 100",
             "100 open(\"/x\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(h.At("/x"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_EQ(h.analyzer.interpreter().stats().markers_begin, 1u);
  EXPECT_EQ(h.analyzer.interpreter().stats().markers_unbalanced, 0u);
}

TEST(InterpreterTest, ExitedProcessesFreeTheirPid) {
  Harness h({Begin(100, kE), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             "200 chdir(\"/tmp\") = 0", "200 +++ exited with 0 +++", End(100, kE),
             "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",  // pid reused outside blocks
             "200 open(\"/y\", O_RDONLY) = 3"});
  EXPECT_THAT(h.Paths(), UnorderedElementsAre("/tmp"));  // chdir needed it; /y is uncharged
  EXPECT_EQ(h.analyzer.stats().exits, 1u);
}

TEST(InterpreterTest, ThreadExecveTakesOverTheLeaderPid) {
  Harness h({Begin(100, kE), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             "200 clone(child_stack=0x1, "
             "flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD) = 201",
             "201 execve(\"/bin/true\", [\"true\"], 0x1 /* 1 var */ <pid changed to 200 ...>",
             "200 +++ superseded by execve in pid 201 +++", "200 <... execve resumed>) = 0",
             "200 open(\"/after\", O_RDONLY) = 3", End(100, kE)});
  EXPECT_THAT(h.At("/usr/bin/true"), UnorderedElementsAre(Pair(kE, "consumed")));
  EXPECT_THAT(h.At("/after"), UnorderedElementsAre(Pair(kE, "consumed")));
}

TEST(InterpreterTest, LearnedSymlinksCanonicaliseDirectoriesForRelations) {
  Harness h({"100 readlink(\"/lib\", \"usr/lib\", 4095) = 7", Begin(100, "Package[libfoo]"),
             "100 openat(AT_FDCWD, \"/usr/lib/libfoo.so.1\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3",
             End(100, "Package[libfoo]"), Begin(100, "Service[app]"),
             "100 openat(AT_FDCWD, \"/lib/libfoo.so.1\", O_RDONLY|O_CLOEXEC) = 3",
             End(100, "Service[app]")});
  EXPECT_EQ(h.analyzer.interpreter().CanonicalPath("/lib/x/y"), "/usr/lib/x/y");
  EXPECT_EQ(h.analyzer.interpreter().CanonicalPath("/lib"), "/lib");  // final name kept
  EXPECT_THAT(h.Pairs(analysis::RelationKind::kOrdering),
              UnorderedElementsAre(Pair("Package[libfoo]", "Service[app]")));
  EXPECT_THAT(h.Pairs(analysis::RelationKind::kNotification),
              UnorderedElementsAre(Pair("Package[libfoo]", "Service[app]")));
}

// --init systemd: `strace -p 1` shows systemd (PID 1) starting the unit a resource's
// systemctl asked for; the daemon is charged to that resource, what PID 1 starts when no
// systemctl runs is charged to none, and paths under systemd's unit root (a sandboxed unit's
// view of /) are the real root's.
TEST(InterpreterTest, SystemdStartsTheDaemonAResourceAskedFor) {
  const std::string kS = "Service[demo]";
  Harness h({"1 openat(AT_FDCWD, \"/etc/systemd/system/demo.service\", O_RDONLY) = 5",
             Begin(100, kS), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             "200 execve(\"/usr/bin/systemctl\", [\"systemctl\", \"start\", \"demo\"], 0x7f /* 6 "
             "vars */) = 0",
             "1 clone(child_stack=NULL, flags=SIGCHLD) = 300",
             "300 openat(AT_FDCWD, \"/etc/demo.conf\", O_RDONLY) = 3",
             "300 mkdirat(AT_FDCWD, \"/run/systemd/unit-root\", 0700) = 0",
             "300 openat(AT_FDCWD, \"/run/systemd/unit-root/etc/demo.env\", O_RDONLY) = 4",
             "200 +++ exited with 0 +++", "1 clone(child_stack=NULL, flags=SIGCHLD) = 400",
             "400 openat(AT_FDCWD, \"/etc/other.conf\", O_RDONLY) = 3", End(100, kS)});
  EXPECT_THAT(h.At("/etc/demo.conf"), UnorderedElementsAre(Pair(kS, "consumed")));
  EXPECT_THAT(h.At("/etc/demo.env"), UnorderedElementsAre(Pair(kS, "consumed")));
  EXPECT_THAT(h.At("/run/systemd/unit-root/etc/demo.env"), IsEmpty());
  // The mount point systemd makes is not the root it will show.
  EXPECT_THAT(h.At("/"), IsEmpty());
  EXPECT_THAT(h.At("/etc/other.conf"), IsEmpty());
  EXPECT_THAT(h.At("/etc/systemd/system/demo.service"), IsEmpty());  // before the request
}

// A Service's start that leaves a process running, and that process exits with a failure: a
// daemon that died (TraceStats::daemon_exits). Told once Puppet has left the Service, or, still
// inside it, once the process that made it has exited (a daemon that forked away from its init
// script: usbguard's child, with no /sys/bus/usb). A process whose parent still runs (the
// script's own step) is the script's business, and a clean exit is none.
TEST(InterpreterTest, ADaemonThatDiesAfterItsStartIsTold) {
  const std::string kS = "Service[demo]";
  const std::string kF = "File[/etc/x]";
  auto exits = [](const Harness& h) {
    std::vector<std::pair<int32_t, int>> out;
    for (const analysis::DaemonExit& d : h.analyzer.stats().daemon_exits) {
      out.emplace_back(d.pid, d.status);
    }
    return out;
  };
  // The init script (200) starts the daemon (300), which forks its worker (301) and exits; the
  // worker fails while Puppet is still in the Service.
  Harness forked({Begin(100, kS), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
                  "200 clone(child_stack=NULL, flags=SIGCHLD) = 300",
                  "300 execve(\"/usr/sbin/demod\", [\"demod\"], 0x7f /* 6 vars */) = 0",
                  "300 clone(child_stack=NULL, flags=SIGCHLD) = 301", "300 +++ exited with 0 +++",
                  "200 +++ exited with 0 +++", "301 +++ exited with 1 +++", End(100, kS)});
  EXPECT_THAT(exits(forked), ElementsAre(std::make_pair(301, 1)));
  // The same worker failing after Puppet has gone on to another resource.
  Harness later({Begin(100, kS), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
                 "200 clone(child_stack=NULL, flags=SIGCHLD) = 300", "300 +++ exited with 0 +++",
                 "200 +++ exited with 0 +++", End(100, kS), Begin(100, kF),
                 "300 +++ exited with 2 +++", End(100, kF)});
  EXPECT_THAT(exits(later), IsEmpty());  // 300 exited with 0 first; its pid is gone
  Harness after({Begin(100, kS), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
                 "200 clone(child_stack=NULL, flags=SIGCHLD) = 300", "200 +++ exited with 0 +++",
                 End(100, kS), Begin(100, kF), "300 +++ exited with 2 +++", End(100, kF)});
  EXPECT_THAT(exits(after), ElementsAre(std::make_pair(300, 2)));
  // A step of the script that fails while the script runs, and a worker that exits cleanly.
  Harness own({Begin(100, kS), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
               "200 clone(child_stack=NULL, flags=SIGCHLD) = 300", "300 +++ exited with 1 +++",
               "200 clone(child_stack=NULL, flags=SIGCHLD) = 301", "200 +++ exited with 0 +++",
               "301 +++ exited with 0 +++", End(100, kS)});
  EXPECT_THAT(exits(own), IsEmpty());
}

// The strace line of process `pid` exec'ing systemctl with `args` (its quoted arguments).
std::string Systemctl(int pid, const std::string& args) {
  return std::to_string(pid) + " execve(\"/usr/bin/systemctl\", [\"/usr/bin/systemctl\", " + args +
         "], 0x7f /* 6 vars */) = 0";
}

// A daemon-reload makes PID 1 run its generators (the sysv generator lists /etc/init.d, others
// read every unit): PID 1 reloading everything there is, as its own reads then are, never the
// needs of the Exec that asked. What it runs for a start is the Service's, as above.
TEST(InterpreterTest, AReloadsGeneratorsAreChargedToNone) {
  const std::string kR = "Exec[daemon-reload]";
  const std::string kS = "Service[demo]";
  Harness h(
      {Begin(100, kR), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
       Systemctl(200, "\"daemon-reload\""),
       "1 clone(child_stack=NULL, flags=CLONE_NEWNS|SIGCHLD) = 300",
       "300 execve(\"/usr/lib/systemd/system-generators/systemd-sysv-generator\", "
       "[\"systemd-sysv-generator\"], 0x7f /* 9 vars */) = 0",
       "300 openat(AT_FDCWD, \"/etc/init.d/demo\", O_RDONLY) = 3", "200 +++ exited with 0 +++",
       End(100, kR), Begin(100, kS), "100 clone(child_stack=NULL, flags=SIGCHLD) = 201",
       Systemctl(201, "\"start\", \"demo\""), "1 clone(child_stack=NULL, flags=SIGCHLD) = 301",
       "301 openat(AT_FDCWD, \"/etc/demo.conf\", O_RDONLY) = 3", "201 +++ exited with 0 +++",
       End(100, kS)});
  EXPECT_THAT(h.At("/etc/init.d/demo"), IsEmpty());
  EXPECT_THAT(h.At("/etc/demo.conf"), UnorderedElementsAre(Pair(kS, "consumed")));
}

// Mounts and unmounts change a mount namespace, not files: in one of the process's own
// (systemd building a unit's sandbox at /run/systemd/mount-rootfs), nobody else sees them.
// In the namespace everybody shares they still change what a path holds.
TEST(InterpreterTest, MountsInAMountNamespaceOfItsOwnChangeNothingShared) {
  Harness h({Begin(100, kE), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             "200 unshare(CLONE_NEWNS) = 0",
             "200 umount2(\"/run/systemd/mount-rootfs/dev\", MNT_DETACH) = 0",
             "200 mount(\"tmpfs\", \"/tmp/private\", \"tmpfs\", MS_NOSUID, NULL) = 0",
             "200 clone(child_stack=NULL, flags=SIGCHLD) = 201",
             "201 umount2(\"/run/inherited\", 0) = 0",
             "100 mount(\"/dev/sdb1\", \"/srv/data\", \"ext4\", 0, NULL) = 0", End(100, kE)});
  EXPECT_THAT(h.At("/run/systemd/mount-rootfs/dev"), IsEmpty());
  EXPECT_THAT(h.At("/tmp/private"), IsEmpty());
  EXPECT_THAT(h.At("/run/inherited"), IsEmpty());  // the child is in its parent's namespace
  EXPECT_THAT(h.At("/srv/data"), UnorderedElementsAre(Pair(kE, "produced")));
}

// What systemd itself reads while a Service's systemctl starts a unit is read for that unit
// (class 4 of the precision issue): its unit file, drop-ins and EnvironmentFile=, which
// systemd before 255 reads in PID 1. Other units' files, PID 1's writes, and its reads for a
// reload (daemon-reload and the verbs that imply one), a query or a non-Service resource are
// charged to none.
TEST(InterpreterTest, WhatPidOneReadsToStartAUnitIsTheService) {
  const std::string kS = "Service[demo]";
  const std::string kWeb = "Service[web]";
  const std::string kE2 = "Exec[reload]";
  Harness h({Begin(100, kS),
             "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
             Systemctl(200, "\"unmask\", \"--\", \"demo\""),
             "1 openat(AT_FDCWD, \"/etc/systemd/system/all.service\", O_RDONLY) = 5",
             "200 +++ exited with 0 +++",
             "100 clone(child_stack=NULL, flags=SIGCHLD) = 201",
             Systemctl(201, "\"is-active\", \"--\", \"demo\""),
             "1 openat(AT_FDCWD, \"/etc/query.read\", O_RDONLY) = 5",
             "201 +++ exited with 0 +++",
             "100 clone(child_stack=NULL, flags=SIGCHLD) = 202",
             Systemctl(202, "\"start\", \"--\", \"demo\""),
             "1 openat(AT_FDCWD, \"/etc/systemd/system/demo.service\", O_RDONLY) = 5",
             "1 openat(AT_FDCWD, \"/etc/systemd/system/demo.service.d/limits.conf\", O_RDONLY) = 5",
             "1 openat(AT_FDCWD, \"/etc/systemd/system/timer-target.service\", O_RDONLY) = 5",
             "1 openat(AT_FDCWD, \"/etc/default/demo\", O_RDONLY) = 5",
             "1 openat(AT_FDCWD, \"/run/systemd/units/invocation:demo.service\", "
             "O_WRONLY|O_CREAT|O_TRUNC, 0644) = 6",
             "202 +++ exited with 0 +++",
             End(100, kS),
             Begin(100, kWeb),
             "100 clone(child_stack=NULL, flags=SIGCHLD) = 203",
             Systemctl(203, "\"restart\", \"web@blue.service\""),
             "1 openat(AT_FDCWD, \"/etc/systemd/system/web@.service\", O_RDONLY) = 5",
             "1 openat(AT_FDCWD, \"/etc/systemd/system/web@.socket\", O_RDONLY) = 5",
             "203 +++ exited with 0 +++",
             End(100, kWeb),
             Begin(100, kE2),
             "100 clone(child_stack=NULL, flags=SIGCHLD) = 204",
             Systemctl(204, "\"start\", \"demo\""),
             "1 openat(AT_FDCWD, \"/etc/exec.read\", O_RDONLY) = 5",
             "204 +++ exited with 0 +++",
             End(100, kE2)});
  EXPECT_THAT(h.At("/etc/systemd/system/all.service"), IsEmpty());
  EXPECT_THAT(h.At("/etc/query.read"), IsEmpty());
  EXPECT_THAT(h.At("/etc/systemd/system/demo.service"), UnorderedElementsAre(Pair(kS, "consumed")));
  EXPECT_THAT(h.At("/etc/systemd/system/demo.service.d/limits.conf"),
              UnorderedElementsAre(Pair(kS, "consumed")));
  EXPECT_THAT(h.At("/etc/systemd/system/timer-target.service"), IsEmpty());
  EXPECT_THAT(h.At("/etc/default/demo"), UnorderedElementsAre(Pair(kS, "consumed")));
  EXPECT_THAT(h.At("/run/systemd/units/invocation:demo.service"), IsEmpty());
  EXPECT_THAT(h.At("/run/systemd/units"), IsEmpty());
  EXPECT_THAT(h.At("/etc/systemd/system/web@.service"),
              UnorderedElementsAre(Pair(kWeb, "consumed")));
  EXPECT_THAT(h.At("/etc/systemd/system/web@.socket"), IsEmpty());
  EXPECT_THAT(h.At("/etc/exec.read"), IsEmpty());
}

// dpkg unpacks a package's files, then writes its file list: the files written before the
// list are that package's (apt unpacks dependencies in the same dpkg run). A conffile is
// NAME.dpkg-new until it is configured, by a later dpkg process. dpkg is known by the list it
// writes, not by its name (strace may print execve's arguments as bare pointers).
TEST(InterpreterTest, WhatDpkgUnpackedIsKnownByItsPackage) {
  const std::string kP = "Package[client]";
  Harness h(
      {Begin(100, kP), "100 clone(child_stack=NULL, flags=SIGCHLD) = 200",
       "200 execve(0x5602a80ec880, 0x5602a7f2aaa0, 0x5602a80e21a0) = 0",
       "200 openat(AT_FDCWD, \"/usr/lib/libfoo.so.1.dpkg-new\", O_WRONLY|O_CREAT, 0644) = 3",
       "200 rename(\"/usr/lib/libfoo.so.1.dpkg-new\", \"/usr/lib/libfoo.so.1\") = 0",
       "200 openat(AT_FDCWD, \"/etc/foo.conf.dpkg-new\", O_WRONLY|O_CREAT, 0644) = 3",
       "200 openat(AT_FDCWD, \"/var/lib/dpkg/info/libfoo1:amd64.list-new\", "
       "O_WRONLY|O_CREAT|O_TRUNC, 0666) = 4",
       "200 rename(\"/var/lib/dpkg/info/libfoo1:amd64.list-new\", "
       "\"/var/lib/dpkg/info/libfoo1:amd64.list\") = 0",
       "200 openat(AT_FDCWD, \"/usr/bin/client.dpkg-new\", O_WRONLY|O_CREAT, 0755) = 3",
       "200 rename(\"/usr/bin/client.dpkg-new\", \"/usr/bin/client\") = 0",
       "200 rename(\"/var/lib/dpkg/info/client.list-new\", \"/var/lib/dpkg/info/client.list\") = 0",
       "200 +++ exited with 0 +++", "100 clone(child_stack=NULL, flags=SIGCHLD) = 201",
       "201 rename(\"/etc/foo.conf.dpkg-new\", \"/etc/foo.conf\") = 0",
       "201 openat(AT_FDCWD, \"/etc/written-after\", O_WRONLY|O_CREAT, 0644) = 3",
       "201 +++ exited with 0 +++", End(100, kP)});
  const analysis::Interpreter& in = h.analyzer.interpreter();
  auto from = [&](std::string_view path) {
    for (analysis::PathId p = 0; p < in.accesses().path_count(); ++p) {
      if (in.accesses().path(p) == path) return std::string(in.UnpackedFrom(p));
    }
    return std::string("(no such path)");
  };
  EXPECT_EQ(from("/usr/lib/libfoo.so.1"), "libfoo1");
  EXPECT_EQ(from("/etc/foo.conf.dpkg-new"), "libfoo1");
  EXPECT_EQ(from("/etc/foo.conf"), "libfoo1");
  EXPECT_EQ(from("/usr/bin/client"), "client");
  EXPECT_EQ(from("/etc/written-after"), "");
}

// PID 1 first shows up whenever it makes a call: never as the child of a clone in flight.
TEST(InterpreterTest, PidOneIsNobodysChild) {
  Harness h({Begin(100, kE), "100 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>",
             "1 openat(AT_FDCWD, \"/etc/pid-one\", O_RDONLY) = 5", "100 <... clone resumed>) = 200",
             End(100, kE)});
  EXPECT_THAT(h.At("/etc/pid-one"), IsEmpty());
}

}  // namespace
}  // namespace fsmove::testing
