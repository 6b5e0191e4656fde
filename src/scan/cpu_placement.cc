// CPU placement for scan's checks; see cpu_placement.h.
#include "fsmove/scan/cpu_placement.h"

#include <algorithm>

namespace fsmove::scan {

CpuPlacer::CpuPlacer(std::vector<int> cpus, int jobs) {
  if (jobs <= 1 || cpus.empty()) return;
  std::sort(cpus.begin(), cpus.end());
  const size_t n = cpus.size();
  if (static_cast<size_t>(jobs) <= n) {
    // N groups of consecutive CPUs; the first n % N groups get one more.
    const size_t base = n / jobs, extra = n % jobs;
    size_t at = 0;
    for (size_t g = 0; g < static_cast<size_t>(jobs); ++g) {
      const size_t size = base + (g < extra ? 1 : 0);
      groups_.emplace_back(cpus.begin() + at, cpus.begin() + at + size);
      at += size;
    }
  } else {
    for (int cpu : cpus) groups_.push_back({cpu});
  }
  users_.assign(groups_.size(), 0);
}

std::vector<int> CpuPlacer::Take() {
  if (groups_.empty()) return {};
  // The group the fewest running checks use (with N <= CPUs, a free one: at most N run).
  const size_t best = std::min_element(users_.begin(), users_.end()) - users_.begin();
  ++users_[best];
  return groups_[best];
}

void CpuPlacer::Release(const std::vector<int>& cpus) {
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g] == cpus && users_[g] > 0) {
      --users_[g];
      return;
    }
  }
}

}  // namespace fsmove::scan
