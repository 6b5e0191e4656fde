#include "fsmove/analysis/program_history.h"

#include <algorithm>

#include "absl/strings/string_view.h"

namespace fsmove::analysis {
namespace {

// Bounds on what a trace can make this hold (a fork loop reusing pids, a program that execs
// itself forever, endless distinct program names): past them the oldest lives and execs are
// forgotten, and a new name is not kept. What is forgotten is unknown, which every rule takes
// as it takes an exec strace could not read: the evidence keeps its strength.
constexpr size_t kMaxLivesPerPid = 64;
constexpr size_t kMaxExecsPerLife = 64;
constexpr size_t kMaxNames = 65536;

}  // namespace

void ProgramHistory::Born(int32_t pid, int32_t parent, uint64_t line) {
  std::vector<Life>& lives = lives_[pid];
  if (lives.size() >= kMaxLivesPerPid) lives.erase(lives.begin(), lives.begin() + lives.size() / 2);
  lives.push_back(Life{line, parent, {}});
}

void ProgramHistory::Exec(int32_t pid, std::string_view program, uint64_t line) {
  if (program.empty()) return;
  auto found = name_ids_.find(absl::string_view(program.data(), program.size()));
  if (found == name_ids_.end()) {
    if (names_.size() >= kMaxNames) return;
    found = name_ids_.emplace(std::string(program), names_.size()).first;
    names_.emplace_back(program);
  }
  std::vector<Life>& lives = lives_[pid];
  if (lives.empty()) lives.push_back(Life{0, -1, {}});  // the first process: nobody's child
  std::vector<std::pair<uint64_t, uint32_t>>& execs = lives.back().execs;
  if (execs.size() >= kMaxExecsPerLife)
    execs.erase(execs.begin(), execs.begin() + execs.size() / 2);
  execs.emplace_back(line, found->second);
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

int32_t ProgramHistory::ParentAt(int32_t pid, uint64_t line) const {
  const Life* life = LifeAt(pid, line);
  return life == nullptr ? -1 : life->parent;
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
