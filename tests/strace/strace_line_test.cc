// Tests for stage 1 of the strace parser: ParseLineHead (prefixes, timestamps, line kinds),
// FindArgsEnd (quotes, nesting, -y decorations) and ParseCallTail (return values, errno, -T).
// Lines follow strace 6.1 output; those marked "real" are copied from recorded Puppet traces.
#include "fsmove/strace/strace_line.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fsmove::strace {
namespace {

constexpr size_t npos = std::string_view::npos;

// ---------------------------------------------------------------------------------------------
// ParseLineHead: pid prefixes
// ---------------------------------------------------------------------------------------------

// A pid over INT32_MAX used to wrap (4294967296 became pid 0, the unprefixed process).
TEST(StraceLineHeadTest, PidOutOfRangeIsGarbageNotAnotherProcess) {
  for (std::string_view line : {"4294967296 close(3) = 0", "[pid 4294967296] close(3) = 0",
                                "2147483648 +++ exited with 0 +++"}) {
    LineHead h = ParseLineHead(line);
    EXPECT_EQ(h.kind, LineKind::kGarbage) << line;
    EXPECT_STREQ(h.garbage_reason, "pid out of range") << line;
  }
  LineHead max = ParseLineHead("2147483647 close(3) = 0");
  EXPECT_EQ(max.kind, LineKind::kCall);
  EXPECT_EQ(max.pid, 2147483647);
  EXPECT_EQ(ParseLineHead("7 +++ superseded by execve in pid 99999999999 +++").kind,
            LineKind::kGarbage);
}

TEST(StraceLineHeadTest, PidColumnOfDashO) {  // real
  LineHead h = ParseLineHead(
      R"x(190   execve("/usr/bin/puppet", ["puppet", "apply"], 0x7ffe5fc7a8b0 /* 6 vars */) = 0)x");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_TRUE(h.has_pid);
  EXPECT_EQ(h.pid, 190);
  EXPECT_EQ(h.name, "execve");
  EXPECT_EQ(h.rest,
            R"x("/usr/bin/puppet", ["puppet", "apply"], 0x7ffe5fc7a8b0 /* 6 vars */) = 0)x");
  EXPECT_EQ(h.other_pid, -1);
  EXPECT_EQ(h.garbage_reason, nullptr);
}

TEST(StraceLineHeadTest, FiveDigitPidColumnWithOneSpace) {
  LineHead h = ParseLineHead("13983 close(3) = 0");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 13983);
  EXPECT_EQ(h.name, "close");
  EXPECT_EQ(h.rest, "3) = 0");
}

TEST(StraceLineHeadTest, BracketPidPrefixOfStderrOutput) {
  LineHead h = ParseLineHead("[pid 28772] select(4, [3], NULL, NULL, NULL) = 1 (in [3])");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_TRUE(h.has_pid);
  EXPECT_EQ(h.pid, 28772);
  EXPECT_EQ(h.name, "select");
  EXPECT_EQ(h.rest, "4, [3], NULL, NULL, NULL) = 1 (in [3])");
}

TEST(StraceLineHeadTest, BracketPidPrefixWithPadding) {
  LineHead h = ParseLineHead("[pid   812] openat(AT_FDCWD, \"/x\", O_RDONLY) = 3");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 812);
  EXPECT_EQ(h.name, "openat");
}

TEST(StraceLineHeadTest, NoPrefixForASingleProcess) {
  LineHead h = ParseLineHead("openat(AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_FALSE(h.has_pid);
  EXPECT_EQ(h.pid, 0);
  EXPECT_EQ(h.name, "openat");
  EXPECT_EQ(h.rest, "AT_FDCWD, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = 3");
}

TEST(StraceLineHeadTest, MalformedBracketPidIsGarbage) {
  LineHead h = ParseLineHead("[pid abc] close(3) = 0");
  EXPECT_EQ(h.kind, LineKind::kGarbage);
  ASSERT_NE(h.garbage_reason, nullptr);
  EXPECT_STREQ(h.garbage_reason, "malformed [pid N] prefix");
  EXPECT_EQ(ParseLineHead("[pid 12 close(3) = 0").kind, LineKind::kGarbage);
}

// ---------------------------------------------------------------------------------------------
// ParseLineHead: timestamps
// ---------------------------------------------------------------------------------------------

TEST(StraceLineHeadTest, DashTTimestampAfterPid) {
  LineHead h = ParseLineHead("13983 04:39:56 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 13983);
  EXPECT_EQ(h.name, "openat");
}

TEST(StraceLineHeadTest, DashTtTimestampAfterBracketPid) {
  LineHead h = ParseLineHead("[pid  4242] 04:39:56.936423 close(3) = 0");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 4242);
  EXPECT_EQ(h.name, "close");
  EXPECT_EQ(h.rest, "3) = 0");
}

TEST(StraceLineHeadTest, DashTttTimestampWithoutPid) {
  LineHead h = ParseLineHead("1795322396.889604 close(3) = 0");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_FALSE(h.has_pid);
  EXPECT_EQ(h.name, "close");
}

TEST(StraceLineHeadTest, DashTttTimestampAfterPid) {
  LineHead h = ParseLineHead("190   1795322396.889604 close(3) = 0");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 190);
  EXPECT_EQ(h.name, "close");
}

TEST(StraceLineHeadTest, NanosecondUnixTimestamp) {
  LineHead h = ParseLineHead("77 1795323302.751775957 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 77);
  EXPECT_EQ(h.name, "openat");
}

TEST(StraceLineHeadTest, SecondsOnlyTimestampAfterPid) {
  LineHead h = ParseLineHead("77 1795323302 close(3) = 0");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 77);
  EXPECT_EQ(h.name, "close");
}

TEST(StraceLineHeadTest, DashRRelativeTimestampRightAligned) {
  LineHead h = ParseLineHead("30997      0.000163 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 30997);
  EXPECT_EQ(h.name, "openat");
  LineHead n = ParseLineHead("     0.000163 close(3) = 0");
  EXPECT_EQ(n.kind, LineKind::kCall);
  EXPECT_FALSE(n.has_pid);
  EXPECT_EQ(n.name, "close");
}

TEST(StraceLineHeadTest, TimestampBeforeLifecycleLines) {
  LineHead h = ParseLineHead("190   04:39:56.936423 +++ exited with 0 +++");
  EXPECT_EQ(h.kind, LineKind::kExited);
  EXPECT_EQ(h.pid, 190);
  LineHead s = ParseLineHead("190   1795322396.889604 --- SIGCHLD {si_signo=SIGCHLD} ---");
  EXPECT_EQ(s.kind, LineKind::kSignal);
  EXPECT_EQ(s.pid, 190);
}

// ---------------------------------------------------------------------------------------------
// ParseLineHead: kinds
// ---------------------------------------------------------------------------------------------

TEST(StraceLineHeadTest, UnfinishedCall) {  // real
  LineHead h = ParseLineHead(R"x(16586 write(1, "/usr/bin/readlink\n", 18 <unfinished ...>)x");
  EXPECT_EQ(h.kind, LineKind::kUnfinished);
  EXPECT_EQ(h.pid, 16586);
  EXPECT_EQ(h.name, "write");
  EXPECT_EQ(h.rest, R"x(1, "/usr/bin/readlink\n", 18)x");
  EXPECT_EQ(h.other_pid, -1);
}

TEST(StraceLineHeadTest, UnfinishedCallWithPartialArguments) {  // real
  LineHead h = ParseLineHead("289   close(3 <unfinished ...>");
  EXPECT_EQ(h.kind, LineKind::kUnfinished);
  EXPECT_EQ(h.name, "close");
  EXPECT_EQ(h.rest, "3");
  LineHead r = ParseLineHead("[pid 5] read(3,  <unfinished ...>");
  EXPECT_EQ(r.kind, LineKind::kUnfinished);
  EXPECT_EQ(r.rest, "3,");
  LineHead e = ParseLineHead("5 pause( <unfinished ...>");
  EXPECT_EQ(e.kind, LineKind::kUnfinished);
  EXPECT_EQ(e.rest, "");
}

TEST(StraceLineHeadTest, UnfinishedClone3Struct) {  // real
  LineHead h = ParseLineHead(
      "190   clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
      "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7fa07f375990, "
      "parent_tid=0x7fa07f375990, exit_signal=0, stack=0x7fa07f175000, stack_size=0x1fff80, "
      "tls=0x7fa07f3756c0} <unfinished ...>");
  EXPECT_EQ(h.kind, LineKind::kUnfinished);
  EXPECT_EQ(h.name, "clone3");
  EXPECT_TRUE(h.rest.starts_with("{flags=CLONE_VM|"));
  EXPECT_TRUE(h.rest.ends_with("tls=0x7fa07f3756c0}"));
}

TEST(StraceLineHeadTest, ResumedCall) {  // real
  LineHead h = ParseLineHead(
      "197   <... access resumed>)             = -1 ENOENT (No such file or directory)");
  EXPECT_EQ(h.kind, LineKind::kResumed);
  EXPECT_EQ(h.pid, 197);
  EXPECT_EQ(h.name, "access");
  EXPECT_EQ(h.rest, ")             = -1 ENOENT (No such file or directory)");
}

TEST(StraceLineHeadTest, ResumedCallCarryingArguments) {  // real
  LineHead h = ParseLineHead("209   <... pipe2 resumed>[4, 5], 0)     = 0");
  EXPECT_EQ(h.kind, LineKind::kResumed);
  EXPECT_EQ(h.name, "pipe2");
  EXPECT_EQ(h.rest, "[4, 5], 0)     = 0");
  LineHead c = ParseLineHead("190   <... clone3 resumed> => {parent_tid=[198]}, 88) = 198");
  EXPECT_EQ(c.kind, LineKind::kResumed);
  EXPECT_EQ(c.name, "clone3");
  EXPECT_EQ(c.rest, " => {parent_tid=[198]}, 88) = 198");
}

TEST(StraceLineHeadTest, ResumedWithoutNameIsGarbage) {
  LineHead h = ParseLineHead("12 <... resumed>) = 0");
  EXPECT_EQ(h.kind, LineKind::kGarbage);
  EXPECT_STREQ(h.garbage_reason, "malformed resumed line");
}

TEST(StraceLineHeadTest, SignalDelivery) {  // real
  LineHead h = ParseLineHead(
      "209   --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=210, si_uid=0, si_status=0, "
      "si_utime=0, si_stime=0} ---");
  EXPECT_EQ(h.kind, LineKind::kSignal);
  EXPECT_EQ(h.pid, 209);
  EXPECT_TRUE(h.name.empty());
}

TEST(StraceLineHeadTest, GroupStopIsASignalLine) {
  LineHead h = ParseLineHead("[pid 77] --- stopped by SIGSTOP ---");
  EXPECT_EQ(h.kind, LineKind::kSignal);
  EXPECT_EQ(h.pid, 77);
}

TEST(StraceLineHeadTest, ExitedAndKilled) {
  LineHead e = ParseLineHead("210   +++ exited with 0 +++");
  EXPECT_EQ(e.kind, LineKind::kExited);
  EXPECT_EQ(e.pid, 210);
  LineHead k = ParseLineHead("+++ killed by SIGTERM +++");
  EXPECT_EQ(k.kind, LineKind::kKilled);
  EXPECT_FALSE(k.has_pid);
  LineHead c = ParseLineHead("211 +++ killed by SIGSEGV (core dumped) +++");
  EXPECT_EQ(c.kind, LineKind::kKilled);
  EXPECT_EQ(c.pid, 211);
}

TEST(StraceLineHeadTest, SupersededByExecveInAThread) {
  LineHead h = ParseLineHead("17163 +++ superseded by execve in pid 17176 +++");
  EXPECT_EQ(h.kind, LineKind::kSuperseded);
  EXPECT_EQ(h.pid, 17163);
  EXPECT_EQ(h.other_pid, 17176);
}

TEST(StraceLineHeadTest, MalformedLifecycleNoticesAreGarbage) {
  LineHead s = ParseLineHead("17163 +++ superseded by execve in pid x +++");
  EXPECT_EQ(s.kind, LineKind::kGarbage);
  EXPECT_STREQ(s.garbage_reason, "malformed superseded notice");
  LineHead u = ParseLineHead("17163 +++ vanished +++");
  EXPECT_EQ(u.kind, LineKind::kGarbage);
  EXPECT_STREQ(u.garbage_reason, "unknown +++ notice");
}

TEST(StraceLineHeadTest, PidChangedIsAnUnfinishedExecve) {
  LineHead h = ParseLineHead(
      R"x(17176 execve("/bin/true", ["/bin/true"], 0x7ffd2ee1a0b8 /* 25 vars */ <pid changed to 17163 ...>)x");
  EXPECT_EQ(h.kind, LineKind::kUnfinished);
  EXPECT_EQ(h.pid, 17176);
  EXPECT_EQ(h.name, "execve");
  EXPECT_EQ(h.other_pid, 17163);
  EXPECT_EQ(h.rest, R"x("/bin/true", ["/bin/true"], 0x7ffd2ee1a0b8 /* 25 vars */)x");
}

TEST(StraceLineHeadTest, StraceNotices) {
  EXPECT_EQ(ParseLineHead("strace: Process 28772 attached").kind, LineKind::kNotice);
  EXPECT_EQ(ParseLineHead("[ Process PID=28772 runs in 32 bit mode. ]").kind, LineKind::kNotice);
  LineHead d = ParseLineHead("28772 <detached ...>");
  EXPECT_EQ(d.kind, LineKind::kNotice);
  EXPECT_EQ(d.pid, 28772);
}

TEST(StraceLineHeadTest, BlankLines) {
  EXPECT_EQ(ParseLineHead("").kind, LineKind::kBlank);
  EXPECT_EQ(ParseLineHead("    ").kind, LineKind::kBlank);
  EXPECT_EQ(ParseLineHead(" \t \r").kind, LineKind::kBlank);
}

TEST(StraceLineHeadTest, PidWithoutAnythingElseIsGarbage) {
  LineHead h = ParseLineHead("190   ");
  EXPECT_EQ(h.kind, LineKind::kGarbage);
  EXPECT_STREQ(h.garbage_reason, "prefix without a call");
  LineHead n = ParseLineHead("12345");
  EXPECT_EQ(n.kind, LineKind::kGarbage);
  EXPECT_STREQ(n.garbage_reason, "not a system call line");
}

TEST(StraceLineHeadTest, GarbageText) {
  LineHead h = ParseLineHead("Notice: Applied catalog in 0.02 seconds");
  EXPECT_EQ(h.kind, LineKind::kGarbage);
  EXPECT_STREQ(h.garbage_reason, "not a system call line");
  EXPECT_EQ(ParseLineHead(", child_tidptr=0x7f0) = 1235").kind, LineKind::kGarbage);
  EXPECT_EQ(ParseLineHead("open (\"/x\") = 3").kind, LineKind::kGarbage);
}

TEST(StraceLineHeadTest, BinaryBytesAreGarbage) {
  LineHead h = ParseLineHead(std::string_view("\0\xff\xfe(abc) = 0", 12));
  EXPECT_EQ(h.kind, LineKind::kGarbage);
  LineHead p = ParseLineHead(std::string_view("190   \xff\0close(3) = 0", 20));
  EXPECT_EQ(p.kind, LineKind::kGarbage);
  EXPECT_EQ(p.pid, 190);
}

TEST(StraceLineHeadTest, UnknownSyscallNameIsACall) {
  LineHead h = ParseLineHead(
      "[pid 99] syscall_0x1b6(0x1, 0x2, 0, 0, 0, 0) = -1 ENOSYS (Function not implemented)");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 99);
  EXPECT_EQ(h.name, "syscall_0x1b6");
  CallTail t;
  ASSERT_TRUE(ParseCallTail(h.rest, &t));
  EXPECT_EQ(t.args, "0x1, 0x2, 0, 0, 0, 0");
  EXPECT_EQ(t.ret, -1);
  EXPECT_EQ(t.errno_name, "ENOSYS");
}

TEST(StraceLineHeadTest, RestartSyscallIsACall) {
  LineHead h =
      ParseLineHead("190   restart_syscall(<... resuming interrupted clock_nanosleep ...>) = 0");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.name, "restart_syscall");
  CallTail t;
  ASSERT_TRUE(ParseCallTail(h.rest, &t));
  EXPECT_EQ(t.args, "<... resuming interrupted clock_nanosleep ...>");
  EXPECT_TRUE(t.has_return);
  EXPECT_EQ(t.ret, 0);
}

TEST(StraceLineHeadTest, LineEndingInDecorationOrDurationIsNotUnfinished) {
  LineHead d = ParseLineHead("190   close(3</etc/ld.so.cache>) = 0");
  EXPECT_EQ(d.kind, LineKind::kCall);
  LineHead t = ParseLineHead("190   close(3) = 0 <0.000012>");
  EXPECT_EQ(t.kind, LineKind::kCall);
  LineHead r = ParseLineHead("190   openat(AT_FDCWD</tmp>, \"x\", O_RDONLY) = 3</tmp/x>");
  EXPECT_EQ(r.kind, LineKind::kCall);
  LineHead s = ParseLineHead(R"x(190   write(1, "a <unfinished ...>", 18) = 18)x");
  EXPECT_EQ(s.kind, LineKind::kCall);
}

TEST(StraceLineHeadTest, DetachedCallIsUnfinished) {  // real: the last line of a trace
  LineHead h = ParseLineHead(
      "387   clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=923648000},  <detached ...>");
  EXPECT_EQ(h.kind, LineKind::kUnfinished);
  EXPECT_EQ(h.pid, 387);
  EXPECT_EQ(h.name, "clock_nanosleep");
  EXPECT_EQ(h.rest, "CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=923648000},");
  LineHead w = ParseLineHead("26855 wait4(-1,  <detached ...>");  // strace -p, then SIGINT
  EXPECT_EQ(w.kind, LineKind::kUnfinished);
  EXPECT_EQ(w.rest, "-1,");
}

TEST(StraceLineHeadTest, StraceNoticeSplicedIntoACall) {
  // strace -f to stderr: the attach notice lands inside the line being written; stage 1 sees
  // an ordinary call line (the assembler repairs it with the next line).
  LineHead h = ParseLineHead("vfork(strace: Process 20638 attached");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.name, "vfork");
  EXPECT_EQ(h.rest, "strace: Process 20638 attached");
  EXPECT_EQ(ParseLineHead(" <unfinished ...>").kind, LineKind::kGarbage);
}

TEST(StraceLineHeadTest, CutLineIsACallWithoutTail) {
  LineHead h = ParseLineHead("190   write(1, \"aaaaaaaaaaaaa");
  EXPECT_EQ(h.kind, LineKind::kCall);
  CallTail t;
  EXPECT_FALSE(ParseCallTail(h.rest, &t));
}

// ---------------------------------------------------------------------------------------------
// FindArgsEnd
// ---------------------------------------------------------------------------------------------

TEST(FindArgsEndTest, SimpleList) {
  EXPECT_EQ(FindArgsEnd("3) = 0"), 1u);
  EXPECT_EQ(FindArgsEnd(") = 0"), 0u);
}

TEST(FindArgsEndTest, ParenthesesInsideStringsAreSkipped) {
  std::string_view t = R"x(AT_FDCWD, "/tmp/a) b(", O_RDONLY) = 3)x";
  EXPECT_EQ(FindArgsEnd(t), t.find(" = 3") - 1);
}

TEST(FindArgsEndTest, EscapedQuotesInsideStrings) {
  std::string_view t = R"x(1, "say \"hi)\"\\", 12) = 12)x";
  EXPECT_EQ(FindArgsEnd(t), t.size() - 6);
  std::string_view b = R"x(1, "back\\", ")", 2) = 2)x";
  EXPECT_EQ(FindArgsEnd(b), b.size() - 5);
}

TEST(FindArgsEndTest, NestedBrackets) {
  std::string_view t =
      "-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, {ru_utime={tv_sec=0, tv_usec=1}}) = 211";
  EXPECT_EQ(FindArgsEnd(t), t.size() - 7);
}

TEST(FindArgsEndTest, FdDecorationWithParenthesesInPath) {
  std::string_view t = "3</tmp/a(b>, 0) = 0";
  EXPECT_EQ(FindArgsEnd(t), 14u);
  std::string_view at = "AT_FDCWD</srv/x)y>, \"f\", O_RDONLY) = 4";
  EXPECT_EQ(FindArgsEnd(at), at.size() - 5);
}

TEST(FindArgsEndTest, VerboseAtFdcwdDecoration) {
  std::string_view t =
      R"x(-100 /* AT_FDCWD */</tmp/a(b>, "x", 0x80000 /* O_RDONLY|O_CLOEXEC */) = 3)x";
  EXPECT_EQ(FindArgsEnd(t), t.size() - 5);
}

TEST(FindArgsEndTest, SocketDecorationWithArrow) {
  std::string_view t = "3<TCP:[1.2.3.4:22->5.6.7.8:99]>, 4<UNIX:[1234->5678]>) = 0";
  EXPECT_EQ(FindArgsEnd(t), t.size() - 5);
}

TEST(FindArgsEndTest, NestedDeviceDecoration) {  // real -yy
  std::string_view t = R"x(2</dev/null<char 1:3>>, ")", 1) = 1)x";
  EXPECT_EQ(FindArgsEnd(t), t.size() - 5);
}

TEST(FindArgsEndTest, EscapedAnglesInDecoratedPath) {  // real -yy: '<' and '>' print as \74 \76
  std::string_view t = R"x(4</tmp/sx/a (b), c\74d\76e Ex/out, x>) = 0)x";
  EXPECT_EQ(FindArgsEnd(t), t.size() - 5);
}

TEST(FindArgsEndTest, NoClosingParenthesis) {
  EXPECT_EQ(FindArgsEnd("1, \"abc"), npos);   // unterminated string
  EXPECT_EQ(FindArgsEnd("1, [2, 3"), npos);   // no close at all
  EXPECT_EQ(FindArgsEnd("1, 2] = 0"), npos);  // wrong closer
  EXPECT_EQ(FindArgsEnd("3</tmp/unterminated"), npos);
  EXPECT_EQ(FindArgsEnd(""), npos);
}

// ---------------------------------------------------------------------------------------------
// ParseCallTail
// ---------------------------------------------------------------------------------------------

TEST(StraceLineTailTest, ZeroReturn) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail("3)                          = 0", &t));  // real alignment
  EXPECT_EQ(t.args, "3");
  EXPECT_TRUE(t.has_return);
  EXPECT_FALSE(t.return_unknown);
  EXPECT_EQ(t.ret, 0);
  EXPECT_EQ(t.ret_text, "0");
  EXPECT_TRUE(t.errno_name.empty());
}

TEST(StraceLineTailTest, ErrnoReturn) {  // real
  CallTail t;
  ASSERT_TRUE(ParseCallTail(
      R"x("/enumerator.so", 0x7ffe138d9860, 1023) = -1 ENOENT (No such file or directory))x", &t));
  EXPECT_EQ(t.args, R"x("/enumerator.so", 0x7ffe138d9860, 1023)x");
  EXPECT_TRUE(t.has_return);
  EXPECT_EQ(t.ret, -1);
  EXPECT_EQ(t.ret_text, "-1");
  EXPECT_EQ(t.errno_name, "ENOENT");
}

TEST(StraceLineTailTest, UnknownReturnWithRestartErrno) {  // real
  CallTail t;
  ASSERT_TRUE(
      ParseCallTail("child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
                    "child_tidptr=0x7fdbad4b5a10) = ? ERESTARTNOINTR (To be restarted)",
                    &t));
  EXPECT_TRUE(t.has_return);
  EXPECT_TRUE(t.return_unknown);
  EXPECT_EQ(t.errno_name, "ERESTARTNOINTR");
  CallTail s;
  ASSERT_TRUE(
      ParseCallTail("4, [], 0) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)", &s));
  EXPECT_TRUE(s.return_unknown);
  EXPECT_EQ(s.errno_name, "ERESTARTSYS");
}

// The return's negation overflowed (undefined behaviour) for the same value that
// strace_line_fuzzer found in ParseInt; strace never prints it, a corrupt trace can.
TEST(StraceLineTailTest, Int64MinimumReturnIsNotAnOverflow) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail("3) = -0x8000000000000000", &t));
  EXPECT_EQ(t.ret, INT64_MIN);
  ASSERT_TRUE(ParseCallTail("3) = 0xffffffffffffffff", &t));
  EXPECT_EQ(t.ret, -1);
}

// A complete call's text ends with `) = RET`; a line cut short (truncated trace) does not.
TEST(StraceLineTailTest, HasReturnPart) {
  EXPECT_TRUE(HasReturnPart("3)                          = 0"));  // real alignment
  EXPECT_TRUE(HasReturnPart(R"x("/x", O_RDONLY) = -1 ENOENT (No such file or directory))x"));
  EXPECT_TRUE(HasReturnPart("0)         = ?"));
  EXPECT_TRUE(HasReturnPart(") = 0 <0.000012>"));                                // -T
  EXPECT_TRUE(HasReturnPart(R"x(AT_FDCWD, "/a = b", O_RDONLY) = 3</a = b>)x"));  // -yy
  EXPECT_FALSE(HasReturnPart(R"x(3, "roo)x"));                                   // cut mid-string
  EXPECT_FALSE(HasReturnPart(R"x(1, "x = 1", 7)x"));                             // cut before " = "
  // The limit of a cheap test: a cut string holding ") = " looks complete. Such a line
  // still fails ParseCallTail (no closing parenthesis) when its call is modelled.
  EXPECT_TRUE(HasReturnPart(R"x(1, "f(x) = 1)x"));
  EXPECT_FALSE(HasReturnPart(""));
  EXPECT_FALSE(HasReturnPart("3) ="));
  std::string_view failed = R"x("/x", O_RDONLY) = -1 ENOENT (No such file or directory))x";
  EXPECT_EQ(failed.substr(ReturnValueStart(failed), 2), "-1");
  std::string_view padded = "3)                          = 0";
  EXPECT_EQ(ReturnValueStart(padded), padded.size() - 1);
}

TEST(StraceLineTailTest, BareQuestionMarkReturn) {  // real
  CallTail t;
  ASSERT_TRUE(ParseCallTail("0)         = ?", &t));
  EXPECT_EQ(t.args, "0");
  EXPECT_TRUE(t.has_return);
  EXPECT_TRUE(t.return_unknown);
  EXPECT_EQ(t.ret_text, "?");
  EXPECT_TRUE(t.errno_name.empty());
  CallTail u;
  ASSERT_TRUE(ParseCallTail("0) = ? <unavailable>", &u));
  EXPECT_TRUE(u.return_unknown);
  EXPECT_TRUE(u.errno_name.empty());
}

TEST(StraceLineTailTest, HexReturn) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail(
      "NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f00", &t));
  EXPECT_EQ(t.ret, 0x7f00);
  EXPECT_EQ(t.ret_text, "0x7f00");
  CallTail f;
  ASSERT_TRUE(ParseCallTail("3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)", &f));
  EXPECT_EQ(f.ret, 0x8002);
  EXPECT_TRUE(f.errno_name.empty());
}

TEST(StraceLineTailTest, DecoratedReturn) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail(R"x(AT_FDCWD</tmp>, "x", O_RDONLY) = 3</etc/x>)x", &t));
  EXPECT_EQ(t.args, R"x(AT_FDCWD</tmp>, "x", O_RDONLY)x");
  EXPECT_EQ(t.ret, 3);
  EXPECT_EQ(t.ret_text, "3</etc/x>");
  EXPECT_TRUE(t.errno_name.empty());
}

TEST(StraceLineTailTest, DecoratedReturnWithSpacesInPath) {
  // The decoration is one token even with spaces; a word starting with E in the path is no errno.
  CallTail t;
  ASSERT_TRUE(ParseCallTail(R"x(AT_FDCWD, "/srv/My Emails", O_RDONLY) = 3</srv/My Emails>)x", &t));
  EXPECT_EQ(t.ret, 3);
  EXPECT_EQ(t.ret_text, "3</srv/My Emails>");
  EXPECT_TRUE(t.errno_name.empty());
}

TEST(StraceLineTailTest, NestedDeviceDecorationReturn) {  // real -yy -T
  CallTail t;
  ASSERT_TRUE(ParseCallTail(
      R"x(AT_FDCWD, "/dev/null", O_RDONLY) = 3</dev/null<char 1:3>> <0.000017>)x", &t));
  EXPECT_EQ(t.ret, 3);
  EXPECT_EQ(t.ret_text, "3</dev/null<char 1:3>>");
  EXPECT_TRUE(t.errno_name.empty());
}

TEST(StraceLineTailTest, RealVerboseDecoratedTimedLine) {  // real: -f -yy -X verbose -T -ttt
  LineHead h = ParseLineHead(
      R"x(26293 1795331147.836749 openat(-100 /* AT_FDCWD */</tmp/sx/a (b), c\74d\76e Ex>, "./out, x", 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0666) = 4</tmp/sx/a (b), c\74d\76e Ex/out, x> <0.000066>)x");
  ASSERT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 26293);
  EXPECT_EQ(h.name, "openat");
  CallTail t;
  ASSERT_TRUE(ParseCallTail(h.rest, &t));
  EXPECT_EQ(
      t.args,
      R"x(-100 /* AT_FDCWD */</tmp/sx/a (b), c\74d\76e Ex>, "./out, x", 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0666)x");
  EXPECT_EQ(t.ret, 4);
  EXPECT_EQ(t.ret_text, R"x(4</tmp/sx/a (b), c\74d\76e Ex/out, x>)x");
  EXPECT_TRUE(t.errno_name.empty());
}

TEST(StraceLineTailTest, RealVerboseFailedLookup) {  // real: -f -yy -X verbose -T -ttt
  LineHead h = ParseLineHead(
      R"x(26293 1795331147.837057 newfstatat(-100 /* AT_FDCWD */</tmp/sx/a (b), c\74d\76e Ex>, "/root/.cargo/bin/cat", 0x7ffd31f52ea0, 0) = -1 ENOENT (No such file or directory) <0.000014>)x");
  CallTail t;
  ASSERT_TRUE(ParseCallTail(h.rest, &t));
  EXPECT_EQ(t.ret, -1);
  EXPECT_EQ(t.errno_name, "ENOENT");
  EXPECT_TRUE(t.args.ends_with("\"/root/.cargo/bin/cat\", 0x7ffd31f52ea0, 0"));
}

TEST(StraceLineTailTest, RealTimedDecoratedTraceLines) {  // real: recorded with -ttt -T -yy
  LineHead h = ParseLineHead(
      R"x(192   1795331052.443022 newfstatat(0</dev/null<char 1:3>>, "", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}, AT_EMPTY_PATH) = 0 <0.000008>)x");
  ASSERT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 192);
  EXPECT_EQ(h.name, "newfstatat");
  CallTail t;
  ASSERT_TRUE(ParseCallTail(h.rest, &t));
  EXPECT_EQ(
      t.args,
      R"x(0</dev/null<char 1:3>>, "", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}, AT_EMPTY_PATH)x");
  EXPECT_EQ(t.ret, 0);
  EXPECT_EQ(t.ret_text, "0");

  LineHead p = ParseLineHead(
      "192   1795331074.611873 pipe2([5<pipe:[97452]>, 6<pipe:[97452]>], O_NONBLOCK|O_CLOEXEC) = 0 "
      "<0.000020>");
  ASSERT_TRUE(ParseCallTail(p.rest, &t));
  EXPECT_EQ(t.args, "[5<pipe:[97452]>, 6<pipe:[97452]>], O_NONBLOCK|O_CLOEXEC");

  LineHead u = ParseLineHead(
      "192   1795331075.275879 socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0) = 5<UNIX:[97576]> "
      "<0.000022>");
  ASSERT_TRUE(ParseCallTail(u.rest, &t));
  EXPECT_EQ(t.ret, 5);
  EXPECT_EQ(t.ret_text, "5<UNIX:[97576]>");

  LineHead r =
      ParseLineHead("192   1795331053.647604 <... rt_sigprocmask resumed>NULL, 8) = 0 <0.000027>");
  EXPECT_EQ(r.kind, LineKind::kResumed);
  EXPECT_EQ(r.name, "rt_sigprocmask");
  EXPECT_EQ(r.rest, "NULL, 8) = 0 <0.000027>");
  LineHead f = ParseLineHead(
      "197   1795331053.647537 rseq(0x7f37ff223fe0, 0x20, 0, 0x53053053 <unfinished ...>");
  EXPECT_EQ(f.kind, LineKind::kUnfinished);
  EXPECT_EQ(f.pid, 197);
  EXPECT_EQ(f.rest, "0x7f37ff223fe0, 0x20, 0, 0x53053053");
}

TEST(StraceLineTailTest, RealAcceptedSocketWithArrow) {  // real -yy
  LineHead h = ParseLineHead(
      R"x(26323 accept4(3<TCP:[127.0.0.1:40917]>, {sa_family=AF_INET, sin_port=htons(35058), sin_addr=inet_addr("127.0.0.1")}, [16], SOCK_CLOEXEC) = 5<TCP:[127.0.0.1:40917->127.0.0.1:35058]>)x");
  CallTail t;
  ASSERT_TRUE(ParseCallTail(h.rest, &t));
  EXPECT_EQ(t.ret, 5);
  EXPECT_EQ(t.ret_text, "5<TCP:[127.0.0.1:40917->127.0.0.1:35058]>");
  EXPECT_TRUE(t.args.ends_with("[16], SOCK_CLOEXEC"));
}

TEST(StraceLineTailTest, SocketDecoratedReturn) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail(
      "3<TCP:[1.2.3.4:22->5.6.7.8:99]>, NULL, NULL, 0) = 4<TCP:[10.0.0.1:22->10.0.0.2:5000]>", &t));
  EXPECT_EQ(t.args, "3<TCP:[1.2.3.4:22->5.6.7.8:99]>, NULL, NULL, 0");
  EXPECT_EQ(t.ret, 4);
  EXPECT_EQ(t.ret_text, "4<TCP:[10.0.0.1:22->10.0.0.2:5000]>");
}

TEST(StraceLineTailTest, DurationSuffix) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail("3) = 0 <0.000012>", &t));
  EXPECT_EQ(t.ret, 0);
  EXPECT_EQ(t.ret_text, "0");
  EXPECT_TRUE(t.errno_name.empty());
  CallTail e;
  ASSERT_TRUE(
      ParseCallTail(R"x(AT_FDCWD, "/x", R_OK) = -1 EACCES (Permission denied) <0.000031>)x", &e));
  EXPECT_EQ(e.ret, -1);
  EXPECT_EQ(e.errno_name, "EACCES");
  CallTail d;
  ASSERT_TRUE(ParseCallTail("AT_FDCWD, \"/x\", O_RDONLY) = 3</x> <0.000020>", &d));
  EXPECT_EQ(d.ret, 3);
  EXPECT_EQ(d.ret_text, "3</x>");
}

TEST(StraceLineTailTest, LargeReturnValue) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail("3, 0, SEEK_END) = 4294967296", &t));
  EXPECT_EQ(t.ret, 4294967296);
  ASSERT_TRUE(ParseCallTail("NULL, 4096, PROT_READ, MAP_PRIVATE, 3, 0) = 0xffffffffff600000", &t));
  EXPECT_EQ(static_cast<uint64_t>(t.ret), 0xffffffffff600000u);  // no overflow trap (UBSan)
}

TEST(StraceLineTailTest, NoReturnPart) {
  CallTail t;
  ASSERT_TRUE(ParseCallTail("3)", &t));
  EXPECT_EQ(t.args, "3");
  EXPECT_FALSE(t.has_return);
  CallTail g;
  ASSERT_TRUE(ParseCallTail("3) = garbage", &g));
  EXPECT_FALSE(g.has_return);
  CallTail n;
  EXPECT_FALSE(ParseCallTail("3, \"abc", &n));
}

TEST(StraceLineTailTest, ResumedJoinedText) {
  // What the assembler builds from `read(3, <unfinished ...>` and `<... read resumed>"...", 4096) =
  // 18`.
  CallTail t;
  ASSERT_TRUE(ParseCallTail(R"x(3, "/usr/bin/readlink\n", 4096) = 18)x", &t));
  EXPECT_EQ(t.args, R"x(3, "/usr/bin/readlink\n", 4096)x");
  EXPECT_EQ(t.ret, 18);
}

}  // namespace
}  // namespace fsmove::strace

namespace fsmove::strace {
namespace {

// The common shape (`PID  name(...)`) is read by a fast path; lines near its edges must read
// as the general parse reads them.
TEST(StraceLineHeadTest, CommonShapeAndItsNeighboursReadAlike) {
  LineHead h =
      ParseLineHead("193   readlink(\"/usr\", 0x7ffd, 4095) = -1 EINVAL (Invalid argument)");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 193);
  EXPECT_EQ(h.name, "readlink");
  EXPECT_EQ(h.rest, "\"/usr\", 0x7ffd, 4095) = -1 EINVAL (Invalid argument)");
  // Trailing blanks are not part of the call's text.
  EXPECT_EQ(ParseLineHead("7 close(3) = 0 \t\r").rest, "3) = 0");
  // Ten digits: past the fast path, still a pid when it fits.
  h = ParseLineHead("2147483647 close(3) = 0");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.pid, 2147483647);
  EXPECT_EQ(ParseLineHead("2147483648 close(3) = 0").kind, LineKind::kGarbage);
  // Ending in '>' after trailing blanks: the unfinished forms.
  h = ParseLineHead("12 wait4(-1,  <unfinished ...>  ");
  EXPECT_EQ(h.kind, LineKind::kUnfinished);
  EXPECT_EQ(h.rest, "-1,");
  h = ParseLineHead("12 execve(\"/bin/x\", [\"x\"], 0x7ffd /* 6 vars */ <pid changed to 40 ...>");
  EXPECT_EQ(h.kind, LineKind::kUnfinished);
  EXPECT_EQ(h.other_pid, 40);
  // A call ending in '>' that is none of them (a decorated return) is a call.
  h = ParseLineHead("12 openat(AT_FDCWD, \"/x\", O_RDONLY) = 3</x>");
  EXPECT_EQ(h.kind, LineKind::kCall);
  EXPECT_EQ(h.rest, "AT_FDCWD, \"/x\", O_RDONLY) = 3</x>");
  // Not a call: no '(' after the name, or an strace notice.
  EXPECT_EQ(ParseLineHead("12 close").kind, LineKind::kGarbage);
  EXPECT_EQ(ParseLineHead("12 strace: Process 13 attached").kind, LineKind::kNotice);
  EXPECT_EQ(ParseLineHead("12 ").kind, LineKind::kGarbage);
  EXPECT_EQ(ParseLineHead("12 --- SIGCHLD {si_signo=SIGCHLD} ---").kind, LineKind::kSignal);
  EXPECT_EQ(ParseLineHead("12 <... wait4 resumed>) = 13").kind, LineKind::kResumed);
  // Upper-case and digits inside a name, as the general parse allows.
  EXPECT_EQ(ParseLineHead("12 clone3({flags=CLONE_VM}, 88) = 13").name, "clone3");
}

// NameIndex remembers the names it looked up and recognises them at a line's start by their words;
// a line must read the same with it as without, and name the index the table gives.
int32_t FakeLookup(std::string_view name) {
  return name.empty() ? -1 : static_cast<int32_t>(name.size() * 100 + name[0]);
}

TEST(NameIndexTest, ALineReadsAsWithoutIt) {
  NameIndex names(&FakeLookup);
  const std::vector<std::string> lines = {
      "7     readlink(\"/usr\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     readlinkat(AT_FDCWD, \"/usr\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     readlink(\"/usr/lib\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     newfstatat(AT_FDCWD, \"/x\", {st_mode=S_IFREG|0644, ...}, 0) = 0",
      "7     read(3, \"\", 4096) = 0",
      "7     readv(3, [], 0) = 0",
      "7     re(1)",
      "7     close(3) = 0",
      "7     close(4)",
      "7     clos(4) = 0",
      "7     closer(4) = 0",
      "7     sched_get_priority_max(SCHED_FIFO) = 99",
      "7     sched_get_priority_min(SCHED_FIFO) = 1",
      "7     sched_get_priority_max(",
      "7     sched_get_priority_ma",
      "7     rt_sigprocmask(SIG_SETMASK, [], NULL, 8) = 0",
      "7     rt_sigprocmask",
      "7     wait4(-1,  <unfinished ...>",
      "7     <... wait4 resumed>) = 13",
      "[pid 8] readlink(\"/usr\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     Close(3) = 0",
      "7     _exit(0) = ?",
      "7     a(",
      "7     ab(",
      "7     abcdefg(",
      "7     abcdefgh(",
      "7     abcdefghijklmno(",
      "7     abcdefghijklmnop(",
      "7     abcdefghijklmnopq(",
  };
  for (int round = 0; round < 3; ++round) {  // remembered from the first round on
    for (const std::string& line : lines) {
      const LineHead plain = ParseLineHead(line);
      const LineHead h = ParseLineHead(line, &names);
      EXPECT_EQ(h.kind, plain.kind) << line;
      EXPECT_EQ(h.pid, plain.pid) << line;
      EXPECT_EQ(h.name, plain.name) << line;
      EXPECT_EQ(h.rest, plain.rest) << line;
      EXPECT_EQ(h.syscall, NamesSyscall(plain.kind) ? FakeLookup(plain.name) : -1) << line;
    }
  }
}

// The fast path's one-pass read of the common line gives what ParseLineHead and
// ReturnValueStart give it, and declines every other line.
TEST(ReadCommonCallTest, ReadsAsTheHeadAndReturnDo) {
  NameIndex names(&FakeLookup);
  const std::vector<std::string> lines = {
      "7     readlink(\"/usr\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     close(3)                          = 0",
      "12 newfstatat(AT_FDCWD, \"/x\", {st_mode=S_IFREG|0644, ...}, 0) = 0",
      "7     wait4(-1,  <unfinished ...>",
      "7     write(1, \"x\", 1strace: Process 8 attached",
      "7     close(3) = 0 ",
      "7     openat(AT_FDCWD, \"/a\", O_RDONLY",
      "7     close(",
      "[pid 8] close(3) = 0",
      "1234567890 close(3) = 0",
      "7     <... wait4 resumed>) = 13",
      // The pid column as the line before had it, then wider, narrower, another pid, a name
      // run and a name that starts like the last one.
      "7 read(3, \"\", 4096) = 0",
      "7 read(3, \"\", 4096) = 0",
      "7     read(3, \"\", 4096) = 0",
      "7 read(3, \"\", 4096) = 0",
      "8 readv(3, [], 0) = 0",
      "7     read(3, \"\", 4096) = 0",
      "1234567 read(3, \"\", 4096) = 0",
      "1234567 read(3, \"\", 4096) = 0",
      "1234568 read(3, \"\", 4096) = 0",
      "12345678 read(3, \"\", 4096) = 0",
      "12345678 read(3, \"\", 4096) = 0",
      "7     readlink(\"/usr\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     readlinkat(AT_FDCWD, \"/usr\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     readlink(\"/usr\", 0x7ffd, 1023) = -1 EINVAL (Invalid argument)",
      "7     read(3, \"\", 4096) = 0",
  };
  line_scan::PidColumnMemo pid_column;
  for (int round = 0; round < 2; ++round) {  // the names are known from the first round on
    for (const std::string& line : lines) {
      CommonCall call;
      const bool read = ReadCommonCall(line, &names, &pid_column, &call);
      const LineHead h = ParseLineHead(line, &names);
      const bool common = h.kind == LineKind::kCall && h.has_pid && !h.rest.empty() &&
                          h.rest.back() != 'd' && line.back() != ' ' &&
                          ReturnValueStart(h.rest) != std::string_view::npos;
      // Once every name is known, an -o line with a short pid is read exactly when common.
      if (round > 0 && line[0] == '7') {
        EXPECT_EQ(read, common) << line;
      }
      if (!read) continue;
      EXPECT_TRUE(common) << line;
      EXPECT_EQ(call.pid, h.pid) << line;
      EXPECT_EQ(call.name, h.name) << line;
      EXPECT_EQ(call.rest.data(), h.rest.data()) << line;
      EXPECT_EQ(call.rest.size(), h.rest.size()) << line;
      EXPECT_EQ(call.syscall, h.syscall) << line;
      EXPECT_EQ(call.return_at, ReturnValueStart(h.rest)) << line;
      EXPECT_EQ(call.returned_negative, h.rest[call.return_at] == '-') << line;
    }
  }
}

// More names than the index has room for: a name whose slot was taken is looked up again, and
// every line still names its own index.
TEST(NameIndexTest, ManyNamesEachKeepTheirIndex) {
  NameIndex names(&FakeLookup);
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 600; ++i) {
      const std::string name = "n" + std::to_string(i * 7919);
      const std::string line = "7     " + name + "(3, \"/x\", 4096) = 0";
      const LineHead h = ParseLineHead(line, &names);
      EXPECT_EQ(h.name, name);
      EXPECT_EQ(h.syscall, FakeLookup(name)) << line;
    }
  }
}

}  // namespace
}  // namespace fsmove::strace
