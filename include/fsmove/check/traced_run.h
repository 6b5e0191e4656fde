// `fsmove check`'s run of Puppet with the analysis attached: the executor's trace stream fed
// to the analyzer as Puppet runs, the resources shown as they start, Puppet's own graph read
// back (exec/run_graph.h). The one place that wires exec/ to analysis/.
#pragma once

#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/exec/executor.h"

namespace fsmove::check {

// Runs `request` (which passed exec::Preflight) with `analyzer` reading the trace. strace
// records the calls the analysis models, or every call with `full_trace`.
absl::StatusOr<exec::RunResult> RunTraced(exec::CheckRequest request, bool full_trace,
                                          analysis::Analyzer& analyzer);

// The analyzer of a run on the request's OS root (the OS root's own links, such as merged /usr's
// /bin -> usr/bin, which the trace never shows made), within the request's budget.
analysis::AnalyzerOptions AnalyzerOptionsFor(const exec::CheckRequest& request);

}  // namespace fsmove::check
