// The processes of a /proc directory, and ending a tree of them; see process_tree.h.
#include "fsmove/exec/process_tree.h"

#include <dirent.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fsmove/base/read_file.h"

namespace fsmove::exec {

ProcessClock::ProcessClock(const std::string& proc_dir) : ticks_(sysconf(_SC_CLK_TCK)) {
  std::istringstream stat(base::ReadFile(proc_dir + "/stat").value_or(""));
  for (std::string line; std::getline(stat, line);) {
    if (line.starts_with("btime ")) boot_ = std::atof(line.c_str() + 6);
  }
  // btime is whole seconds, cut: every start read off it was up to a second early, so a
  // daemon started just after a file was written looked started before it (a replay judged
  // it stale). This machine's own /proc: the boot's moment to the nanosecond, the wall clock
  // less the time since boot, which is what a process's start counts from.
  if (proc_dir == "/proc") boot_ = PreciseBootTime(boot_);
}

double PreciseBootTime(double btime) {
  timespec real{}, boot{};
  if (clock_gettime(CLOCK_REALTIME, &real) != 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0) {
    return btime;
  }
  const double precise = static_cast<double>(real.tv_sec - boot.tv_sec) +
                         static_cast<double>(real.tv_nsec - boot.tv_nsec) / 1e9;
  // The same moment as btime, within its cut second (and a clock set meanwhile): else btime.
  return btime > 0 && (precise < btime - 1 || precise > btime + 2) ? btime : precise;
}

double ProcessClock::Start(const ProcEntry& p) const {
  return ticks_ > 0 ? boot_ + static_cast<double>(p.start_ticks) / static_cast<double>(ticks_) : 0;
}

std::vector<ProcEntry> ListProcesses(const std::string& proc_dir) {
  std::vector<ProcEntry> out;
  DIR* d = opendir(proc_dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::string stat = base::ReadFile(fmt::format("{}/{}/stat", proc_dir, pid)).value_or("");
    size_t open_paren = stat.find('('), close_paren = stat.rfind(')');
    if (open_paren == std::string::npos || close_paren == std::string::npos) continue;
    ProcEntry p;
    p.pid = static_cast<pid_t>(pid);
    p.comm = stat.substr(open_paren + 1, close_paren - open_paren - 1);
    // After ") ": state, then ppid.
    std::istringstream rest(stat.substr(close_paren + 1));
    std::string state, skip;
    rest >> state >> p.ppid;
    if (!state.empty()) p.state = state[0];
    for (int field = 5; field < 22 && rest >> skip; ++field) {
    }
    rest >> p.start_ticks;
    out.push_back(std::move(p));
  }
  closedir(d);
  return out;
}

// SIGKILL to every descendant of `root` (then `root` itself), twice over: a process forked
// between the listing and the kill is found the second time (the subreaper keeps orphans
// below `root`).
void KillDescendants(pid_t root) {
  for (int pass = 0; pass < 2; ++pass) {
    std::map<pid_t, pid_t> parent_of;
    for (const ProcEntry& p : ListProcesses("/proc")) parent_of[p.pid] = p.ppid;
    for (const auto& [pid, ppid] : parent_of) {
      pid_t up = ppid;
      for (int depth = 0; up > 1 && up != root && depth < 4096; ++depth) {
        auto it = parent_of.find(up);
        up = it == parent_of.end() ? 0 : it->second;
      }
      if (up == root) kill(pid, SIGKILL);
    }
    usleep(20000);
  }
  kill(root, SIGKILL);
}

bool AtWork(const ProcEntry& p) { return p.state == 'R' || p.state == 'D' || p.state == 't'; }

bool WaitUntilIdle(const std::string& proc_dir, const std::vector<pid_t>& skip,
                   std::chrono::milliseconds limit,
                   const std::function<void(std::chrono::milliseconds)>& pause) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (int idle = 0; idle < kIdleSamples;) {
    if (std::chrono::steady_clock::now() >= until) return false;
    const std::vector<ProcEntry> procs = ListProcesses(proc_dir);
    const bool busy = std::any_of(procs.begin(), procs.end(), [&](const ProcEntry& p) {
      return AtWork(p) && std::find(skip.begin(), skip.end(), p.pid) == skip.end();
    });
    idle = busy ? 0 : idle + 1;
    if (idle < kIdleSamples) pause(kIdleSampleInterval);
  }
  return true;
}

// Names what the run left running (and is being killed): the first 20, then a count.
void ReportLeftovers(StatusWriter& status, const std::vector<ProcEntry>& left) {
  for (size_t i = 0; i < left.size() && i < 20; ++i) {
    status.Send(status::Note{
        fmt::format("left running at the end (killed): {} {}", left[i].pid, left[i].comm)});
  }
  if (left.size() > 20)
    status.Send(status::Note{fmt::format("... and {} more processes", left.size() - 20)});
}

}  // namespace fsmove::exec
