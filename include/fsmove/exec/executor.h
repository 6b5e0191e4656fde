// The executor behind `fsmove check`: compiles the target's catalog, applies exactly that
// catalog under strace (in a sandbox by default) and hands strace's output, as it streams
// through a FIFO, to its caller while Puppet runs; then says how the run went. It knows
// nothing of what the trace means (the caller analyses it).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/base/progress_line.h"
#include "fsmove/base/run_summary.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/check_request.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/status_message.h"
#include "fsmove/exec/trace_stream.h"

namespace fsmove::exec {

// The summary this layer fills (base/run_summary.h).
using base::FailedResource;
using base::IdempotenceSummary;
using base::NotIdempotent;
using base::RunSummary;

// Where --puppet-log FILE's copy of the k-th apply's log goes: puppet-apply-2.log for
// puppet.log (FILE.apply-2 when FILE does not end in .log).
std::string ReapplyLogCopy(const std::string& puppet_log, int k);
// And the refresh's (CheckRequest::refresh_catalog): puppet-refresh.log.
std::string RefreshLogCopy(const std::string& puppet_log);

// "absent", "file 0644 0:0, 12 bytes, sha256 1f2e3d4c5b6a", "symlink -> /x", ...
std::string DescribePathState(const PathState& p);

// One more agent run in the same sandbox (--idempotence).
struct Reapply {
  int index = 0;       // 2 for the second apply
  int exit_code = -1;  // puppet apply's
  double seconds = 0;
  ApplyOutcomes outcomes;
};

enum class RunEnd {
  kApplied,        // Puppet ran (resources may have failed: see the summary)
  kCompileFailed,  // no catalog: Puppet's error is in compile_log
  kSetupFailed,    // the sandbox or the run could not start: see error
  kTimedOut,       // --timeout: everything was killed; the analysis covers what ran
  kInterrupted,    // Ctrl-C / SIGTERM: everything was killed
};

struct RunResult {
  RunEnd end = RunEnd::kApplied;
  std::string work_dir;  // Puppet's logs, the sandbox's files (check removes it or says)
  // The catalog as messages name it: the --save-catalog file, or a description (the work
  // directory's copy is removed once read).
  std::string catalog_path;
  // The compiled catalog, taken before the apply (valid when end is kApplied/kTimedOut).
  std::string catalog_text;
  RunSummary summary;
  std::string compile_log;  // kCompileFailed: what Puppet printed
  // metadata.json and .fixtures.yml dependencies found on no modulepath directory, for hints
  std::vector<std::string> missing_dependencies;
  // Modules beside the checked one that it does not declare, which the sandbox did not show
  // (target.h), for the hint when Puppet lacked one.
  std::vector<std::string> unshown_modules;
  // A control repo's directory (target.h's environment_dir), for the hint when Puppet lacked a
  // module: its modules come from its Puppetfile and its environment.conf's modulepath.
  std::string environment_dir;
  std::vector<std::string> notes;  // sandbox facts (bound inputs, prep, leftovers)
  // --init systemd: the service units systemd's log says failed during the apply.
  std::vector<FailedUnit> failed_units;
  // --init systemd: the service units whose start condition systemd found unmet during the
  // apply (`why`: the condition), so their daemons never ran.
  std::vector<FailedUnit> skipped_units;
  std::string error;            // kSetupFailed
  int signal = 0;               // kInterrupted: which signal
  double analysis_seconds = 0;  // parse + interpret, without waiting for the trace
  // Puppet's own graph of the apply (`--graph`: expanded_relationships.dot), read from the
  // work directory without following symlinks; empty when Puppet wrote none (puppet_graph_note
  // says why).
  std::string puppet_graph;
  std::string puppet_graph_path;  // where it was written (for messages)
  std::string puppet_graph_note;
  // What the (first) apply did to each resource, from Puppet's log (with reapplies or an
  // apply_catalog: the runs that compare them).
  ApplyOutcomes outcomes;
  std::vector<Reapply> reapplies;     // --idempotence
  bool reapplies_cut_short = false;   // --timeout stopped one
  std::vector<PathState> probes;      // CheckRequest::probe_paths, in that order
  std::vector<Daemon> daemons;        // with probe_paths, without refresh_catalog
  std::vector<Observation> observed;  // with refresh_catalog
  // Manifest paths as Puppet saw them inside the sandbox -> as they are on the host (prefixes).
  std::vector<std::pair<std::string, std::string>> manifest_paths;
};

// Loads the run's catalog with each resource's manifest `file` mapped back to the host (a
// linked module's files, the generated site.pp), so reports point at files users can open.
// Read within `budget`'s catalog limits: a catalog over them (or one the run left untaken for
// its size) is ResourceExhausted, with the limit's sentence.
absl::StatusOr<catalog::Catalog> LoadRunCatalog(const RunResult& run,
                                                const base::HostBudget& budget = {});

// What the caller does with the trace while Puppet runs: reads `trace` to its end (the
// executor drains what it leaves), and may show what it sees on `progress`. Its error is kept
// as a note ("reading the trace: ...").
using TraceConsumer = std::function<absl::Status(TraceStream& trace, base::ProgressLine& progress)>;

// Runs the check (a request that passed Preflight); `consume` receives the trace as it
// streams (empty: the trace is read and dropped, as for an untraced replay). Errors only for
// failures before Puppet could start (work directory, target); later problems are in
// RunResult. RunResult::analysis_seconds is the time `consume` spent not waiting for the
// trace; summary.trace_complete says only that strace did not die (the consumer knows
// whether the trace reached Puppet's exit).
absl::StatusOr<RunResult> RunCheck(const CheckRequest& request, const TraceConsumer& consume);

}  // namespace fsmove::exec
