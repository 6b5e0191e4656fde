// Reports of the checker's findings, for people (text: both resources with file:line, every
// conflicting path with both system calls and trace lines, and the fix) and for tools (JSON
// with stable field names: faults[].kind "MOR"|"MN", faults[].source/target, faults[].paths).
#pragma once

#include <ostream>
#include <string>

#include "nlohmann/json.hpp"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/checker.h"
#include "fsmove/check/suppressions.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/analysis_report.h"

namespace fsmove::report {

struct CheckSeconds {
  double parse_interpret = 0;
  double catalog_and_graph = 0;  // loading the catalog + building the dependency graph
  double catalog_load = 0;       // the loading part of catalog_and_graph
  double check = 0;
};

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
  bool checked = false;           // --idempotence ran a second apply
  std::vector<int> exit_codes;    // puppet apply's, of the second and third apply
  bool cut_short = false;         // --timeout stopped one
  std::vector<NotIdempotent> resources;
};

// How `fsmove check` ran Puppet (absent for `fsmove analyze`).
struct RunSummary {
  std::string target;          // module directory, manifest or "-e"
  std::string sandbox;         // "overlay" or "none"
  std::string root;            // the OS root Puppet ran on: "host", debian-12, a directory
  std::string puppet_version;  // the Puppet that ran ("" if unknown)
  std::string init;            // PID 1 of the sandbox: "none" or "systemd"
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
  std::vector<FailedResource> failed;  // failed resources, in log order
  std::vector<std::string> errors;     // other "Error:" lines of the log
  std::vector<std::string> notes;      // sandbox facts: bound inputs, prep, processes killed
  std::vector<std::string> limits_hit;  // the sandbox's memory or tmpfs limits that were hit
  IdempotenceSummary idempotence;       // --idempotence
  // --confirm ran replays: findings without a confirmation were not replayed (low
  // confidence, suppressed, MN).
  bool confirm = false;
  double confirm_seconds = 0;  // the replays' wall time, all together

  // Puppet's apply ran to its end, traced to the end: the findings cover the whole run.
  bool ApplyFinished() const { return !timed_out && trace_complete && puppet_exit_code <= 128; }
  // Why not, in a few words ("timed out while applying the catalog"); empty when it did.
  std::string WhyUnfinished() const;
};

struct FindingsContext {
  std::string trace_name;
  // False when the trace was analysed as it streamed and not kept (`fsmove check` without
  // --save-trace): the report says once that its line numbers refer to a trace that is gone.
  bool trace_kept = true;
  const analysis::Analyzer* analyzer = nullptr;
  const catalog::Catalog* catalog = nullptr;
  const graph::DependencyGraph* graph = nullptr;
  // The graph Puppet wrote (`puppet apply --graph`) when the findings were checked against
  // it; empty: fsmove's model of the catalog.
  std::string puppet_graph;
  const check::CheckResult* result = nullptr;
  CheckSeconds seconds;
  const RunSummary* run = nullptr;
  // Findings the project accepted (configuration ignore_pairs, baseline); null: none.
  const check::Suppressions* suppressions = nullptr;
  // Text and SARIF show suppressed findings in full (they are always counted, and JSON
  // always lists them under "suppressed").
  bool show_suppressed = false;
  // Show findings of low confidence in text (--all); JSON and SARIF always carry them.
  bool show_low = false;
  bool IsHidden(size_t finding) const;  // low confidence, not shown without --all

  bool IsSuppressed(size_t finding) const {
    return suppressions != nullptr && suppressions->IsSuppressed(finding);
  }
  // Findings that fail the run: not suppressed (nor hidden), and the resources that are not
  // idempotent. `confirmed_only` (--fail-on confirmed): only confirmed findings and those.
  size_t ReportedCount(bool confirmed_only = false) const;
  const std::vector<NotIdempotent>& not_idempotent() const;
};

// The Puppet-run part of a report; empty when there was no run.
void WriteRunText(std::ostream& out, const RunSummary& run);
nlohmann::json RunToJson(const RunSummary& run);

// Text: each finding that is not suppressed, then a line per suppressed finding and the
// baseline entries no longer found. JSON: "faults" (not suppressed), "suppressed" (same
// fields plus "suppression": {kind "ignore_pair"|"baseline", justification}), "summary"
// {MOR, MN, suppressed}, "baseline" {file, suppressed, absent[]} with a baseline; every
// fault has its "fingerprint".
void WriteFindingsText(std::ostream& out, const FindingsContext& c);
nlohmann::json FindingsToJson(const FindingsContext& c);

// "must be applied before" / "must notify" sentences shared by the text, SARIF and JUnit
// reports: "Exec[use config] must be applied after File[/etc/app.conf]".
std::string FindingHeadline(const check::Finding& f, const catalog::Catalog& cat);
// What each side did to one path: "produced by File[x] (rename at line 431418), consumed by
// Exec[y] (openat at line 431759)".
// What a user does about a resource that is not idempotent.
std::string NotIdempotentFix(const NotIdempotent& n, const catalog::Catalog& cat);
// "changes on every apply", "converged on the third apply", ...
std::string NotIdempotentBehaviour(const NotIdempotent& n);
// The resource in the catalog, or null (a generated resource).
const catalog::Resource* NotIdempotentResource(const NotIdempotent& n, const catalog::Catalog& cat);
// Stable identity, like a finding's: SHA-256 of "fsmove-finding/v1\nnot-idempotent\n" + ref.
std::string NotIdempotentFingerprint(const NotIdempotent& n);

std::string EvidenceText(const check::PathEvidence& e, const catalog::Resource& source,
                         const catalog::Resource& target);

}  // namespace fsmove::report
