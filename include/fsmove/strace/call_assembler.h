// Turns strace lines into whole system calls: pairs `<unfinished ...>` with `<... resumed>`
// per pid (any number interleaved), follows pid changes of a thread's execve, rejoins calls
// that strace's own "Process N attached" notice split in two (strace -f to stderr), and
// reports process exits and lines it could not understand. Arguments are not decoded here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fsmove/strace/strace_line.h"

namespace fsmove::strace {

// The pid given to lines printed without a pid prefix (strace tracing a single process),
// until the process shows its real pid.
inline constexpr int32_t kImplicitPid = 0;

struct SyscallEvent {
  int32_t pid = 0;
  std::string_view name;
  // Arguments and return part, as printed after "NAME(": feed it to ParseCallTail. For a
  // resumed call it is the start's arguments joined with the resumed text (the resumed text
  // alone for a call whose arguments the assembler was told are unused: ArgsUnusedFn).
  std::string_view rest;
  uint64_t line = 0;        // the line where the call completed
  uint64_t start_line = 0;  // the line where it started (== line unless it was split)
  // Where the return value starts in `rest` (ReturnValueStart, already found to check the
  // line is whole), or npos when not known.
  size_t return_at = std::string_view::npos;
  // From LineHead (-1: unknown): the name's index in the caller's syscall table, and whether
  // the return value is negative.
  int32_t syscall = -1;
  int8_t returned_negative = -1;
  // A whole call's arguments as LineHead::split gave them (split from `rest`), or null.
  const uint32_t* split = nullptr;
};

class CallSink {
 public:
  virtual ~CallSink() = default;
  // A call whose input arguments are known but which has not returned yet (an
  // `<unfinished ...>` line): `partial` holds the arguments printed so far.
  virtual void OnCallStarted(int32_t pid, std::string_view name, std::string_view partial,
                             uint64_t line) = 0;
  virtual void OnCall(const SyscallEvent& call) = 0;
  // `exit_status`: the status of "+++ exited with N +++", or -1 when it was killed by a signal.
  virtual void OnProcessExit(int32_t pid, uint64_t line, int exit_status) = 0;
  // Process `from` is now known as `to` (a thread's execve took over the leader's pid, or
  // the unprefixed first process showed its real pid). Whatever `to` was is gone.
  virtual void OnPidRenamed(int32_t from, int32_t to, uint64_t line) = 0;
  virtual void OnUnparsed(uint64_t line, std::string_view text, std::string_view reason) = 0;
};

struct AssemblerStats {
  uint64_t calls = 0;
  uint64_t split_calls = 0;  // calls assembled from unfinished + resumed
  uint64_t signals = 0;
  uint64_t notices = 0;
  uint64_t exits = 0;
  uint64_t unparsed = 0;
  uint64_t pending_at_end = 0;        // calls still unfinished when the trace ended (or when
                                      // strace detached: `<detached ...>`)
  uint64_t abandoned_unfinished = 0;  // unfinished calls whose process exited first
};

// Whether a syscall creates a process and returns the child's pid (clone, fork, ...). The
// syscall table that knows (fstrace::CreatesProcess) sits above trace/, so its owner passes
// it in.
using CreatesProcessFn = bool (*)(std::string_view name);
// Whether the sink never reads the arguments of a call whose name has this index in its
// syscall table (LineHead::syscall; -1: not looked up): such an unfinished call's arguments
// are not kept, and its resumed half reaches the sink alone. The long buffers of `read`s that
// other processes interrupt are then never copied.
using ArgsUnusedFn = bool (*)(int32_t syscall);

class CallAssembler {
 public:
  CallAssembler(CallSink* sink, CreatesProcessFn creates_process)
      : sink_(sink), creates_process_(creates_process) {}

  void set_args_unused(ArgsUnusedFn args_unused) { args_unused_ = args_unused; }

  void Feed(std::string_view line, uint64_t line_number);
  void Feed(const LineHead& head, std::string_view line, uint64_t line_number);
  // The common line, a whole call (kCall, with its return value and no spliced notice) of a
  // process named by its pid, can be taken without Feed() while no interrupted start waits and
  // the first process is bound: TakesWholeCall(), then CountWholeCall() does what Feed() would
  // but tell the sink, which the caller then stands for.
  bool TakesWholeCall() const { return !spliced_.active && !AwaitingBinding(); }
  void CountWholeCall(int32_t pid) {
    NoteLive(pid);
    ++stats_.calls;
  }
  // Call at end of input.
  void Finish();

  const AssemblerStats& stats() const { return stats_; }

 private:
  struct Pending {
    std::string name;
    std::string args;
    uint64_t line = 0;
    bool args_dropped = false;  // ArgsUnusedFn said so: `args` is empty
  };

  // strace -f writing to stderr prints "strace: Process N attached" in the middle of the
  // line being written (`vfork(strace: Process 7 attached`); that call goes on in the next
  // line (` <unfinished ...>` or the rest of its text). The interrupted start waits here.
  struct Spliced {
    bool active = false;
    int32_t pid = 0;
    std::string name;
    std::string args;
    uint64_t line = 0;
  };

  int32_t ResolvePid(const LineHead& head, uint64_t line_number);
  void StartPending(int32_t pid, std::string_view name, std::string_view args, uint64_t line,
                    int32_t syscall = -1);
  bool ContinueSpliced(const LineHead& head, std::string_view line, uint64_t line_number);
  // Thread `thread`'s execve took over the leader's pid: its pending call moves there.
  void TakeOver(int32_t leader, int32_t thread, uint64_t line_number);
  void Unparsed(uint64_t line, std::string_view text, std::string_view reason);
  // The unprefixed first process has not shown its real pid yet.
  bool AwaitingBinding() const { return implicit_seen_ && !implicit_bound_; }
  void NoteLive(int32_t pid) {
    if (pid != last_live_pid_) NoteNewLive(pid);  // most lines come from the last process
  }
  void NoteNewLive(int32_t pid);
  void ForgetLive(int32_t pid);
  void NoteCreatedChild(std::string_view rest);

  CallSink* sink_;
  CreatesProcessFn creates_process_;
  ArgsUnusedFn args_unused_ = nullptr;
  AssemblerStats stats_;
  absl::flat_hash_map<int32_t, Pending> pending_;
  std::string joined_;
  Spliced spliced_;
  // leader pid -> the thread whose execve printed `<pid changed to leader ...>`, until the
  // `+++ superseded` notice (absent under -qqq or -e quiet=superseded) or the resumed execve.
  absl::flat_hash_map<int32_t, int32_t> pid_changes_;
  // Binding of the unprefixed first process to its real pid.
  bool implicit_seen_ = false;
  bool implicit_bound_ = false;
  int32_t bound_pid_ = kImplicitPid;
  absl::flat_hash_set<int32_t> live_;              // pids seen and not exited
  int32_t last_live_pid_ = -1;                     // already in live_
  absl::flat_hash_set<int32_t> created_children_;  // pids returned by clone/fork/vfork
};

}  // namespace fsmove::strace
