#include "fsmove/analysis/program_history.h"

#include <algorithm>

namespace fsmove::analysis {

void ProgramHistory::Born(int32_t pid, int32_t parent, uint64_t line) {
  lives_[pid].push_back(Life{line, parent, {}});
}

void ProgramHistory::Exec(int32_t pid, std::string_view program, uint64_t line) {
  if (program.empty()) return;
  auto [it, added] = name_ids_.try_emplace(std::string(program), names_.size());
  if (added) names_.emplace_back(program);
  std::vector<Life>& lives = lives_[pid];
  if (lives.empty()) lives.push_back(Life{0, -1, {}});  // the first process: nobody's child
  lives.back().execs.emplace_back(line, it->second);
}

const ProgramHistory::Life* ProgramHistory::LifeAt(int32_t pid, uint64_t line) const {
  auto it = lives_.find(pid);
  if (it == lives_.end()) return nullptr;
  const Life* found = nullptr;
  for (const Life& life : it->second) {
    if (life.born > line) break;
    found = &life;
  }
  return found;
}

std::vector<std::string_view> ProgramHistory::ProgramsAbove(int32_t pid, uint64_t line,
                                                            size_t limit) const {
  std::vector<std::string_view> above;
  // Each step moves to the parent at the child's birth, no later than `line`: a sane trace ends
  // at its first process; the count bounds a malformed one's cycle of parents.
  for (int hops = 0; hops < 256 && above.size() < limit; ++hops) {
    const Life* life = LifeAt(pid, line);
    if (life == nullptr) break;
    for (auto e = life->execs.rbegin(); e != life->execs.rend() && above.size() < limit; ++e) {
      if (e->first < line) above.push_back(names_[e->second]);
    }
    if (life->parent < 0) break;
    pid = life->parent;
    line = life->born;
  }
  return above;
}

}  // namespace fsmove::analysis
