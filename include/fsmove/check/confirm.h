// `fsmove check --confirm`: each missing ordering relationship that counts is replayed with
// the opposite order forced (see exec/replay.h), and its finding says what the replay showed.
#pragma once

#include <cstddef>
#include <string>

#include "fsmove/checker/checker.h"
#include "fsmove/exec/executor.h"
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

// Replays the findings of `result` that count (MOR and MN, not suppressed, not hidden) and
// fills their `confirmation`. `base` is the check's request; `run` its first run (the
// catalog). Returns 0, or the signal that interrupted a replay (no more were started).
int ConfirmFindings(const exec::CheckRequest& base, const exec::RunResult& run,
                    const catalog::Catalog& cat, const report::FindingsContext& ctx,
                    const ConfirmOptions& o, checker::CheckResult* result);

}  // namespace fsmove::check
