// Reads what `puppet apply` printed: the resources that failed and the other errors, since a
// failed resource is often the visible symptom of a missing ordering relationship; and what
// systemd logged of the units the apply started.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/base/run_summary.h"

namespace fsmove::exec {

// The summary this layer fills (base/run_summary.h).
using base::FailedResource;
using base::IdempotenceSummary;
using base::NotIdempotent;
using base::RunSummary;

struct PuppetLogSummary {
  // One per resource, in the order they first failed, with Puppet's whole error: every
  // "Error:" line naming the resource (by path, or by reference in a line naming no path)
  // with the lines continuing each, repetitions dropped, joined by newlines.
  std::vector<FailedResource> failed;
  std::vector<std::string> errors;  // errors naming no failed resource (continuations included)
  size_t skipped = 0;               // "Skipping because of failed dependencies" warnings
  // Facter's "Error:" lines, which are not the run's errors: a module's custom fact that failed
  // (in the sandbox's root it often reads what a real node has, /etc/ssh), or Facter's own
  // about the machine it runs on (the sandbox: its PID 1, its container runtime). Puppet goes
  // on without the fact. One warning each ("custom fact 'NAME' failed: why", "Facter: ..."),
  // repetitions dropped, the first few and a count of the rest.
  std::vector<std::string> facter_warnings;
};

// What one apply did to a resource, from Puppet's log of it.
struct ResourceOutcome {
  // Its changes, "property: message" in log order ("returns: executed successfully",
  // "content: content changed '{sha256}1f..' to '{sha256}9a..'"), the first 20.
  std::vector<std::string> changes;
  bool failed = false;
  std::string error;       // with failed: Puppet's whole error (as in PuppetLogSummary)
  bool skipped = false;    // "Skipping because of failed dependencies"
  bool refreshed = false;  // "Triggered 'refresh' from N events"
};

struct ApplyOutcomes {
  std::map<std::string, ResourceOutcome> resources;  // by canonical reference; only those
                                                     // with something to say
  // Every resource Puppet began to evaluate (--evaltrace's "Starting to evaluate the
  // resource"), skipped ones included, by the same references.
  std::set<std::string> evaluated;
  bool dependency_cycle = false;  // Puppet refused the catalog: "Found N dependency cycles"
  std::string failed_to_apply;    // "Failed to apply catalog: ..." (Puppet stopped): its text
};

// Each resource's outcome in the log of one `puppet apply` (any log level). `failed`: the
// log's failed resources when SummarisePuppetLog has found them already.
ApplyOutcomes ParseApplyOutcomes(std::string_view log);
ApplyOutcomes ParseApplyOutcomes(std::string_view log, std::vector<FailedResource> failed);

// The resources that the second apply of the same catalog changed again or made fail
// (--idempotence), in reference order; `third` (null when no third apply ran) tells a change
// on every apply from a one-time convergence. Notify resources (they log on every apply by
// design) and resources that failed or were skipped in the first apply are left out.
std::vector<NotIdempotent> FindNotIdempotent(const ApplyOutcomes& first,
                                             const ApplyOutcomes& second,
                                             const ApplyOutcomes* third);

// `max_errors` caps the resource-less error lines kept (the count of failures is exact).
PuppetLogSummary SummarisePuppetLog(std::string_view log, size_t max_errors = 20);

// Puppet's compile output with each error once: an "Error:" line repeating an earlier one
// (Puppet repeats it as it unwinds, with a prefix) and the usage hint after it are dropped.
// `log` is StripAnsi'd compile output.
std::string DeduplicateErrors(std::string_view log);

// Facter's errors about custom facts ("Error: Facter: Error while resolving custom fact
// 'ssh_client_version_full': ..."): a module's fact that failed on this machine. Puppet goes
// on compiling without it, so such a line is a warning, never why a compile failed. Returns
// the facts' names, in order, once each.
std::vector<std::string> FailedCustomFacts(std::string_view log);

// The error that stopped Puppet's compile, without its "Error: " prefix: the first "Error:"
// line that is neither a custom fact's (above) nor the usage hint, preferring the evaluation,
// parse and lookup errors that end a compile over the ones that report them again ("Could not
// call 'find' on 'catalog'", "Failed to compile catalog ..."). Empty when there is none.
// `log` is StripAnsi'd.
std::string FatalCompileError(std::string_view log);

// The compile error says a class, defined type or function was not found: modules missing
// from the modulepath. (An unknown legacy fact is not that: see LegacyFactUsed.)
bool LacksModules(std::string_view compile_log);

// The class, defined type, data type or function a compile error says Puppet did not find
// ("Could not find class ::foo", "Unknown resource type: 'foo::bar'", "Resource type not
// found: Foo::Bar", "Unknown function: 'foo::bar'", or a class's variable: "Unknown variable:
// '::foo::params::x'"), as written there without a leading "::"; empty when the error is not
// that.
std::string UnfoundName(std::string_view error);

// The module a class, type or function name belongs to by Puppet's autoloading: its first
// segment, lower-cased ("Stdlib::Ip_address" -> "stdlib"; "concat" -> "concat").
std::string ModuleOfName(std::string_view name);

// The module whose absence the compile error shows: the module of UnfoundName when
// autoloading ties the name to one, that is for a class (`foo` lives in module foo) or a
// namespaced name (`foo::bar`, `Foo::Bar`); empty otherwise (a plain function or type, such as
// `pick` or `ini_setting`, may come from any module).
std::string UnfoundModule(std::string_view error);

// The Forge module that holds `type`, one of the resource types Puppet 6 moved out of Puppet
// into modules of their own (Debian's puppet package bundles none of them): "augeas" ->
// "puppetlabs-augeas_core"; empty for any other name.
std::string CoreTypeModule(std::string_view type);

// The legacy fact ("osfamily") whose variable the compile error says is unknown: Puppet 8
// (Facter 4 with legacy facts off) no longer sets $::osfamily and its kind, so code written
// for Puppet 7 or older stops there. Empty when the error is not that.
std::string LegacyFactUsed(std::string_view compile_log);

// Removes ANSI colour sequences (ESC [ ... letter).
std::string StripAnsi(std::string_view text);

// A service unit that systemd's log says failed: its main process exited or was killed once
// started ("Main process exited, code=exited, status=2/INVALIDARGUMENT"), or it failed with a
// result ("Failed with result 'exit-code'"). Its daemon exited: what it would have read after
// is not in the trace.
struct FailedUnit {
  std::string unit;  // "clamav-freshclam.service"
  std::string why;   // the log's words, the main process's end when the log has it
};
// The failed service units of systemd's log of the apply (sandbox.h's kSystemdLog, read line
// by line as Puppet's is), in order of their first failure, each once (the first
// kMaxFailedUnits). Module code can write to the console the log drains, so a line may be
// forged: what this returns is only ever a warning.
inline constexpr size_t kMaxFailedUnits = 20;
std::vector<FailedUnit> FailedUnits(std::string_view systemd_log);

}  // namespace fsmove::exec
