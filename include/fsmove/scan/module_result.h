// One module's outcome in a batch scan: its status, decided from how `fsmove check` ended and
// what it wrote, with the counts and times the summary shows.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"

namespace fsmove::scan {

enum class ModuleStatus {
  kOk,
  kFindings,
  kResourcesFailed,  // the apply ran to its end, but resources failed in it
  kCompileFailed,
  // The compile stopped on a class, defined type or function of a module the module depends
  // on (metadata.json or .fixtures.yml) that no modulepath directory holds.
  kMissingDependency,
  kApplyFailed,
  kTimeout,
  kCrashed,
  kMissing,  // the module directory is not there: never checked, retried on resume
  // A module with no class of its name to include and no other run (examples, acceptance
  // specs, public classes): never checked; `error` says what was looked for.
  kNothingToApply,
};

std::string_view ModuleStatusName(ModuleStatus s);  // "ok", "findings", "compile-failed", ...
std::optional<ModuleStatus> ParseModuleStatus(std::string_view name);

struct ModuleResult {
  std::string module;  // identity (NormalizeModulePath)
  ModuleStatus status = ModuleStatus::kCrashed;
  int mor = 0;
  int mn = 0;
  int confirmed = 0;  // findings a replay confirmed (scan --confirm)
  int ni = 0;         // resources that are not idempotent (scan --idempotence)
  uint64_t trace_bytes = 0;
  double apply_seconds = 0;
  // fsmove's own time: parse + interpret (without the time spent waiting for Puppet),
  // catalog and graph, check; never the compile or apply.
  double analysis_seconds = 0;
  std::string error;  // one line, for every status but ok and findings
  // What went wrong without being the reason: custom facts that failed ("custom fact 'x'
  // failed"; Puppet compiles on without them).
  std::vector<std::string> warnings;
  int check_exit = -1;  // check's exit code (128 + N when killed by signal N)
};

// What a finished `fsmove check` child left behind.
struct CheckOutcome {
  int exit_code = -1;  // shell-style: 128 + N when killed by signal N
  bool killed_by_signal = false;
  bool hard_killed = false;              // the scan killed it after --timeout plus the grace period
  std::optional<nlohmann::json> report;  // report.json, when complete and parsable
  bool has_catalog = false;              // catalog.json was written
  std::string check_log;                 // check's stderr
  // The run's module's dependencies (metadata.json, .fixtures.yml) that no modulepath
  // directory holds, as exec::MissingModules names them.
  std::vector<std::string> missing_dependencies;
  // The module the compile error shows Puppet lacked (exec::UnfoundModule), when it is on no
  // modulepath directory either, whether or not the module names it as a dependency.
  std::string absent_module;
};

// The status mapping (also in docs/scan.md and `fsmove scan --help`):
//   hard-killed by the scan                                   -> timeout
//   killed by a signal                                        -> crashed
//   exit 0 or 1 with a report listing failed resources        -> resources-failed
//   exit 0 with a report                                      -> ok
//   exit 1 with a report                                      -> findings
//   exit 2, report says run.timed_out, or no report and
//     "(--timeout)" in check.log (stopped while compiling)    -> timeout
//   exit 2, "could not compile" in check.log, or no catalog   -> compile-failed (the error
//     that ended the compile, never a custom fact's: those are warnings), or
//     missing-dependency when that error is a class, defined type or function not found
//     whose module is one of `missing_dependencies` or is `absent_module`
//   exit 2 with a report: Puppet killed, trace incomplete or
//     failed resources                                        -> apply-failed
//   anything else (no report, other exit codes, exit 2 with a
//     report but no sign of a failed run)                     -> crashed
// Counts and times come from the report whenever there is one. (`missing` and
// `nothing-to-apply` are decided by the scan before any check runs.)
ModuleResult Classify(const std::string& module, const CheckOutcome& outcome);

// The most telling line of check's stderr: its first "error:" line without the "fsmove: "
// prefix, else its last non-empty line; cut to 300 characters.
std::string ErrorLine(std::string_view check_log);

// A module's outcome was final: a rerun skips it. `missing` is not (the directory may be
// there next time), nor `nothing-to-apply` (the module may have gained a class or example;
// deciding it again runs no check).
bool IsFinal(ModuleStatus s);

nlohmann::json ToJson(const ModuleResult& r);
// Null when a field is missing or of the wrong type, or the status is unknown.
std::optional<ModuleResult> ModuleResultFromJson(const nlohmann::json& j);

}  // namespace fsmove::scan
