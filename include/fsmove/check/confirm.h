// `fsmove check --confirm`: each missing ordering relationship that counts is replayed with
// the opposite order forced (see exec/replay.h), each missing notifier by holding its source
// back and refreshing the service, and its finding says what the replay showed.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "fsmove/checker/checker.h"
#include "fsmove/exec/executor.h"
#include "fsmove/exec/replay.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::check {

// Conflicting paths a replay probes at its end, per finding.
inline constexpr size_t kMaxPathsPerFinding = 32;

struct ConfirmOptions {
  int jobs = 1;          // replays at once
  std::string keep_dir;  // --keep-replays: each replay's catalog and Puppet log
  bool progress = false;
};

// The order a replay of the missing ordering `f` forces, the other way round from the check's
// run: its target before its source, or (a run that applied them in reverse) its source
// before its target. `first` goes before `second`.
struct ForcedOrder {
  const catalog::Resource& first;
  const catalog::Resource& second;
};
ForcedOrder OrderToForce(const checker::Finding& f, const catalog::Catalog& cat);

// A MOR finding (index into CheckResult::findings) whose forced replay ran to its end and was
// conclusive, compared with the reference (exec::CompareReplays).
struct OrderComparison {
  size_t finding = 0;
  std::vector<exec::ReplayDifference> differences;
};

// Each compared MOR finding's confirmation. Confirmed only by a different outcome (a resource
// that fails or is skipped, a conflicting path's end state, whether a service runs) that the
// catalog's own order does not show between two of its applies: `unstable` holds the subjects
// whose outcome differed between the reference and the reference applied once more. Puppet's
// messages alone ("ensure created" against "content changed") confirm nothing: the end state
// may be the same. `again_why` says why that second reference is missing: a finding that a
// different outcome would confirm is then inconclusive. The differences are listed outcomes
// first, then those the catalog's order shows too, then messages; `reason` says why a finding
// is not confirmed.
void JudgeOrderComparisons(const std::vector<OrderComparison>& compared,
                           const std::set<std::string>& unstable, const std::string& again_why,
                           checker::CheckResult* result);

// Replays the findings of `result` that count (MOR and MN, not suppressed, not hidden) and
// fills their `confirmation`. `base` is the check's request; `run` its first run (the
// catalog). Returns 0, or the signal that interrupted a replay (no more were started).
int ConfirmFindings(const exec::CheckRequest& base, const exec::RunResult& run,
                    const catalog::Catalog& cat, const report::FindingsContext& ctx,
                    const ConfirmOptions& o, checker::CheckResult* result);

}  // namespace fsmove::check
