// The processes of /proc, and KillDescendants ending a tree (a child and its child).
#include "fsmove/exec/process_tree.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

TEST(ProcessTreeTest, ListsThisProcessWithItsParent) {
  const auto all = ListProcesses("/proc");
  auto self =
      std::find_if(all.begin(), all.end(), [](const ProcEntry& p) { return p.pid == getpid(); });
  ASSERT_NE(self, all.end());
  EXPECT_EQ(self->ppid, getppid());
  EXPECT_FALSE(self->comm.empty());
  EXPECT_GT(self->start_ticks, 0u);
  EXPECT_TRUE(ListProcesses("/nonexistent-proc").empty());
}

// A /proc directory of stat lines as the kernel writes them (fields past the start time cut).
class FakeProc {
 public:
  FakeProc()
      : dir_(std::filesystem::temp_directory_path() /
             ("fsmove-fake-proc-" + std::to_string(getpid()))) {}
  ~FakeProc() { std::filesystem::remove_all(dir_); }
  void Set(int pid, const std::string& comm, char state) {
    std::filesystem::create_directories(dir_ / std::to_string(pid));
    std::ofstream(dir_ / std::to_string(pid) / "stat")
        << pid << " (" << comm << ") " << state
        << " 1 7 7 0 -1 4194560 500 0 0 0 12 3 0 0 20 0 1 0 4242 0 0\n";
  }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
};

TEST(ProcessTreeTest, StateFromTheStatLine) {
  FakeProc proc;
  proc.Set(40, "ruby (lookupd)", 't');
  const auto all = ListProcesses(proc.dir());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].comm, "ruby (lookupd)");
  EXPECT_EQ(all[0].state, 't');
  EXPECT_EQ(all[0].start_ticks, 4242u);
  EXPECT_TRUE(AtWork(all[0]));
  ProcEntry p;
  for (char state : {'R', 'D', 't'}) {
    p.state = state;
    EXPECT_TRUE(AtWork(p)) << state;
  }
  for (char state : {'S', 'I', 'T', 'Z', 'X'}) {
    p.state = state;
    EXPECT_FALSE(AtWork(p)) << state;
  }
}

// A daemon still starting (runnable, then stopped at its system calls by strace) is waited
// for until it sleeps at kIdleSamples looks in a row; the skipped ones (the supervisor, strace)
// never count; one that never rests ends the wait at the limit.
TEST(ProcessTreeTest, WaitUntilIdleWaitsForADaemonStillStarting) {
  FakeProc proc;
  proc.Set(1, "systemd", 'S');
  proc.Set(2, "fsmove", 'R');  // skipped: the supervisor
  proc.Set(3, "strace", 'R');  // skipped
  proc.Set(40, "lookupd", 'R');
  int pauses = 0;
  auto pause = [&](std::chrono::milliseconds) {
    ++pauses;
    if (pauses == 2) proc.Set(40, "lookupd", 't');
    if (pauses == 4) proc.Set(40, "lookupd", 'S');
  };
  EXPECT_TRUE(WaitUntilIdle(proc.dir(), {2, 3}, std::chrono::seconds(60), pause));
  // Busy at looks 1 to 4, idle at 5, 6 and 7: six pauses between them.
  EXPECT_EQ(pauses, 4 + kIdleSamples - 1);

  proc.Set(40, "lookupd", 'R');
  EXPECT_FALSE(
      WaitUntilIdle(proc.dir(), {2, 3}, std::chrono::milliseconds(300),
                    [](std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); }));
}

// A process's start is when it started, to the clock tick: a child started now is read as
// started now, never up to a second early, as /proc/stat's whole-second btime made it (a
// replay then took a daemon started just after a file was written for one started before).
TEST(ProcessTreeTest, AProcessStartsWhenItStarted) {
  auto now = [] {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
  };
  const double before = now();
  const pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(child, 0);
  const double after = now();
  const ProcessClock clock("/proc");
  double start = 0;
  for (const ProcEntry& p : ListProcesses("/proc")) {
    if (p.pid == child) start = clock.Start(p);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  EXPECT_GE(start, before - 2 * tick);
  EXPECT_LE(start, after + 2 * tick);
  // A btime the clocks disagree with is kept as it is.
  EXPECT_EQ(PreciseBootTime(1000.0), 1000.0);
}

TEST(ProcessTreeTest, KillDescendantsEndsChildrenAndGrandchildren) {
  // In a helper that is a subreaper, as the supervisor is: the orphaned grandchild comes back.
  pid_t helper = fork();
  if (helper == 0) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int ready[2];
    if (pipe(ready) != 0) _exit(10);
    pid_t child = fork();
    if (child == 0) {
      if (fork() == 0) {
        (void)!write(ready[1], "g", 1);
        pause();
        _exit(0);
      }
      pause();
      _exit(0);
    }
    char byte;
    if (read(ready[0], &byte, 1) != 1) _exit(11);
    KillDescendants(child);
    int killed = 0;
    for (int st = 0; waitpid(-1, &st, 0) > 0;) {
      killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
    }
    _exit(killed == 2 ? 0 : 12);
  }
  int st = 0;
  waitpid(helper, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
}

}  // namespace
}  // namespace fsmove::exec
