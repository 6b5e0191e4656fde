// Which CPUs each check of `fsmove scan -j N` runs on.
//
// A check pins its traced apply to one CPU (ptrace stops are then plain context switches);
// left alone, every check picks the same one (the last CPU it may use), and N checks share
// one CPU: measured 38 s per check at -j 2 against 10-12 s alone. So the scan gives each
// running check CPUs of its own: with N <= CPUs, the CPUs split into N groups (the check's
// trace is pinned to the last of its group, its analysis runs on the others); with more
// checks than CPUs, each check gets the CPU the fewest running checks share.
#pragma once

#include <vector>

namespace fsmove::scan {

class CpuPlacer {
 public:
  // `cpus`: the CPUs this process may use; `jobs`: checks running at once.
  CpuPlacer(std::vector<int> cpus, int jobs);

  // The CPUs for a check that starts now; empty: no placement (one job, or CPUs unknown).
  std::vector<int> Take();
  // The check that had `cpus` has ended.
  void Release(const std::vector<int>& cpus);

 private:
  std::vector<std::vector<int>> groups_;  // N <= CPUs: one group per check slot
  std::vector<int> users_;                // running checks per group
};

}  // namespace fsmove::scan
