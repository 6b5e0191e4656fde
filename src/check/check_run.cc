// `fsmove check` as a library; see check_run.h.
#include "fsmove/check/check_run.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/seconds.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/check/confirm.h"
#include "fsmove/check/fix_verify.h"
#include "fsmove/check/traced_run.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/exec/preflight.h"
#include "fsmove/exec/root_choice.h"
#include "fsmove/exec/target.h"
#include "fsmove/report/failed_run.h"

namespace fsmove::check {
namespace {

using Clock = std::chrono::steady_clock;

// The run's work directory (Puppet's logs, the sandbox's spec): removed when the check ends
// unless kept, and then named once (unless a message already did).
class WorkDirectory {
 public:
  WorkDirectory(std::string path, WorkPolicy policy, Sink& sink)
      : path_(std::move(path)), policy_(policy), sink_(sink) {}
  ~WorkDirectory() {
    if (policy_.keep) {
      if (!policy_.named) {
        sink_.Say(Note(absl::StrCat("the run's work directory (Puppet's log) is kept: ", path_)));
      }
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (ec) sink_.Say(Warning(absl::StrCat("cannot remove ", path_, ": ", ec.message())));
  }
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;

 private:
  std::string path_;
  WorkPolicy policy_;
  Sink& sink_;
};

// exec's sandbox on an OS root, held (a shared lock) until the check is over so that no
// `fsmove root build --rebuild` replaces it meanwhile.
class Sandbox : public Machine {
 public:
  ~Sandbox() override {
    if (root_lock_ >= 0) close(root_lock_);
  }
  absl::Status Prepare(const std::string& root, exec::CheckRequest* request, Sink& sink) override {
    if (root_lock_ >= 0) close(root_lock_);  // prepared again (--init auto's second run)
    root_lock_ = -1;
    exec::RootBuildOptions build;
    build.say = [&sink](const base::Diagnostic& d) { sink.Say(d); };
    absl::StatusOr<exec::OsRoot> resolved = exec::ResolveRoot(root, /*build_missing=*/true, build);
    if (!resolved.ok()) return resolved.status();
    request->root = *resolved;
    root_lock_ = exec::LockRootShared(request->root);
    return exec::Preflight(*request);
  }
  absl::StatusOr<exec::RunResult> RunTraced(const exec::CheckRequest& request, bool full_trace,
                                            analysis::Analyzer& analyzer) override {
    return check::RunTraced(request, full_trace, analyzer);
  }

 private:
  int root_lock_ = -1;
};

// --fix-diff, --fix: the patches re-checked on a patched copy with this check's options (no
// --confirm); a run that did not finish proves nothing, and no patch is offered then. A signal
// that interrupts a re-check is left in *interrupted_by.
pipeline::VerifyFixes FixVerifier(const Request& request, const Settings& settings,
                                  const exec::CheckRequest& req, const exec::RunResult& run,
                                  int* interrupted_by) {
  if (run.end != exec::RunEnd::kApplied || !run.summary.ApplyFinished()) {
    return [](const report::FindingsContext&, checker::CheckResult* result,
              const fix::FixPlanner& planner) {
      for (size_t i = 0; i < result->findings.size(); ++i) {
        checker::Finding& f = result->findings[i];
        if (!planner.Planned(i) || !f.patch) continue;
        f.patch->verdict = checker::FixVerdict::kFailed;
        f.patch->reason = "not verified: the check's own apply did not finish";
      }
    };
  }
  FixVerifyInputs in;
  in.request = req;
  in.target = *request.fix_target;
  in.full_trace = request.full_trace;
  in.settings = settings.report;
  in.project = settings.project;
  for (const report::FailedResource& f : run.summary.failed) in.failed_before.push_back(f.resource);
  in.interrupted_by = interrupted_by;
  return MakeFixVerifier(in);
}

// Puppet's own graph of this apply, when it wrote one (else a warning, and the check uses
// fsmove's model of the catalog).
std::optional<pipeline::PuppetGraphInput> RunGraph(const exec::CheckRequest& req,
                                                   const exec::RunResult& run, bool work_kept,
                                                   Sink& sink) {
  if (run.puppet_graph.empty()) {
    sink.Say(Warning(
        absl::StrCat("no graph from Puppet (",
                     (run.puppet_graph_note.empty() ? "none written" : run.puppet_graph_note),
                     "); checking against fsmove's model of the catalog")));
    return std::nullopt;
  }
  std::string name = req.save_graph;
  if (name.empty()) {
    name = work_kept ? run.puppet_graph_path : "not kept: --save-graph FILE keeps it";
  }
  return pipeline::PuppetGraphInput{name, run.puppet_graph, /*required=*/false};
}

// Why systemd skipped a unit: " (ConditionVirtualization=!container was not met)", or the
// plain fact when systemd named no condition. Module code can reach systemd, so its words are
// made safe to print.
std::string SkipReason(const exec::FailedUnit& u) {
  return absl::StrCat(
      " (", u.why.empty() ? "a start condition was not met" : base::TerminalSafe(u.why), ")");
}

// What the run says of the catalog's Services whose daemon is gone or never ran, as warnings:
// what it would read is not in the trace (a missing notifier to it can go unseen, and --confirm
// cannot replay it). A Service is its unit by its name (or title), with or without ".service".
// - A Service whose unit systemd's log says failed once started.
// - A Service whose unit systemd skipped: its start condition was unmet in the sandbox
//   (ConditionVirtualization=!container), which the machine it is for may meet. A skipped unit
//   no Service names (a package's own) is said by its name.
// - Without systemd nothing else says so (an init script that reported the start succeeded;
//   Puppet calls the service running): a Service whose start left a process that then exited
//   with a failure, once Puppet had gone on to other resources or the process that made it had
//   exited (the trace's DaemonExit), unless its unit is already named.
std::vector<std::string> DeadDaemonWarnings(const catalog::Catalog& cat,
                                            const std::vector<exec::FailedUnit>& failed,
                                            const std::vector<exec::FailedUnit>& skipped,
                                            const analysis::Analyzer& analyzer) {
  std::vector<std::string> out;
  std::set<std::string> named, skipped_named;
  auto unit_of = [](const catalog::Resource& r) {
    std::string unit = r.StringParameter("name").value_or(r.title);
    if (!unit.ends_with(".service")) unit += ".service";
    return unit;
  };
  for (const catalog::Resource& r : cat.resources()) {
    if (r.type != "Service" || (failed.empty() && skipped.empty())) continue;
    const std::string unit = unit_of(r);
    for (const exec::FailedUnit& u : failed) {
      if (u.unit != unit) continue;
      named.insert(r.ref);
      out.push_back(absl::StrCat(r.ref, ": systemd's log says its unit ", u.unit, " failed (",
                                 u.why,
                                 "): its daemon exited, so what it would have read after is "
                                 "not in the trace, and a missing notifier to it can go "
                                 "unseen"));
    }
    for (const exec::FailedUnit& u : skipped) {
      if (u.unit != unit) continue;
      named.insert(r.ref);
      skipped_named.insert(u.unit);
      out.push_back(absl::StrCat(r.ref, ": systemd skipped its unit ", u.unit, SkipReason(u),
                                 ": its daemon never ran in the sandbox, so what it would read "
                                 "is not in the trace, and a missing notifier to it can go "
                                 "unseen"));
    }
  }
  for (const exec::FailedUnit& u : skipped) {
    if (skipped_named.contains(u.unit)) continue;
    skipped_named.insert(u.unit);
    out.push_back(absl::StrCat("systemd skipped the unit ", base::TerminalSafe(u.unit),
                               SkipReason(u),
                               " during the apply: its daemon never ran in the sandbox"));
  }
  for (const analysis::DaemonExit& d : analyzer.stats().daemon_exits) {
    const std::string& ref = analyzer.interpreter().blocks().info(d.block).ref;
    if (named.contains(ref)) continue;
    out.push_back(absl::StrCat(
        ref, ": a process its start left running",
        d.program.empty() ? std::string() : absl::StrCat(" (", base::TerminalSafe(d.program), ")"),
        ", pid ", d.pid, ", exited with status ", d.status, " at trace line ", d.line,
        ", after its start had returned: if it was the daemon, what it would have read after is "
        "not in the trace, and a missing notifier to it can go unseen"));
  }
  return out;
}

// The findings of a run Puppet applied (all or part of): the catalog, Puppet's graph, the
// replays (--confirm) and the patches (--fix-diff) they are checked and reported with, and how
// the check then ends.
Outcome ReportRun(const Request& request, const Settings& settings, const exec::CheckRequest& req,
                  exec::RunResult& run, analysis::Analyzer& analyzer, bool work_kept, Sink& sink) {
  auto t = Clock::now();
  auto cat = exec::LoadRunCatalog(run, req.budget);
  if (absl::IsResourceExhausted(cat.status())) {
    // fsmove's own limit on the catalog: nothing was checked, and the check is incomplete.
    sink.Say(Error(std::string(cat.status().message())));
    return {std::nullopt, kExitIncomplete};
  }
  if (!cat.ok()) return Fail(cat.status(), sink);
  sink.Say(CatalogWarnings(*cat));
  for (std::string& w : DeadDaemonWarnings(*cat, run.failed_units, run.skipped_units, analyzer))
    run.summary.warnings.push_back(std::move(w));
  report::FindingsContext ctx;
  ctx.trace_name = "strace output of puppet apply";
  if (!req.save_trace.empty()) ctx.trace_name = req.save_trace;
  ctx.trace_kept = !req.save_trace.empty();
  ctx.analyzer = &analyzer;
  ctx.seconds.parse_interpret = run.analysis_seconds;
  ctx.seconds.catalog_and_graph = base::SecondsSince(t);
  ctx.seconds.catalog_load = ctx.seconds.catalog_and_graph;
  ctx.run = &run.summary;
  const int warned = TraceWarnings(settings.report.strict, analyzer, ctx.trace_name,
                                   run.summary.ApplyFinished(), sink);
  if (warned != kExitOk) return {std::nullopt, warned};
  std::optional<pipeline::PuppetGraphInput> puppet_graph = RunGraph(req, run, work_kept, sink);
  pipeline::BeforeReport confirm;
  ConfirmOptions co;
  int confirm_signal = 0;
  if (request.confirm) {
    co.jobs = request.jobs > 0
                  ? request.jobs
                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    co.keep_dir = request.keep_replays;
    co.progress = req.progress;
    confirm = [&](const report::FindingsContext& c, checker::CheckResult* result) {
      if (run.end != exec::RunEnd::kApplied) return;  // a run that did not finish: no replays
      const auto t0 = Clock::now();
      confirm_signal = ConfirmFindings(req, run, *cat, c, co, result);
      run.summary.confirm_seconds = base::SecondsSince(t0);
    };
  }
  pipeline::VerifyFixes verify_fixes;
  int fix_signal = 0;
  if (request.fix_target) verify_fixes = FixVerifier(request, settings, req, run, &fix_signal);
  const Outcome reported =
      ReportFindings(settings.report, settings.project, *cat, ctx, sink,
                     puppet_graph ? &*puppet_graph : nullptr, confirm, verify_fixes);
  if (confirm_signal != 0) {
    sink.Say(Info(absl::StrCat("interrupted (", sigabbrev_np(confirm_signal),
                               ") while replaying: the report says which findings were not "
                               "replayed")));
    return {reported.verdict, ExitForSignal(confirm_signal)};
  }
  if (fix_signal != 0) {
    sink.Say(Info(absl::StrCat("interrupted (", sigabbrev_np(fix_signal),
                               ") while verifying the patches: the report says which were not "
                               "verified")));
    return {reported.verdict, ExitForSignal(fix_signal)};
  }
  const bool limit_hit =
      !analyzer.result().limits_hit.empty() || !run.summary.host_limits_hit.empty();
  const End end = EndAfterReport(run, reported.exit_code, req.timeout_seconds, limit_hit);
  sink.Say(end.say);
  return {reported.verdict, end.exit_code};
}

}  // namespace

std::unique_ptr<Machine> SandboxMachine() { return std::make_unique<Sandbox>(); }

Outcome Fail(const absl::Status& status, Sink& sink) {
  sink.Say(Error(std::string(status.message())));
  return {std::nullopt, kExitError};
}

Outcome Run(const Request& request, const Settings& settings, Sink& sink) {
  std::unique_ptr<Machine> own;
  Machine* machine = settings.machine;
  if (machine == nullptr) {
    own = SandboxMachine();
    machine = own.get();
  }
  exec::CheckRequest req = request.run;
  const bool init_auto = req.init == kAutoInit;
  if (init_auto) req.init = "none";
  if (absl::Status st = machine->Prepare(request.root, &req, sink); !st.ok()) {
    return Fail(st, sink);
  }
  std::optional<analysis::Analyzer> analyzer(std::in_place, AnalyzerOptionsFor(req));
  auto run = machine->RunTraced(req, request.full_trace, *analyzer);
  if (!run.ok()) return Fail(run.status(), sink);
  // --init auto: a run whose only failures are Services with no init script (a systemd unit
  // only) is made again with systemd as PID 1, where they start; the first is not reported.
  std::vector<std::string> services;
  if (init_auto && run->end == exec::RunEnd::kApplied &&
      req.sandbox == exec::SandboxMode::kOverlay) {
    services = ServicesWantingSystemd(run->summary);
  }
  if (!services.empty() && services.size() == run->summary.failed.size()) {
    const std::string why = absl::StrCat(
        absl::StrJoin(services, ", "),
        " failed without systemd (no init script of that name, a systemd unit or alias only; or "
        "the systemd provider)");
    sink.Say(Note(absl::StrCat(why, ": applying again with systemd as PID 1 (--init auto)")));
    std::error_code ec;
    std::filesystem::remove_all(run->work_dir, ec);
    req.init = "systemd";
    if (absl::Status st = machine->Prepare(request.root, &req, sink); !st.ok()) {
      return Fail(st, sink);
    }
    analyzer.emplace(AnalyzerOptionsFor(req));
    run = machine->RunTraced(req, request.full_trace, *analyzer);
    if (!run.ok()) return Fail(run.status(), sink);
    run->summary.init_choice = why;
  }
  if (request.verbose || run->end != exec::RunEnd::kApplied) {
    for (const auto& n : run->notes) sink.Say(Note(std::string(n)));
  }
  if (request.idempotence) sink.Say(SummarizeIdempotence(&*run));
  run->summary.confirm = request.confirm;
  // A run that went wrong keeps its work directory: Puppet's log and the sandbox's files are
  // what a user looks at next. A clean one leaves nothing behind unless --keep-work.
  const WorkPolicy policy = DecideWorkDirectory(*run, request.keep_work, request.discard_work);
  WorkDirectory work(run->work_dir, policy, sink);
  if (!policy.keep && req.puppet_log.empty()) run->summary.puppet_log.clear();
  if (auto end = EndBeforeReport(*run, policy.keep, req.timeout_seconds, req.root.puppet_version)) {
    sink.Say(end->say);
    WriteFailedRunReports(settings.report, run->summary.target, end->say, sink);
    return {std::nullopt, end->exit_code};
  }
  if (req.untraced) {
    sink.out() << "untraced apply: " << run->summary.apply_seconds << " s, puppet exit code "
               << run->summary.puppet_exit_code << "\n";
    return {std::nullopt, run->end == exec::RunEnd::kApplied ? kExitOk : kExitError};
  }
  return ReportRun(request, settings, req, *run, *analyzer, policy.keep, sink);
}

void WriteFailedRunReports(const pipeline::ReportSettings& report, const std::string& target,
                           const std::vector<Diagnostic>& said, Sink& sink) {
  std::string error;
  for (const Diagnostic& d : said) {
    if (d.severity != Diagnostic::Severity::kError && d.severity != Diagnostic::Severity::kPlain) {
      continue;
    }
    if (!error.empty()) error += '\n';
    error += d.text;
  }
  if (error.size() > 8000) error = error.substr(0, 8000) + "\n...";
  auto write = [&](std::string_view format, const std::string& file) {
    const std::string doc = report::FailedRunDocument(format, target, error);
    if (doc.empty()) return;
    if (file.empty()) {
      sink.out() << doc;
    } else if (absl::Status st = base::WriteOutputFile(file, doc); !st.ok()) {
      sink.Say(Error(std::string(st.message())));
    }
  };
  write(report.format, report.output);
  for (const pipeline::ExtraOutput& e : pipeline::kExtraOutputs) {
    if (!(report.*e.file).empty()) write(e.format, report.*e.file);
  }
}

absl::Status OptionsAgree(Request* request, const pipeline::ReportSettings& report) {
  exec::CheckRequest& req = request->run;
  if (!request->keep_replays.empty()) {
    if (!request->confirm) return absl::InvalidArgumentError("--keep-replays needs --confirm");
    std::error_code ec;
    std::filesystem::create_directories(request->keep_replays, ec);
    if (ec || !std::filesystem::is_directory(request->keep_replays)) {
      return absl::InvalidArgumentError(absl::StrCat("--keep-replays ", request->keep_replays, ": ",
                                                     (ec ? ec.message() : "not a directory")));
    }
  }
  if (report.fail_on == "confirmed" && !request->confirm && !request->idempotence) {
    return absl::InvalidArgumentError(
        "--fail-on confirmed needs --confirm or --idempotence (nothing else is confirmed)");
  }
  req.reapplies = request->idempotence ? 2 : 0;
  std::vector<const std::string*> outputs = report.OutputFiles();
  outputs.insert(outputs.end(),
                 {&req.save_catalog, &req.save_graph, &req.puppet_log, &req.save_trace});
  for (const std::string* out : outputs) {
    if (out->empty()) continue;
    if (absl::Status st = base::CheckWritable(*out); !st.ok()) return st;
  }
  return absl::OkStatus();
}

namespace {

// The modules of modulepath directories (a control repo's, --modulepath's), each by name and
// version with its metadata.json.
std::vector<std::pair<std::string, std::string>> ModulepathModules(
    const std::vector<std::string>& modulepath) {
  std::vector<std::string> dirs;
  for (const std::string& d : modulepath) {
    if (d.starts_with('/')) dirs.push_back(d);  // not $basemodulepath
  }
  std::vector<std::pair<std::string, std::string>> modules;
  for (exec::SourceModule& m : exec::ListSourceModules(dirs)) {
    if (m.metadata.empty()) continue;
    modules.emplace_back(absl::StrCat(m.name, m.version.empty() ? "" : " ", m.version),
                         std::move(m.metadata));
  }
  return modules;
}

}  // namespace

absl::Status RootAgrees(Request* request, const checker::ProjectConfig& config) {
  exec::CheckRequest& req = request->run;
  std::string& root = request->root;
  if (root.empty()) {
    root = std::string(req.sandbox == exec::SandboxMode::kOverlay ? kAutoRoot : exec::kHostRoot);
  }
  if (root == kAutoRoot) {
    if (req.sandbox == exec::SandboxMode::kNone) {
      root = std::string(exec::kHostRoot);
      return absl::OkStatus();
    }
    if (!config.root.empty()) {
      if (exec::FindRecipe(config.root) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(config.source_name, ": /root: ", config.root,
                         " is not a pinned root (see fsmove root list)"));
      }
      root = config.root;
      req.root_choice = absl::StrCat("the root ", config.source_name, " names");
      return absl::OkStatus();
    }
    absl::StatusOr<exec::ResolvedTarget> target = exec::ResolveTarget(req.target);
    if (!target.ok()) return target.status();
    if (target->kind == exec::ResolvedTarget::Kind::kEnvironment) {
      // A control repo: what its modules (deployed, and those of its own directories) ask.
      const exec::RootChoice choice =
          exec::ChooseRootForModules(ModulepathModules(target->environment_modulepath),
                                     "the control repo's modules", kDefaultRoot);
      root = choice.name;
      req.root_choice = choice.why;
      req.root_warning = choice.warning;
      return absl::OkStatus();
    }
    // A manifest or code of no module's, with --modulepath (a node's site.pp and the modules it
    // declares): what those modules ask, as for a control repo's.
    if (target->metadata_text.empty() && !req.target.modulepath.empty() &&
        (target->kind == exec::ResolvedTarget::Kind::kManifest ||
         target->kind == exec::ResolvedTarget::Kind::kCode)) {
      const exec::RootChoice choice = exec::ChooseRootForModules(
          ModulepathModules(target->modulepath), "the --modulepath modules", kDefaultRoot);
      root = choice.name;
      req.root_choice = choice.why;
      req.root_warning = choice.warning;
      return absl::OkStatus();
    }
    absl::StatusOr<exec::RootChoice> choice = exec::ChooseRoot(
        target->metadata_text,
        target->metadata_path.empty() ? "metadata.json" : target->metadata_path, kDefaultRoot);
    if (!choice.ok()) return choice.status();
    root = choice->name;
    req.root_choice = choice->why;
    req.root_warning = choice->warning;
  }
  if (req.sandbox == exec::SandboxMode::kNone && root != exec::kHostRoot) {
    return absl::InvalidArgumentError(
        absl::StrCat("--root ", root,
                     " needs the overlay sandbox (it is the sandbox's lower layer); --sandbox none "
                     "applies to this machine itself"));
  }
  return absl::OkStatus();
}

Outcome ReportFindings(const pipeline::ReportSettings& settings,
                       const pipeline::ProjectInputs& project, const catalog::Catalog& cat,
                       report::FindingsContext ctx, Sink& sink,
                       const pipeline::PuppetGraphInput* puppet_graph,
                       const pipeline::BeforeReport& before_report,
                       const pipeline::VerifyFixes& verify_fixes) {
  pipeline::PipelineIo io;
  io.stdout_stream = &sink.out();
  io.say = [&sink](const Diagnostic& d) { sink.Say(d); };
  auto verdict = pipeline::CheckAndReport(settings, project, cat, std::move(ctx), io, puppet_graph,
                                          before_report, verify_fixes);
  if (!verdict.ok()) return Fail(verdict.status(), sink);
  switch (*verdict) {
    case pipeline::Verdict::kClean:
      return {*verdict, kExitOk};
    case pipeline::Verdict::kFindings:
      return {*verdict, kExitFindings};
    case pipeline::Verdict::kIncomplete:
      return {*verdict, kExitIncomplete};
  }
  return {*verdict, kExitError};
}

int TraceWarnings(bool strict, const analysis::Analyzer& analyzer, const std::string& name,
                  bool run_finished, Sink& sink) {
  absl::Status st = pipeline::TraceWarnings(strict, analyzer, name, run_finished,
                                            [&sink](const Diagnostic& d) { sink.Say(d); });
  return st.ok() ? kExitOk : Fail(st, sink).exit_code;
}

std::vector<Diagnostic> CatalogWarnings(const catalog::Catalog& cat) {
  std::vector<Diagnostic> out;
  for (const catalog::CatalogWarning& w : cat.warnings()) {
    out.push_back(Warning(absl::StrCat(cat.source_name(), ": ", base::TerminalSafe(w.json_pointer),
                                       ": ", base::TerminalSafe(w.message))));
  }
  return out;
}

}  // namespace fsmove::check
