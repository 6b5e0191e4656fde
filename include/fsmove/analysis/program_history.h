// Which program each traced process ran when, and which process started it: what a rule asks
// of an access when what matters is who made it (apt-key's clean-up running gpgconf only when
// it is installed; cron rereading its crontabs on its own). Read from the trace's clones and
// execs, so it knows what strace showed: an exec whose path strace could not read is not in it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace fsmove::analysis {

class ProgramHistory {
 public:
  // `pid` was made by `parent` at `line` (a fork, a clone, a thread): it runs what its parent
  // ran until it execs. A pid made again (the kernel reused it) starts a new life.
  void Born(int32_t pid, int32_t parent, uint64_t line);
  // `pid` exec'd `program` (the path execve was given) at `line`.
  void Exec(int32_t pid, std::string_view program, uint64_t line);

  // The programs above an access `pid` made at `line`, nearest first: the program the process
  // ran just before `line` (so an execve's own access is its caller's), then the program that
  // exec'd that one, and so on up the processes' ancestry, at most `limit`. Each entry was
  // exec'd by a process running the next. Empty when the trace showed no exec of the process or
  // its ancestors.
  std::vector<std::string_view> ProgramsAbove(int32_t pid, uint64_t line, size_t limit = 16) const;
  // The process that made `pid` (as it was at `line`), or -1 when the trace showed none.
  int32_t ParentAt(int32_t pid, uint64_t line) const;

  size_t programs() const { return names_.size(); }

 private:
  struct Life {
    uint64_t born = 0;
    int32_t parent = -1;
    std::vector<std::pair<uint64_t, uint32_t>> execs;  // (line, index into names_), in order
  };
  const Life* LifeAt(int32_t pid, uint64_t line) const;

  absl::flat_hash_map<int32_t, std::vector<Life>> lives_;  // per pid, in the order they began
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> name_ids_;
};

}  // namespace fsmove::analysis
