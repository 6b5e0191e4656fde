// The executor behind `fsmove check`: checks that Puppet and strace can run, compiles the
// target's catalog, applies exactly that catalog under strace (in a sandbox by default) and
// feeds strace's output through a FIFO straight into the analyzer while Puppet runs.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/sandbox.h"
#include "fsmove/exec/target.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::exec {

struct CheckRequest {
  TargetRequest target;
  SandboxMode sandbox = SandboxMode::kOverlay;
  std::string keep_sandbox;   // copy the sandbox's changes here
  std::string save_trace;     // keep the trace (zstd-compressed if it ends in .zst)
  std::string save_catalog;   // keep the compiled catalog
  std::string save_graph;     // keep Puppet's expanded_relationships.dot
  std::string puppet_log;     // keep Puppet's output here (default: in the work directory)
  std::string work_parent;    // where the work directory is made (default: $TMPDIR or /tmp)
  int timeout_seconds = 1800;
  bool progress = false;      // compile / resource N of M / analysis lines on stderr
  bool full_trace = false;    // trace every system call, not only the modelled ones (slow)
  bool untraced = false;      // apply without strace (to measure the tracing overhead)
  // Pin strace and the traced processes to one CPU (default in the overlay sandbox, where the
  // daemons Puppet starts die with the run; not with --sandbox none, where they stay).
  bool pin_cpu = true;
  // Service starts by package maintainer scripts: deny (as in Debian's container images, and
  // so that a Service resource's own start, which reads its configuration, is traced),
  // allow, or none.
  std::string policy_rc = "deny";
  bool prep = true;
  // The sandbox's memory limit in bytes; 0: none.
  uint64_t memory_limit = 0;
  // The overlay's lower layer: the host (default) or a pinned OS root, whose own Puppet and
  // strace then run.
  OsRoot root = {std::string(kHostRoot), "/", ""};
  // PID 1 of the sandbox: "none" or "systemd" (booted; strace also follows PID 1).
  std::string init = "none";
  // --idempotence: compile and apply again in the same sandbox, untraced, as the next agent
  // runs would, up to this many more times (2: a second apply, and a third if the second
  // changed something).
  int reapplies = 0;
  // A replay (--confirm): apply this catalog instead of compiling one (untraced).
  std::string apply_catalog;
  // Paths whose final state the run reports (RunResult::probes).
  std::vector<std::string> probe_paths;
  // A replay confirming missing notifiers: these paths are put back as the OS root had them
  // after the first apply, then the catalog is applied again (reapplies 1); the processes
  // left running are reported (RunResult::daemons).
  std::vector<std::string> restore_paths;
};

// A path's state at the end of a run, as the sandbox saw it.
struct PathState {
  std::string path;
  bool exists = false;
  std::string type;    // file, directory, symlink, other
  unsigned mode = 0;   // permission bits
  unsigned uid = 0, gid = 0;
  std::string sha256;  // a file's content (empty: too large to hash, or unreadable)
  uint64_t size = 0;
  std::string target;  // a symlink's
  std::string error;   // lstat failed other than ENOENT
  double mtime = 0;    // seconds since the epoch
  // The same state; the modification time is not compared (every apply writes at its time).
  bool operator==(const PathState& o) const {
    return path == o.path && exists == o.exists && type == o.type && mode == o.mode &&
           uid == o.uid && gid == o.gid && sha256 == o.sha256 && size == o.size &&
           target == o.target && error == o.error;
  }
};

// A process left running at the end of a replay (a daemon an apply started).
struct Daemon {
  int pid = 0;
  double start = 0;  // seconds since the epoch
  std::string comm;
};
// Where --puppet-log FILE's copy of the k-th apply's log goes: puppet-apply-2.log for
// puppet.log (FILE.apply-2 when FILE does not end in .log).
std::string ReapplyLogCopy(const std::string& puppet_log, int k);

// "absent", "file 0644 0:0, 12 bytes, sha256 1f2e3d4c5b6a", "symlink -> /x", ...
std::string DescribePathState(const PathState& p);

// One more agent run in the same sandbox (--idempotence).
struct Reapply {
  int index = 0;  // 2 for the second apply
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
  report::RunSummary summary;
  std::string compile_log;   // kCompileFailed: what Puppet printed
  std::vector<std::string> dependencies;  // metadata.json dependencies, for hints
  std::vector<std::string> notes;         // sandbox facts (bound inputs, prep, leftovers)
  std::string error;                      // kSetupFailed
  int signal = 0;                         // kInterrupted: which signal
  double analysis_seconds = 0;            // parse + interpret, without waiting for the trace
  // Puppet's own graph of the apply (`--graph`: expanded_relationships.dot), read from the
  // work directory without following symlinks; empty when Puppet wrote none (puppet_graph_note
  // says why).
  std::string puppet_graph;
  std::string puppet_graph_path;  // where it was written (for messages)
  std::string puppet_graph_note;
  // What the (first) apply did to each resource, from Puppet's log (with reapplies or an
  // apply_catalog: the runs that compare them).
  ApplyOutcomes outcomes;
  std::vector<Reapply> reapplies;  // --idempotence
  bool reapplies_cut_short = false;  // --timeout stopped one
  std::vector<PathState> probes;   // CheckRequest::probe_paths, in that order
  std::vector<Daemon> daemons;     // with restore_paths
  // Manifest paths as Puppet saw them inside the sandbox -> as they are on the host (prefixes).
  std::vector<std::pair<std::string, std::string>> manifest_paths;
};

// Loads the run's catalog with each resource's manifest `file` mapped back to the host (a
// linked module's files, the generated site.pp), so reports point at files users can open.
absl::StatusOr<catalog::Catalog> LoadRunCatalog(const RunResult& run);

// The strace command line (without the traced command): -f, the kernel-side syscall filter
// of the modelled calls (--seccomp-bpf), a string limit long enough for any marker.
std::vector<std::string> StraceArguments(const std::string& strace, const std::string& output,
                                         bool full_trace);

// Puppet's node name for compiling: the lower-cased fully qualified host name.
std::string CertName();

// Everything that can be known before running: tools installed, root for the sandbox, a
// pinned root or systemd only in the overlay sandbox, ptrace permitted. The error says what
// to do. RunCheck expects a request that passed it.
absl::Status Preflight(const CheckRequest& request);

// Runs the check (a request that passed Preflight); the analyzer receives the trace as it
// streams. Errors only for failures before Puppet could start (work directory, target);
// later problems are in RunResult.
absl::StatusOr<RunResult> RunCheck(const CheckRequest& request, analysis::Analyzer& analyzer);

// The puppet and strace executables: $FSMOVE_PUPPET / $FSMOVE_STRACE if set, else searched
// in the fixed PATH that Puppet runs with.
std::string PuppetExecutable();
std::string StraceExecutable();

}  // namespace fsmove::exec
