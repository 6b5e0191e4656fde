// What `fsmove check` asks the executor to run: the target, the sandbox, what to keep, and
// the extra runs of --idempotence and --confirm.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fsmove/base/host_budget.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/exec/puppet_command.h"
#include "fsmove/exec/sandbox.h"
#include "fsmove/exec/target.h"

namespace fsmove::exec {

struct CheckRequest {
  TargetRequest target;
  SandboxMode sandbox = SandboxMode::kOverlay;
  std::string keep_sandbox;  // copy the sandbox's changes here
  std::string save_trace;    // keep the trace (zstd-compressed if it ends in .zst)
  std::string save_catalog;  // keep the compiled catalog
  std::string save_graph;    // keep Puppet's expanded_relationships.dot
  std::string puppet_log;    // keep Puppet's output here (default: in the work directory)
  std::string work_parent;   // where the work directory is made (default: $TMPDIR or /tmp)
  int timeout_seconds = 1800;
  // --node NAME: the node the catalog is compiled for (site.pp's node definitions, Hiera's
  // trusted.certname); empty: this machine's certname.
  std::string node;
  // --facts FILE: the node's facts (JSON or YAML), put over the sandbox's own for the compile
  // (MergeFactsScript); empty: the sandbox's facts alone.
  std::string facts_file;
  bool progress = false;  // compile / resource N of M / analysis lines on stderr
  // The system calls strace records (a kernel-side filter; readlink is left out, see
  // StraceArguments): the calls the analysis models. Empty: every call (slow).
  std::vector<std::string> traced_syscalls;
  // strace's -s: the bytes of each string it prints (kStraceStringLimit; the paper's protocol
  // used 300, for traces of that shape: see bench/full_trace_throughput).
  int strace_string_limit = kStraceStringLimit;
  // strace's -ttt -T -yy (StraceArguments): times, durations and descriptors' paths.
  bool strace_timestamps = false;
  bool untraced = false;  // apply without strace (to measure the tracing overhead)
  // Pin strace and the traced processes to one CPU (default in the overlay sandbox, where the
  // daemons Puppet starts die with the run; not with --sandbox none, where they stay).
  bool pin_cpu = true;
  // Service starts by package maintainer scripts: deny (as in Debian's container images, and
  // so that a Service resource's own start, which reads its configuration, is traced),
  // allow, or none.
  std::string policy_rc = "deny";
  bool prep = true;
  // The catalog's packages the root already has: removed before the traced apply, so that
  // Puppet's install of them is traced ("remove"), or left ("keep"). See SandboxSpec.
  std::string preinstalled = "remove";
  // The sandbox's memory limit in bytes; 0: none.
  uint64_t memory_limit = 0;
  // fsmove's own budget on the host: the compiled catalog it takes in and the trace text
  // --save-trace writes (the analysis's limits are the analyzer's).
  base::HostBudget budget;
  // The sandbox's processes, all together (a pids cgroup) and per user (RLIMIT_NPROC); 0: none.
  uint32_t pids_limit = kSandboxPidsLimit;
  // The overlay's lower layer: the host (default) or a pinned OS root, whose own Puppet and
  // strace then run.
  OsRoot root = {std::string(kHostRoot), "/", ""};
  // --root auto: why this root (root_choice.h's RootChoice::why), and what did not fit.
  std::string root_choice;
  std::string root_warning;
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
  // A replay confirming missing notifiers of one service: apply_catalog holds their sources
  // back (noop), `second_catalog` (applied next, reapplies 1) makes their changes, and this
  // catalog (RefreshCatalog) then refreshes the service, with the processes and listening
  // sockets observed before and after (RunResult::observed).
  std::string refresh_catalog;
  std::string second_catalog;

  // The same check run again on the user's behalf (a replay, a fix's re-check): no progress
  // lines, no second idempotence check, and none of the user's copies (trace, catalog,
  // graph, Puppet's log, the sandbox's changes) overwritten by it.
  CheckRequest Rerun() const {
    CheckRequest r = *this;
    r.progress = false;
    r.reapplies = 0;
    r.save_trace.clear();
    r.save_catalog.clear();
    r.save_graph.clear();
    r.puppet_log.clear();
    r.keep_sandbox.clear();
    return r;
  }
};

}  // namespace fsmove::exec
