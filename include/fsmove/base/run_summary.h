// How `fsmove check` ran Puppet: the run summary the executor (exec) fills and the reports
// (report) print, in a layer of its own below both (the failed resources, the idempotence
// check's results, the times, how the trace ended).
#pragma once

#include <string>
#include <vector>

#include "fsmove/base/host_budget.h"

namespace fsmove::base {

// A resource Puppet reported as failed ("Error: /Stage[main]/Foo/File[/x]/ensure: ...").
struct FailedResource {
  std::string resource;  // canonical Type[title], or empty when the line names none
  std::string message;   // the error text, ANSI colours removed
};

// A resource that applying the same catalog again, in the same sandbox, changed again or
// made fail (--idempotence; Litmus's idempotent_apply, resource by resource).
struct NotIdempotent {
  std::string resource;  // canonical Type[title]
  // "changes-every-apply": the second and the third apply changed it again (a flip-flop, or
  //   a change that never converges);
  // "converged-on-third-apply": the second apply changed it and the third did not (the first
  //   apply left it half-done: a one-time convergence);
  // "changed-on-second-apply": the second apply changed it (no third apply ran);
  // "fails-on-reapply": it failed in a later apply and not in the first.
  std::string behaviour;
  std::vector<std::string> second;  // Puppet's messages for it in the second apply
  std::vector<std::string> third;   // and in the third
};

struct IdempotenceSummary {
  bool checked = false;         // --idempotence ran a second apply
  std::vector<int> exit_codes;  // puppet apply's, of the second and third apply
  bool cut_short = false;       // --timeout stopped one
  std::vector<NotIdempotent> resources;
};

// How `fsmove check` ran Puppet (absent for `fsmove analyze`).
struct RunSummary {
  std::string target;          // module directory, manifest or "-e"
  std::string sandbox;         // "overlay" or "none"
  std::string root;            // the OS root Puppet ran on: "host", debian-12, a directory
  std::string root_choice;     // --root auto: why that root ("" when --root named it)
  std::string node;            // --node: the node compiled for ("" this machine's certname)
  std::string facts;           // --facts: the facts file put over the sandbox's own, or ""
  std::string klass;           // --class: the control repo's class checked ("" its site.pp)
  std::string puppet_version;  // the Puppet that ran ("" if unknown)
  std::string init;            // PID 1 of the sandbox: "none" or "systemd"
  std::string init_choice;     // --init auto chose systemd: why ("" otherwise)
  int puppet_exit_code = 0;    // puppet apply's exit status (128+N: killed by signal N)
  bool timed_out = false;
  // With timed_out: the phase --timeout stopped, "compile" or "apply" (or "sandbox", "prep":
  // the sandbox's set-up and its untraced apt preparation).
  std::string timed_out_phase;
  bool trace_complete = true;  // strace followed Puppet to its exit
  std::string strace_end;      // "exited", "SIGINT" (detached from daemons), "SIGKILL", ...
  std::string puppet_log;      // where Puppet's own output is kept; empty: it was not
  double compile_seconds = 0;
  double apply_seconds = 0;
  std::vector<FailedResource> failed;   // failed resources, in log order
  std::vector<std::string> errors;      // other "Error:" lines of the log
  std::vector<std::string> notes;       // sandbox facts: bound inputs, prep, processes killed
  std::vector<std::string> limits_hit;  // the sandbox's memory or tmpfs limits that were hit
  // Sandbox facts that may decide the result, shown without -v (also in notes): "the sandbox
  // has no network: ..." (a Package cannot be downloaded).
  std::vector<std::string> warnings;
  // fsmove's own limits the run reached on the host (the compiled catalog's size, the saved
  // trace's): the check is incomplete (the analysis's own are in its result).
  std::vector<base::BudgetHit> host_limits_hit;
  IdempotenceSummary idempotence;  // --idempotence
  // --confirm ran replays: findings without a confirmation were not replayed (low
  // confidence, suppressed, MN).
  bool confirm = false;
  double confirm_seconds = 0;  // the replays' wall time, all together

  // Puppet's apply ran to its end, traced to the end: the findings cover the whole run.
  bool ApplyFinished() const { return !timed_out && trace_complete && puppet_exit_code <= 128; }
  // Why not, in a few words ("timed out while applying the catalog"); empty when it did.
  std::string WhyUnfinished() const;
};

}  // namespace fsmove::base
