// Tests for CallAssembler: pairing of unfinished/resumed lines per pid, lifecycle lines, pid
// changes of a thread's execve, binding of the unprefixed first process, and unparsed lines.
#include "fsmove/strace/call_assembler.h"

#include <algorithm>
#include <string>
#include <vector>

#include "fsmove/fstrace/lowering.h"
#include "fsmove/strace/args.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::strace {
namespace {

using ::testing::ElementsAre;

// A SyscallEvent with its own copies of the text (the views die with the line).
struct RecordedCall {
  int32_t pid;
  std::string name;
  std::string rest;
  uint64_t line;
  uint64_t start_line;
  std::string returned;  // rest from return_at on
};

// Records every sink callback as one readable string, so tests can compare whole sequences.
class RecordingSink : public CallSink {
 public:
  void OnCallStarted(int32_t pid, std::string_view name, std::string_view partial,
                     uint64_t line) override {
    events.push_back("start " + std::to_string(pid) + " " + std::string(name) + "(" +
                     std::string(partial) + " @" + std::to_string(line));
  }
  void OnCall(const SyscallEvent& call) override {
    events.push_back("call " + std::to_string(call.pid) + " " + std::string(call.name) + "(" +
                     std::string(call.rest) + " @" + std::to_string(call.start_line) + "-" +
                     std::to_string(call.line));
    calls.push_back(
        {call.pid, std::string(call.name), std::string(call.rest), call.line, call.start_line,
         call.return_at == std::string_view::npos ? std::string("?")
                                                  : std::string(call.rest.substr(call.return_at))});
    call_texts.emplace_back(call.rest);
  }
  void OnProcessExit(int32_t pid, uint64_t line, int exit_status) override {
    events.push_back("exit " + std::to_string(pid) + " @" + std::to_string(line));
    exit_statuses.push_back(exit_status);
  }
  void OnPidRenamed(int32_t from, int32_t to, uint64_t line) override {
    events.push_back("rename " + std::to_string(from) + "->" + std::to_string(to) + " @" +
                     std::to_string(line));
  }
  void OnUnparsed(uint64_t line, std::string_view text, std::string_view reason) override {
    events.push_back("unparsed @" + std::to_string(line) + " [" + std::string(reason) + "] " +
                     std::string(text));
  }

  std::vector<std::string> events;
  std::vector<int> exit_statuses;
  std::vector<RecordedCall> calls;
  std::vector<std::string> call_texts;
};

std::string N(int v) { return std::to_string(v); }

struct Harness {
  RecordingSink sink;
  CallAssembler assembler{&sink, &fstrace::CreatesProcess};
  uint64_t line = 0;
  void Feed(std::string_view text) { assembler.Feed(text, ++line); }
  void FeedAll(std::initializer_list<std::string_view> lines) {
    for (std::string_view l : lines) Feed(l);
  }
};

TEST(CallAssemblerTest, CompleteCallPassesThrough) {  // real
  Harness h;
  h.Feed(R"x(190   openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3)x");
  EXPECT_THAT(
      h.sink.events,
      ElementsAre(
          R"x(call 190 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3 @1-1)x"));
  EXPECT_EQ(h.assembler.stats().calls, 1u);
  EXPECT_EQ(h.assembler.stats().split_calls, 0u);
}

TEST(CallAssemblerTest, UnfinishedAndResumedAreJoined) {  // real
  Harness h;
  h.FeedAll({"289   close(3 <unfinished ...>", "291   dup2(3, 0 <unfinished ...>",
             "289   <... close resumed>)              = 0"});
  EXPECT_THAT(h.sink.events, ElementsAre("start 289 close(3 @1", "start 291 dup2(3, 0 @2",
                                         "call 289 close(3 )              = 0 @1-3"));
  ASSERT_EQ(h.sink.calls.size(), 1u);
  CallTail tail;
  ASSERT_TRUE(ParseCallTail(h.sink.call_texts[0], &tail));
  EXPECT_EQ(tail.args, "3 ");
  EXPECT_EQ(tail.ret, 0);
  EXPECT_EQ(h.assembler.stats().split_calls, 1u);
  h.assembler.Finish();
  EXPECT_EQ(h.assembler.stats().pending_at_end, 1u);  // dup2 never resumed
}

TEST(CallAssemblerTest, ArgumentsTheSinkNeverReadsAreNotKept) {
  RecordingSink sink;
  CallAssembler assembler(&sink, &fstrace::CreatesProcess);
  assembler.set_args_unused([](int32_t syscall) { return syscall == 7; });  // 7: "read"
  auto feed = [&assembler](std::string_view text, int32_t syscall, uint64_t line) {
    LineHead head = ParseLineHead(text);
    head.syscall = syscall;
    assembler.Feed(head, text, line);
  };
  feed("289   read(5,  <unfinished ...>", 7, 1);
  feed("290   close(3 <unfinished ...>", 8, 2);
  feed(R"x(289   <... read resumed>"\177ELF\2\1\1", 832) = 832)x", 7, 3);
  feed("290   <... close resumed>) = 0", 8, 4);
  // The sink still sees each start whole; the read's resumed half comes alone, its return
  // value found in it.
  EXPECT_THAT(sink.events, ElementsAre("start 289 read(5, @1", "start 290 close(3 @2",
                                       R"x(call 289 read("\177ELF\2\1\1", 832) = 832 @1-3)x",
                                       "call 290 close(3 ) = 0 @2-4"));
  ASSERT_EQ(sink.calls.size(), 2u);
  EXPECT_EQ(sink.calls[0].returned, "832");
  EXPECT_EQ(assembler.stats().split_calls, 2u);
  // Never resumed: said without the arguments it did not keep.
  feed("291   read(6,  <unfinished ...>", 7, 5);
  feed("291   read(7,  <unfinished ...>", 7, 6);
  EXPECT_THAT(sink.events[sink.events.size() - 2],
              ::testing::HasSubstr("] read(... <unfinished ...>"));
}

TEST(CallAssemblerTest, ResumedTextCarriesTheRemainingArguments) {  // real
  Harness h;
  h.FeedAll(
      {R"x(289   newfstatat(AT_FDCWD, "/usr/sbin/cut",  <unfinished ...>)x",
       "289   <... newfstatat resumed>0x7ffc65b748f0, 0) = -1 ENOENT (No such file or directory)"});
  ASSERT_EQ(h.sink.call_texts.size(), 1u);
  EXPECT_EQ(
      h.sink.call_texts[0],
      R"x(AT_FDCWD, "/usr/sbin/cut", 0x7ffc65b748f0, 0) = -1 ENOENT (No such file or directory))x");
  CallTail tail;
  ASSERT_TRUE(ParseCallTail(h.sink.call_texts[0], &tail));
  ArgList args(tail.args);
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args[1], "\"/usr/sbin/cut\"");
  EXPECT_EQ(args[2], "0x7ffc65b748f0");
  EXPECT_EQ(tail.errno_name, "ENOENT");
}

TEST(CallAssemblerTest, SplitClone3KeepsStructAndOutput) {  // real
  Harness h;
  h.FeedAll(
      {"190   clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, "
       "child_tid=0x7fa07f375990, exit_signal=0, stack=0x7fa07f175000, stack_size=0x1fff80, "
       "tls=0x7fa07f3756c0} <unfinished ...>",
       "198   +++ exited with 0 +++",
       "190   <... clone3 resumed> => {parent_tid=[198]}, 88) = 198"});
  ASSERT_EQ(h.sink.calls.size(), 1u);
  EXPECT_EQ(h.sink.calls[0].pid, 190);
  EXPECT_EQ(h.sink.calls[0].name, "clone3");
  EXPECT_EQ(h.sink.calls[0].start_line, 1u);
  EXPECT_EQ(h.sink.calls[0].line, 3u);
  CallTail tail;
  ASSERT_TRUE(ParseCallTail(h.sink.call_texts[0], &tail));
  EXPECT_EQ(tail.ret, 198);
  ArgList args(tail.args);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(StructField(args[0], "flags"),
            "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD");
  EXPECT_EQ(args[1], "88");
}

TEST(CallAssemblerTest, HundredInterleavedProcesses) {
  Harness h;
  for (int pid = 1000; pid < 1100; ++pid) {
    h.Feed(N(pid) + "  openat(AT_FDCWD, \"/f/" + N(pid) + "\", O_RDONLY <unfinished ...>");
  }
  for (int pid = 1099; pid >= 1000; --pid) {
    h.Feed(N(pid) + "  <... openat resumed>) = " + N(pid - 997));
  }
  ASSERT_EQ(h.sink.calls.size(), 100u);
  for (int k = 0; k < 100; ++k) {
    int pid = 1099 - k;
    const RecordedCall& c = h.sink.calls[k];
    EXPECT_EQ(c.pid, pid);
    EXPECT_EQ(c.name, "openat");
    EXPECT_EQ(h.sink.call_texts[k],
              "AT_FDCWD, \"/f/" + N(pid) + "\", O_RDONLY ) = " + N(pid - 997));
    EXPECT_EQ(c.start_line, static_cast<uint64_t>(pid - 1000 + 1));
    EXPECT_EQ(c.line, static_cast<uint64_t>(101 + k));
  }
  EXPECT_EQ(h.assembler.stats().split_calls, 100u);
  EXPECT_EQ(h.assembler.stats().unparsed, 0u);
  h.assembler.Finish();
  EXPECT_EQ(h.assembler.stats().pending_at_end, 0u);
}

TEST(CallAssemblerTest, ResumedWithoutStartIsUnparsed) {
  Harness h;
  h.Feed("290   <... close resumed>)              = 0");
  EXPECT_THAT(h.sink.events, ElementsAre("unparsed @1 [resumed call without its start] 290   <... "
                                         "close resumed>)              = 0"));
  EXPECT_EQ(h.assembler.stats().unparsed, 1u);
  EXPECT_EQ(h.assembler.stats().calls, 0u);
}

TEST(CallAssemblerTest, ResumedWithAnotherNameIsUnparsedAndKeepsTheStart) {
  Harness h;
  h.FeedAll({"5 read(3,  <unfinished ...>", "5 <... write resumed>) = 1",
             "5 <... read resumed>\"x\", 10) = 1"});
  EXPECT_THAT(h.sink.events,
              ElementsAre("start 5 read(3, @1",
                          "unparsed @2 [resumed call without its start] 5 <... write resumed>) = 1",
                          "call 5 read(3, \"x\", 10) = 1 @1-3"));
}

TEST(CallAssemblerTest, SecondUnfinishedCallReportsTheFirst) {
  Harness h;
  h.FeedAll(
      {"5 read(3,  <unfinished ...>", "5 close(4 <unfinished ...>", "5 <... close resumed>) = 0"});
  EXPECT_THAT(h.sink.events,
              ElementsAre("start 5 read(3, @1",
                          "unparsed @1 [unfinished call never resumed (the same process started "
                          "another call)] read(3, <unfinished ...>",
                          "start 5 close(4 @2", "call 5 close(4 ) = 0 @2-3"));
}

// A daemon an init script started exits with 1 (haveged in the sixth sample); one killed at the
// sandbox's end has no status.
TEST(CallAssemblerTest, ExitStatusesReachTheSink) {  // real shapes
  Harness h;
  h.FeedAll({"1412  +++ exited with 1 +++", "[pid  1235] +++ exited with 0 +++",
             "1500  +++ killed by SIGKILL +++", "1501  +++ exited with 255 +++"});
  EXPECT_EQ(h.sink.exit_statuses, (std::vector<int>{1, 0, -1, 255}));
}

TEST(CallAssemblerTest, ExitDropsThePendingCall) {  // real shape
  Harness h;
  h.FeedAll({"290   exit_group(0 <unfinished ...>", "290   +++ exited with 0 +++",
             "290   <... exit_group resumed>)         = ?"});
  EXPECT_THAT(h.sink.events, ElementsAre("start 290 exit_group(0 @1", "exit 290 @2",
                                         "unparsed @3 [resumed call without its start] 290   <... "
                                         "exit_group resumed>)         = ?"));
  EXPECT_EQ(h.assembler.stats().exits, 1u);
  EXPECT_EQ(h.assembler.stats().abandoned_unfinished, 1u);
}

TEST(CallAssemblerTest, KilledProcessExits) {
  Harness h;
  h.FeedAll({"[pid 7] wait4(-1,  <unfinished ...>", "[pid 7] +++ killed by SIGKILL +++"});
  EXPECT_THAT(h.sink.events, ElementsAre("start 7 wait4(-1, @1", "exit 7 @2"));
  EXPECT_EQ(h.assembler.stats().abandoned_unfinished, 1u);
  h.assembler.Finish();
  EXPECT_EQ(h.assembler.stats().pending_at_end, 0u);
}

TEST(CallAssemblerTest, ThreadExecveWithPidChangedResumesUnderTheLeader) {  // strace 6.1 shape
  Harness h;
  h.FeedAll(
      {"17163 futex(0x7f2a1c0009d0, FUTEX_WAIT, 17176, NULL <unfinished ...>",
       R"x(17176 execve("/bin/true", ["/bin/true"], 0x7ffd2ee1a0b8 /* 25 vars */ <pid changed to 17163 ...>)x",
       "17163 +++ superseded by execve in pid 17176 +++",
       "17163 <... execve resumed>)             = 0", "17163 exit_group(0)                     = ?",
       "17163 +++ exited with 0 +++"});
  EXPECT_THAT(
      h.sink.events,
      ElementsAre(
          "start 17163 futex(0x7f2a1c0009d0, FUTEX_WAIT, 17176, NULL @1",
          R"x(start 17176 execve("/bin/true", ["/bin/true"], 0x7ffd2ee1a0b8 /* 25 vars */ @2)x",
          "rename 17176->17163 @3",
          R"x(call 17163 execve("/bin/true", ["/bin/true"], 0x7ffd2ee1a0b8 /* 25 vars */ )             = 0 @2-4)x",
          "call 17163 exit_group(0)                     = ? @5-5", "exit 17163 @6"));
  EXPECT_EQ(h.assembler.stats().abandoned_unfinished, 1u);  // the leader's futex
  EXPECT_EQ(h.assembler.stats().unparsed, 0u);
}

TEST(CallAssemblerTest, ThreadExecveWithoutSupersededNotice) {  // real: strace -f -qqq
  Harness h;
  h.FeedAll(
      {R"x(19797 execve("/usr/bin/python3", ["python3", "thr.py"], 0x55ace5bf4fc0 /* 40 vars */) = 0)x",
       "19797 futex(0x7f2a1c0009d0, FUTEX_WAIT, 19849, NULL <unfinished ...>",
       R"x(19849 execve("/bin/true", ["/bin/true"], 0x7ffcdf9f1f20 /* 40 vars */ <pid changed to 19797 ...>)x",
       "19797 <... execve resumed>)             = 0",
       "19797 exit_group(0)                     = ?"});
  EXPECT_THAT(
      h.sink.events,
      ElementsAre(
          R"x(call 19797 execve("/usr/bin/python3", ["python3", "thr.py"], 0x55ace5bf4fc0 /* 40 vars */) = 0 @1-1)x",
          "start 19797 futex(0x7f2a1c0009d0, FUTEX_WAIT, 19849, NULL @2",
          R"x(start 19849 execve("/bin/true", ["/bin/true"], 0x7ffcdf9f1f20 /* 40 vars */ @3)x",
          "rename 19849->19797 @4",
          R"x(call 19797 execve("/bin/true", ["/bin/true"], 0x7ffcdf9f1f20 /* 40 vars */ )             = 0 @3-4)x",
          "call 19797 exit_group(0)                     = ? @5-5"));
  EXPECT_EQ(h.assembler.stats().unparsed, 0u);
  EXPECT_EQ(h.assembler.stats().abandoned_unfinished, 1u);
}

TEST(CallAssemblerTest, ThreadExecveWithUnfinishedMarker) {
  Harness h;
  h.FeedAll({"[pid 501] execve(\"/bin/sh\", [\"sh\"], 0x55 /* 6 vars */ <unfinished ...>",
             "[pid 500] +++ superseded by execve in pid 501 +++",
             "[pid 500] <... execve resumed>) = 0"});
  ASSERT_EQ(h.sink.calls.size(), 1u);
  EXPECT_EQ(h.sink.calls[0].pid, 500);
  EXPECT_EQ(h.sink.call_texts[0], "\"/bin/sh\", [\"sh\"], 0x55 /* 6 vars */ ) = 0");
  EXPECT_EQ(h.sink.events[1], "rename 501->500 @2");
}

TEST(CallAssemblerTest, SupersededMovesThePendingExecveWhileTheTableGrows) {
  // Moving a pending call to a new key may grow the table; the moved call must survive it
  // whatever the number of other calls in flight.
  for (int others = 0; others < 40; ++others) {
    Harness h;
    for (int k = 0; k < others; ++k) h.Feed(N(3000 + k) + " read(0,  <unfinished ...>");
    h.Feed("[pid 501] execve(\"/bin/sh\", [\"sh\", \"-c\", \"x" + N(others) +
           "\"], 0x55 /* 6 vars */ <unfinished ...>");
    h.Feed("[pid 500] +++ superseded by execve in pid 501 +++");
    h.Feed("[pid 500] <... execve resumed>) = 0");
    ASSERT_EQ(h.sink.calls.size(), 1u) << others;
    EXPECT_EQ(h.sink.calls[0].pid, 500);
    EXPECT_EQ(h.sink.calls[0].rest,
              "\"/bin/sh\", [\"sh\", \"-c\", \"x" + N(others) + "\"], 0x55 /* 6 vars */ ) = 0");
    EXPECT_EQ(h.sink.calls[0].start_line, static_cast<uint64_t>(others + 1));
    h.assembler.Finish();
    EXPECT_EQ(h.assembler.stats().pending_at_end, static_cast<uint64_t>(others));
  }
}

TEST(CallAssemblerTest, UnprefixedFirstProcessBoundAfterCompleteClone) {
  Harness h;
  h.FeedAll({"execve(\"/usr/bin/puppet\", [\"puppet\"], 0x7ffe /* 6 vars */) = 0",
             "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
             "child_tidptr=0x7f) = 1235",
             "[pid  1235] execve(\"/bin/sh\", [\"sh\"], 0x55 /* 6 vars */) = 0",
             "[pid  1234] wait4(-1,  <unfinished ...>", "[pid  1235] exit_group(0) = ?",
             "[pid  1235] +++ exited with 0 +++",
             "<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 1235",
             "close(3) = 0"});
  EXPECT_THAT(
      h.sink.events,
      ElementsAre(
          "call 0 execve(\"/usr/bin/puppet\", [\"puppet\"], 0x7ffe /* 6 vars */) = 0 @1-1",
          "call 0 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|"
          "SIGCHLD, child_tidptr=0x7f) = 1235 @2-2",
          "call 1235 execve(\"/bin/sh\", [\"sh\"], 0x55 /* 6 vars */) = 0 @3-3",
          "rename 0->1234 @4", "start 1234 wait4(-1, @4", "call 1235 exit_group(0) = ? @5-5",
          "exit 1235 @6",
          "call 1234 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 1235 @4-7",
          "call 1234 close(3) = 0 @8-8"));
}

TEST(CallAssemblerTest, UnprefixedFirstProcessBoundWhenItResumesItsClone) {
  Harness h;
  h.FeedAll({"vfork( <unfinished ...>",
             "[pid  1235] execve(\"/bin/true\", [\"true\"], 0x55 /* 6 vars */) = 0",
             "[pid  1234] <... vfork resumed>) = 1235", "[pid  1235] +++ exited with 0 +++",
             "close(3) = 0"});
  EXPECT_THAT(h.sink.events,
              ElementsAre("start 0 vfork( @1",
                          "call 1235 execve(\"/bin/true\", [\"true\"], 0x55 /* 6 vars */) = 0 @2-2",
                          "rename 0->1234 @3", "call 1234 vfork( ) = 1235 @1-3", "exit 1235 @4",
                          "call 1234 close(3) = 0 @5-5"));
  EXPECT_EQ(h.assembler.stats().unparsed, 0u);
}

TEST(CallAssemblerTest, PrefixedTraceNeverRenames) {
  Harness h;
  h.FeedAll({"190   clone(child_stack=NULL, flags=SIGCHLD, child_tidptr=0x7f) = 191",
             "191   execve(\"/bin/sh\", [\"sh\"], 0x55 /* 6 vars */) = 0", "192   close(3) = 0"});
  for (const std::string& e : h.sink.events) EXPECT_FALSE(e.starts_with("rename")) << e;
  ASSERT_EQ(h.sink.calls.size(), 3u);
  EXPECT_EQ(h.sink.calls[2].pid, 192);
}

TEST(CallAssemblerTest, RealInterleavedSnippet) {  // real, including a restarted clone
  Harness h;
  h.FeedAll({
      "290   close(4 <unfinished ...>",
      R"x(289   newfstatat(AT_FDCWD, "/usr/sbin/cut",  <unfinished ...>)x",
      "290   <... close resumed>)              = 0",
      "289   <... newfstatat resumed>0x7ffc65b748f0, 0) = -1 ENOENT (No such file or directory)",
      R"x(290   write(1, "debian", 6 <unfinished ...>)x",
      R"x(289   newfstatat(AT_FDCWD, "/usr/bin/cut",  <unfinished ...>)x",
      "290   <... write resumed>)              = 6",
      "289   <... newfstatat resumed>{st_mode=S_IFREG|0755, st_size=48112, ...}, 0) = 0",
      "290   exit_group(0 <unfinished ...>",
      "289   clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD "
      "<unfinished ...>",
      "290   <... exit_group resumed>)         = ?",
      "290   +++ exited with 0 +++",
      "289   <... clone resumed>, child_tidptr=0x7ffab165ca10) = ? ERESTARTNOINTR (To be "
      "restarted)",
      "289   --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=290, si_uid=0, si_status=0, "
      "si_utime=0, si_stime=0} ---",
      "289   clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
      "child_tidptr=0x7ffab165ca10) = 291",
  });
  ASSERT_EQ(h.sink.calls.size(), 7u);
  std::vector<std::string> names;
  for (const RecordedCall& c : h.sink.calls) names.push_back(c.name);
  EXPECT_THAT(names, ElementsAre("close", "newfstatat", "write", "newfstatat", "exit_group",
                                 "clone", "clone"));
  EXPECT_EQ(h.sink.call_texts[3],
            R"x(AT_FDCWD, "/usr/bin/cut", {st_mode=S_IFREG|0755, st_size=48112, ...}, 0) = 0)x");
  CallTail restarted;
  ASSERT_TRUE(ParseCallTail(h.sink.call_texts[5], &restarted));
  EXPECT_TRUE(restarted.return_unknown);
  EXPECT_EQ(restarted.errno_name, "ERESTARTNOINTR");
  EXPECT_EQ(ArgList(restarted.args).Named("flags"),
            "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
  EXPECT_EQ(ArgList(restarted.args).Named("child_tidptr"), "0x7ffab165ca10");
  EXPECT_EQ(h.sink.calls[5].start_line, 10u);
  EXPECT_EQ(h.sink.calls[5].line, 13u);
  const AssemblerStats& s = h.assembler.stats();
  EXPECT_EQ(s.calls, 7u);
  EXPECT_EQ(s.split_calls, 6u);
  EXPECT_EQ(s.signals, 1u);
  EXPECT_EQ(s.exits, 1u);
  EXPECT_EQ(s.unparsed, 0u);
  EXPECT_EQ(s.abandoned_unfinished, 0u);
}

TEST(CallAssemblerTest, StderrNoticeSplicedBeforeUnfinishedVfork) {  // real: strace -f 2>file
  Harness h;
  h.FeedAll({
      R"x(execve("/usr/bin/sh", ["sh", "-c", "/bin/true; /bin/true"], 0x7fff7c7b7868 /* 37 vars */) = 0)x",
      "close(3)                                = 0",
      "vfork(strace: Process 20638 attached",
      " <unfinished ...>",
      R"x([pid 20638] execve("/bin/true", ["/bin/true"], 0x560f22828b38 /* 37 vars */ <unfinished ...>)x",
      "[pid 20637] <... vfork resumed>)        = 20638",
      "[pid 20638] <... execve resumed>)       = 0",
      "[pid 20637] wait4(-1,  <unfinished ...>",
      "[pid 20638] exit_group(0)               = ?",
      "[pid 20638] +++ exited with 0 +++",
      "<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 20638",
      "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=20638, si_uid=0, si_status=0, "
      "si_utime=0, si_stime=0} ---",
      "wait4(-1, 0x7ffdf07afb8c, WNOHANG, NULL) = -1 ECHILD (No child processes)",
      "vfork(strace: Process 20639 attached",
      " <unfinished ...>",
      R"x([pid 20639] execve("/bin/true", ["/bin/true"], 0x560f22828b38 /* 37 vars */ <unfinished ...>)x",
      "[pid 20637] <... vfork resumed>)        = 20639",
  });
  EXPECT_THAT(
      h.sink.events,
      ElementsAre(
          R"x(call 0 execve("/usr/bin/sh", ["sh", "-c", "/bin/true; /bin/true"], 0x7fff7c7b7868 /* 37 vars */) = 0 @1-1)x",
          "call 0 close(3)                                = 0 @2-2", "start 0 vfork( @3",
          R"x(start 20638 execve("/bin/true", ["/bin/true"], 0x560f22828b38 /* 37 vars */ @5)x",
          "rename 0->20637 @6", "call 20637 vfork( )        = 20638 @3-6",
          R"x(call 20638 execve("/bin/true", ["/bin/true"], 0x560f22828b38 /* 37 vars */ )       = 0 @5-7)x",
          "start 20637 wait4(-1, @8", "call 20638 exit_group(0)               = ? @9-9",
          "exit 20638 @10",
          "call 20637 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 20638 @8-11",
          "call 20637 wait4(-1, 0x7ffdf07afb8c, WNOHANG, NULL) = -1 ECHILD (No child processes) "
          "@13-13",
          "start 20637 vfork( @14",
          R"x(start 20639 execve("/bin/true", ["/bin/true"], 0x560f22828b38 /* 37 vars */ @16)x",
          "call 20637 vfork( )        = 20639 @14-17"));
  EXPECT_EQ(h.assembler.stats().unparsed, 0u);
  EXPECT_EQ(h.assembler.stats().notices, 2u);
}

TEST(CallAssemblerTest, StderrNoticeSplicedInsideClone3) {  // real: strace -f 2>file, python thread
  Harness h;
  h.FeedAll({
      "clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
      "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f504f91a990, "
      "parent_tid=0x7f504f91a990, exit_signal=0, stack=0x7f504f11a000, stack_size=0x7fff80, "
      "tls=0x7f504f91a6c0}strace: Process 20685 attached",
      " => {parent_tid=[20685]}, 88) = 20685",
      R"x([pid 20685] execve("/bin/true", ["/bin/true"], 0x7ffe0c6f63e0 /* 40 vars */ <pid changed to 20644 ...>)x",
      "+++ superseded by execve in pid 20685 +++",
      "<... execve resumed>)                   = 0",
      "exit_group(0)                           = ?",
      "+++ exited with 0 +++",
  });
  ASSERT_EQ(h.sink.calls.size(), 3u);
  EXPECT_EQ(h.sink.calls[0].pid, kImplicitPid);
  EXPECT_EQ(h.sink.calls[0].name, "clone3");
  EXPECT_EQ(h.sink.calls[0].start_line, 1u);
  EXPECT_EQ(h.sink.calls[0].line, 2u);
  CallTail tail;
  ASSERT_TRUE(ParseCallTail(h.sink.calls[0].rest, &tail));
  EXPECT_EQ(tail.ret, 20685);
  ArgList args(tail.args);
  EXPECT_EQ(StructField(args[0], "tls"), "0x7f504f91a6c0");
  EXPECT_EQ(args[1], "88");
  EXPECT_EQ(h.sink.calls[1].pid, kImplicitPid);  // the thread's execve, now the leader's
  EXPECT_EQ(h.sink.calls[1].name, "execve");
  EXPECT_EQ(h.sink.calls[1].start_line, 3u);
  EXPECT_EQ(h.assembler.stats().unparsed, 0u);
  EXPECT_EQ(h.assembler.stats().notices, 1u);
  EXPECT_NE(std::find(h.sink.events.begin(), h.sink.events.end(), "rename 20685->0 @4"),
            h.sink.events.end());
}

TEST(CallAssemblerTest, StderrNoticeSplicedInsideWait4) {  // real: strace -f 2>file, subshell
  Harness h;
  h.FeedAll({
      "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
      "child_tidptr=0x7fdd86d6ba10) = 21625",
      "wait4(-1, strace: Process 21625 attached",
      " <unfinished ...>",
      "[pid 21625] exit_group(0)               = ?",
      "[pid 21625] +++ exited with 0 +++",
      "<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 21625",
  });
  EXPECT_THAT(
      h.sink.events,
      ElementsAre(
          "call 0 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|"
          "SIGCHLD, child_tidptr=0x7fdd86d6ba10) = 21625 @1-1",
          "start 0 wait4(-1, @2", "call 21625 exit_group(0)               = ? @4-4",
          "exit 21625 @5",
          "call 0 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 21625 @2-6"));
}

TEST(CallAssemblerTest, SplicedNoticeWithTheRestOfTheCallOnTheNextLine) {
  Harness h;
  h.FeedAll({"[pid 5] read(3, strace: Process 9 attached", "strace: Process 10 attached",
             "\"abc\", 10) = 3"});
  EXPECT_THAT(h.sink.events, ElementsAre("call 5 read(3, \"abc\", 10) = 3 @1-3"));
  EXPECT_EQ(h.assembler.stats().notices, 2u);
  EXPECT_EQ(h.assembler.stats().calls, 1u);
}

TEST(CallAssemblerTest, SplicedCallNeverContinuedIsUnparsed) {
  Harness h;
  h.FeedAll({"[pid 5] vfork(strace: Process 9 attached", "[pid 9] close(3) = 0"});
  EXPECT_THAT(
      h.sink.events,
      ElementsAre("unparsed @1 [call interrupted by an strace notice, never continued] vfork(",
                  "call 9 close(3) = 0 @2-2"));
  h.assembler.Finish();
  EXPECT_EQ(h.assembler.stats().pending_at_end, 0u);
}

TEST(CallAssemblerTest, DetachedCallsAreLeftPending) {  // real: the end of a trace
  Harness h;
  h.FeedAll(
      {"387   <... clock_nanosleep resumed>NULL) = 0", "378   epoll_wait(3,  <unfinished ...>",
       "387   clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=923648000},  <detached ...>",
       "378   <... epoll_wait resumed> <detached ...>"});
  EXPECT_EQ(h.sink.calls.size(), 0u);
  EXPECT_EQ(h.sink.events[1], "start 378 epoll_wait(3, @2");
  EXPECT_EQ(h.sink.events[2],
            "start 387 clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=923648000}, @3");
  EXPECT_EQ(h.sink.events.size(), 3u);  // the first line is a resume without start
  h.assembler.Finish();
  EXPECT_EQ(h.assembler.stats().pending_at_end, 2u);
}

TEST(CallAssemblerTest, SignalsAndNoticesAreCountedNotForwarded) {
  Harness h;
  h.FeedAll({"[pid 77] --- stopped by SIGSTOP ---", "--- SIGCHLD {si_signo=SIGCHLD} ---",
             "strace: Process 28772 attached", "[ Process PID=28772 runs in 32 bit mode. ]"});
  EXPECT_TRUE(h.sink.events.empty());
  EXPECT_EQ(h.assembler.stats().signals, 2u);
  EXPECT_EQ(h.assembler.stats().notices, 2u);
}

TEST(CallAssemblerTest, BlankAndGarbageLinesAreUnparsed) {
  Harness h;
  h.FeedAll({"", "    ", "Notice: Applied catalog in 0.02 seconds", std::string_view("\0\xff", 2),
             "[pid x] close(3) = 0"});
  EXPECT_THAT(
      h.sink.events,
      ElementsAre("unparsed @1 [empty line] ", "unparsed @2 [empty line]     ",
                  "unparsed @3 [not a system call line] Notice: Applied catalog in 0.02 seconds",
                  std::string("unparsed @4 [not a system call line] ") + std::string("\0\xff", 2),
                  "unparsed @5 [malformed [pid N] prefix] [pid x] close(3) = 0"));
  EXPECT_EQ(h.assembler.stats().unparsed, 5u);
}

TEST(CallAssemblerTest, UnknownSyscallIsACall) {
  Harness h;
  h.Feed("12 syscall_0x1b6(0x1, 0x2) = -1 ENOSYS (Function not implemented)");
  ASSERT_EQ(h.sink.calls.size(), 1u);
  EXPECT_EQ(h.sink.calls[0].name, "syscall_0x1b6");
  EXPECT_EQ(h.sink.call_texts[0], "0x1, 0x2) = -1 ENOSYS (Function not implemented)");
}

TEST(CallAssemblerTest, FeedWithParsedHeadMatchesFeedWithText) {
  Harness h;
  std::string_view line = "12 <... read resumed>\"ab\", 2) = 2";
  h.assembler.Feed(ParseLineHead("12 read(3,  <unfinished ...>"), "12 read(3,  <unfinished ...>",
                   40);
  h.assembler.Feed(ParseLineHead(line), line, 41);
  EXPECT_THAT(h.sink.events,
              ElementsAre("start 12 read(3, @40", "call 12 read(3, \"ab\", 2) = 2 @40-41"));
}

TEST(CallAssemblerTest, FinishCountsCallsStillPending) {
  Harness h;
  h.FeedAll({"1 read(0,  <unfinished ...>", "2 wait4(-1,  <unfinished ...>", "3 close(3) = 0"});
  h.assembler.Finish();
  EXPECT_EQ(h.assembler.stats().pending_at_end, 2u);
  EXPECT_EQ(h.assembler.stats().calls, 1u);
}

// The assembler hands on where the return value starts (it checked the line is whole), for
// the analyzer's cheap failed-call test; for a resumed call, inside the joined text.
TEST(CallAssemblerTest, ReturnValuePosition) {
  RecordingSink sink;
  CallAssembler a(&sink, &fstrace::CreatesProcess);
  a.Feed("100 close(3)                          = 0", 1);
  a.Feed("100 readlink(\"/a\",  <unfinished ...>", 2);
  a.Feed("101 openat(AT_FDCWD, \"/x = y\", O_RDONLY) = -1 ENOENT (No such file or directory)", 3);
  a.Feed("100 <... readlink resumed>\"b = c\", 4096) = 5", 4);
  a.Finish();
  ASSERT_EQ(sink.calls.size(), 3u);
  EXPECT_EQ(sink.calls[0].returned, "0");
  EXPECT_EQ(sink.calls[1].returned, "-1 ENOENT (No such file or directory)");
  EXPECT_EQ(sink.calls[2].rest, "\"/a\", \"b = c\", 4096) = 5");
  EXPECT_EQ(sink.calls[2].returned, "5");
}

}  // namespace
}  // namespace fsmove::strace
