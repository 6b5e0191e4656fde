// The processes of a /proc directory, and ending a tree of them: what the supervisor (and
// the keeper, with --sandbox none) kill and name at the end of a run.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

// One entry of a /proc directory: pid, command name, parent.
struct ProcEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  std::string comm;
  char state = '?';          // field 3 of /proc/PID/stat: R running, S sleeping, t traced, ...
  uint64_t start_ticks = 0;  // since boot, in clock ticks (field 22 of /proc/PID/stat)
};
std::vector<ProcEntry> ListProcesses(const std::string& proc_dir);

// Whether a process is at work: running or waiting for a CPU (R), in uninterruptible sleep
// (D: disk), or stopped by its tracer at a system call (t: strace is writing it down).
bool AtWork(const ProcEntry& p);

// Waits, up to `limit`, until no process of `proc_dir` but `skip` is at work (AtWork) at
// kIdleSamples looks in a row, kIdleSampleInterval apart; `pause` lets the time pass (the
// supervisor drains output meanwhile). Whether they went idle in time.
inline constexpr int kIdleSamples = 3;
inline constexpr std::chrono::milliseconds kIdleSampleInterval{100};
bool WaitUntilIdle(const std::string& proc_dir, const std::vector<pid_t>& skip,
                   std::chrono::milliseconds limit,
                   const std::function<void(std::chrono::milliseconds)>& pause);
// When processes started, in seconds since the epoch: the boot's moment plus a process's
// start in clock ticks. The boot's moment is /proc/stat's btime (whole seconds), to the
// nanosecond for this machine's own /proc (PreciseBootTime). 0 where the clock is unknown.
class ProcessClock {
 public:
  explicit ProcessClock(const std::string& proc_dir);
  double Start(const ProcEntry& p) const;

 private:
  double boot_ = 0;
  long ticks_ = 0;
};
// The wall clock less the time since boot (CLOCK_REALTIME - CLOCK_BOOTTIME): /proc/stat's
// `btime` (given) to the nanosecond; `btime` itself when the two disagree by more than its cut
// second.
double PreciseBootTime(double btime);
// SIGKILL to every descendant of `root`, then `root`.
void KillDescendants(pid_t root);
// Names what the run left running (and is being killed): the first 20, then a count.
void ReportLeftovers(StatusWriter& status, const std::vector<ProcEntry>& left);

}  // namespace fsmove::exec
