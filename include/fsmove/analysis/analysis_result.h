// What an analysed trace leaves for the checker: the resource blocks, every access of every
// path, what the run knew of those paths (the symlinks that existed before it, the package dpkg
// was unpacking), what Puppet said went wrong, and the trace's counts. The checker reads only
// this, so its tests build one from blocks and accesses, without strace text.
//
// A view: it points into what it was made from (an Analyzer, or a test's tables), which must
// outlive it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/analysis/access_map.h"
#include "fsmove/analysis/blocks.h"
#include "fsmove/analysis/program_history.h"
#include "fsmove/base/host_budget.h"
#include "fsmove/strace/puppet_markers.h"

namespace fsmove::analysis {

struct TraceStats;

struct AnalysisResult {
  const BlockTable* blocks = nullptr;
  const AccessMap* accesses = nullptr;
  // A path of `accesses` with its directory part rewritten through the symlinks that existed
  // before the trace (/lib/x and /usr/lib/x meet). Unset: paths are taken as they are.
  std::function<std::string(std::string_view)> canonical_path;
  // The Debian package whose files dpkg was unpacking when it wrote a path of `accesses`, or
  // empty. Unset: none.
  std::function<std::string_view(PathId)> unpacked_from;
  // Which program each traced process ran when (an access's pid and line); none when null.
  const ProgramHistory* programs = nullptr;
  // What Puppet said went wrong, each resource once, in trace order; none when null.
  const std::vector<strace::PuppetProblem>* puppet_problems = nullptr;
  const TraceStats* trace = nullptr;  // null for a result not read from a trace
  // The host's budget (paths, inodes) that stopped the analysis part-way: what came after in
  // the trace is not in `accesses`, so the check is incomplete.
  std::vector<base::BudgetHit> limits_hit;

  std::string CanonicalPath(std::string_view path) const {
    return canonical_path ? canonical_path(path) : std::string(path);
  }
  std::string_view UnpackedFrom(PathId path) const {
    return unpacked_from ? unpacked_from(path) : std::string_view();
  }
  // ProgramHistory::ProgramsAbove: the program that made an access, then the one that ran it...
  // (at most `limit` of them).
  std::vector<std::string_view> ProgramsAbove(const Access& access, size_t limit = 16) const {
    return programs != nullptr ? programs->ProgramsAbove(access.pid, access.line, limit)
                               : std::vector<std::string_view>();
  }
  const std::vector<strace::PuppetProblem>& problems() const {
    static const std::vector<strace::PuppetProblem> kNone;
    return puppet_problems != nullptr ? *puppet_problems : kNone;
  }
};

}  // namespace fsmove::analysis
