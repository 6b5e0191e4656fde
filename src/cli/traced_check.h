// `fsmove check`'s run of Puppet with the analysis attached: the executor's trace stream fed
// to the analyzer as Puppet runs, the resources shown as they start, Puppet's own graph read
// back. The one place that wires exec/ to analysis/ (to move into a library with the rest of
// the check pipeline).
#pragma once

#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/exec/executor.h"

namespace fsmove::cli {

// Runs `request` (which passed exec::Preflight) with `analyzer` reading the trace. strace
// records the calls the analysis models, or every call with `full_trace`.
absl::StatusOr<exec::RunResult> RunTracedCheck(exec::CheckRequest request, bool full_trace,
                                               analysis::Analyzer& analyzer);

}  // namespace fsmove::cli
