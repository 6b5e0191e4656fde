// `fsmove check` as a library: one request in, one outcome out. Holds the run of Puppet under
// strace with the analysis attached (traced_run.h), the replays of --confirm (confirm.h), the
// re-checks of --fix-diff's patches (fix_verify.h), the report (pipeline/) and how the check
// ends (check_end.h). The command line only turns flags into a Request and prints through a
// Sink; tests run it on a recorded run (a Machine of their own).
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/check_end.h"
#include "fsmove/exec/check_request.h"
#include "fsmove/exec/executor.h"
#include "fsmove/exec/target.h"
#include "fsmove/pipeline/check_and_report.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::check {

// Where a check's words go: its diagnostics (standard error, one line each, on the command
// line) and the report when it has no file of its own (standard output).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void Say(const Diagnostic& d) = 0;
  virtual std::ostream& out() = 0;
  void Say(const std::vector<Diagnostic>& diagnostics) {
    for (const Diagnostic& d : diagnostics) Say(d);
  }
};

// What `fsmove check` checks and how hard it tries (the flags past the report's).
struct Request {
  exec::CheckRequest run;   // target, sandbox, limits, files to keep; its root is set by Run
  std::string root;         // --root: "auto", "host", a known root's name, or a directory
  bool full_trace = false;  // strace records every call, not only the modelled ones
  bool verbose = false;     // the run's notes, even when it went well
  bool keep_work = false;
  bool discard_work = false;  // fsmove scan: what matters is in the module's folder
  bool confirm = false;       // replay the findings (confirm.h)
  bool idempotence = false;   // run.reapplies says how many more applies
  std::string keep_replays;   // --keep-replays DIR
  int jobs = 0;               // replays at once; 0: the CPUs this process may use
  // --fix-diff, --fix (settings.report.fix.scope is its CheckFixScope): the code the patches
  // are re-checked on; none without them.
  std::optional<exec::ResolvedTarget> fix_target;
};

// The OS root a check runs Puppet on in the sandbox unless --root says otherwise (see
// docs/check.md: "OS roots").
inline constexpr std::string_view kDefaultRoot = "debian-12";
// --root's default: the root the target module's metadata.json asks for (root_choice.h),
// kDefaultRoot when it fits or nothing is asked.
inline constexpr std::string_view kAutoRoot = "auto";
// --init's default: none, and systemd when a run's only failures are Services with no init
// script (ServicesWantingSystemd): the run is made again under systemd, and that one reported.
inline constexpr std::string_view kAutoInit = "auto";

// The options that need one another, and every output (report files, saved catalog, graph,
// trace and log), checked before Puppet runs: an unwritable -o found after a long run loses
// the run. The first that does not agree; sets request->run.reapplies (--idempotence), and
// makes the --keep-replays directory.
absl::Status OptionsAgree(Request* request, const pipeline::ReportSettings& report);

// --root, by default kAutoRoot in the sandbox (resolved here into a known root's name, with
// the choice's reasons in request->run: the project's .fsmove.json `root` when it sets one,
// else what the module's metadata.json asks for) and the host without one: an error when it
// cannot be used, or when the module's metadata.json asks in words that do not parse.
absl::Status RootAgrees(Request* request, const checker::ProjectConfig& config = {});

// The machine Puppet runs on. Run's default is exec's sandbox (SandboxMachine); a test gives
// one that replays a recorded run.
class Machine {
 public:
  virtual ~Machine() = default;
  // Readies `request` for its run (the OS root `root` resolved into it, built when missing,
  // and held until this object goes; the preflight); an error stops the check.
  virtual absl::Status Prepare(const std::string& root, exec::CheckRequest* request,
                               Sink& sink) = 0;
  // Runs Puppet with `analyzer` reading its trace (all calls with `full_trace`).
  virtual absl::StatusOr<exec::RunResult> RunTraced(const exec::CheckRequest& request,
                                                    bool full_trace,
                                                    analysis::Analyzer& analyzer) = 0;
};
std::unique_ptr<Machine> SandboxMachine();

// How the findings are reported, and the project's files (loaded before: a bad one fails in
// a second, not after the run).
struct Settings {
  pipeline::ReportSettings report;
  pipeline::ProjectInputs project;
  Machine* machine = nullptr;  // null: SandboxMachine()
};

struct Outcome {
  // The report's verdict; none when the check ended before one (or could not write it).
  std::optional<pipeline::Verdict> verdict;
  int exit_code = kExitOk;  // check_end.h's table
};

// The whole check: the run, its findings reported (with replays and re-checks when asked),
// and how it ends. Everything it says goes to `sink`.
Outcome Run(const Request& request, const Settings& settings, Sink& sink);

// The check's last stage, shared with `fsmove analyze`: pipeline::CheckAndReport with the
// report on sink.out() and its warnings and notes said, and the verdict's exit code (kExitOk,
// kExitFindings, kExitIncomplete without --allow-failed, kExitError with the error said).
Outcome ReportFindings(const pipeline::ReportSettings& settings,
                       const pipeline::ProjectInputs& project, const catalog::Catalog& cat,
                       report::FindingsContext ctx, Sink& sink,
                       const pipeline::PuppetGraphInput* puppet_graph = nullptr,
                       const pipeline::BeforeReport& before_report = nullptr,
                       const pipeline::VerifyFixes& verify_fixes = nullptr);

// A check that ended before its report (check_end.h's EndBeforeReport, which `said` why): the
// formats CI reads are written all the same, saying so (report/failed_run.h), where the
// report settings send them (the main format without -o to sink.out()).
void WriteFailedRunReports(const pipeline::ReportSettings& report, const std::string& target,
                           const std::vector<Diagnostic>& said, Sink& sink);

// Says `status`'s message as an error; the outcome of a check that ended on it (kExitError).
Outcome Fail(const absl::Status& status, Sink& sink);

// pipeline::TraceWarnings said: kExitError with --strict when there is one (said), else kExitOk.
int TraceWarnings(bool strict, const analysis::Analyzer& analyzer, const std::string& name,
                  bool run_finished, Sink& sink);

// What a loaded catalog holds that Puppet would refuse or that makes the graph incomplete
// (references to resources it does not contain, clashing aliases, ...): a warning each,
// naming the catalog file and the JSON pointer, so that none goes unseen.
std::vector<Diagnostic> CatalogWarnings(const catalog::Catalog& cat);

}  // namespace fsmove::check
