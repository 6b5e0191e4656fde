// `fsmove check TARGET`: compile, apply under strace in a sandbox, analyse as it streams, and
// report, with the same formats and exit codes as `fsmove analyze`.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "budget_options.h"
#include "catalog_warnings.h"
#include "commands.h"
#include "confirm.h"
#include "fix_verify.h"
#include "fmt/format.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/executor.h"
#include "fsmove/exec/memory_limit.h"
#include "fsmove/exec/preflight.h"
#include "fsmove/exec/puppet_log.h"
#include "report_options.h"
#include "traced_check.h"

namespace fsmove::cli {
namespace {

// The run's work directory (Puppet's logs, the sandbox's spec): removed when the check ends
// unless kept, and then named once (unless a message already did).
class WorkDirectory {
 public:
  WorkDirectory(std::string path, bool keep, bool named)
      : path_(std::move(path)), keep_(keep), named_(named) {}
  ~WorkDirectory() {
    if (keep_) {
      if (!named_) {
        Say({run::Note(absl::StrCat("the run's work directory (Puppet's log) is kept: ", path_))});
      }
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (ec) Say({run::Warning(absl::StrCat("cannot remove ", path_, ": ", ec.message()))});
  }
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;
  bool kept() const { return keep_; }

 private:
  std::string path_;
  bool keep_;
  bool named_;
};

struct CheckCliOptions {
  std::string target;
  std::string code;
  std::string sandbox;  // empty: overlay as root, none otherwise
  std::string memory_limit = "auto";
  std::string root;  // empty: kDefaultRoot in the overlay sandbox, the host without one
  bool quiet = false;
  bool verbose = false;
  bool keep_work = false;
  bool discard_work = false;  // fsmove scan: what matters is in the module's folder
  bool confirm = false;
  bool idempotence = false;
  bool full_trace = false;  // strace records every call, not only the modelled ones
  bool fix = false;         // --fix: make the verified patches in place
  std::string keep_replays;
  int jobs = 0;  // replays at once; 0: the CPUs this process may use
  exec::CheckRequest request;
  ReportOptions report;
  BudgetFlags budget;
};

void PrintNotes(const exec::RunResult& r, bool verbose) {
  if (!verbose) return;
  for (const auto& n : r.notes) Say({run::Note(std::string(n))});
}

// --fix-diff, --fix: the patches re-checked on a patched copy with this check's options (no
// --confirm); a run that did not finish proves nothing, and no patch is offered then.
pipeline::VerifyFixes FixVerifier(const CheckCliOptions& o, const exec::RunResult& run,
                                  const exec::ResolvedTarget& target,
                                  const pipeline::ProjectInputs& project) {
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
  in.request = o.request;
  in.target = target;
  in.full_trace = o.full_trace;
  in.settings = o.report;
  in.project = project;
  for (const report::FailedResource& f : run.summary.failed) in.failed_before.push_back(f.resource);
  return MakeFixVerifier(in);
}

// The options that need one another, and every output, checked before Puppet runs (an
// unwritable -o found after a long run loses the run); false after saying what is wrong.
bool OptionsAgree(CheckCliOptions& o) {
  exec::CheckRequest& req = o.request;
  if (!o.keep_replays.empty()) {
    if (!o.confirm) {
      Say({run::Error("--keep-replays needs --confirm")});
      return false;
    }
    std::error_code ec;
    std::filesystem::create_directories(o.keep_replays, ec);
    if (ec || !std::filesystem::is_directory(o.keep_replays)) {
      Say({run::Error(absl::StrCat("--keep-replays ", o.keep_replays, ": ",
                                   (ec ? ec.message() : "not a directory")))});
      return false;
    }
  }
  if (o.report.fail_on == "confirmed" && !o.confirm && !o.idempotence) {
    Say(
        {run::Error("--fail-on confirmed needs --confirm or --idempotence (nothing "
                    "else is confirmed)")});
    return false;
  }
  req.reapplies = o.idempotence ? 2 : 0;
  // Every output, before Puppet runs: an unwritable -o found after a long run loses the run.
  const ReportOptions& r = o.report;
  for (const std::string* out : r.OutputFiles()) {
    if (!CheckOutputs({out})) return false;
  }
  if (!CheckOutputs({&req.save_catalog, &req.save_graph, &req.puppet_log, &req.save_trace})) {
    return false;
  }
  return true;
}

// --root, by default the pinned root in the sandbox and the host without one; false after
// saying why it cannot be used.
bool RootNameAgrees(CheckCliOptions& o) {
  const exec::CheckRequest& req = o.request;
  // The root: built on first use, and held (a shared lock) until the run is over so that no
  // `fsmove root build --rebuild` replaces it meanwhile.
  if (o.root.empty()) {
    o.root =
        std::string(req.sandbox == exec::SandboxMode::kOverlay ? kDefaultRoot : exec::kHostRoot);
  }
  if (req.sandbox == exec::SandboxMode::kNone && o.root != exec::kHostRoot) {
    Say({run::Error(
        absl::StrCat("--root ", o.root,
                     " needs the overlay sandbox (it is the sandbox's lower layer); --sandbox none "
                     "applies to this machine itself"))});
    return false;
  }
  return true;
}

// The request the flags make (target, sandbox, memory limit): an exit code when they cannot.
std::optional<int> RequestFromFlags(CheckCliOptions& o) {
  exec::CheckRequest& req = o.request;
  req.target.path = o.target;
  req.target.code = o.code;
  // The sandbox is the default for everyone: run by an ordinary user it is rootless.
  req.sandbox = o.sandbox.empty() || o.sandbox == "overlay" ? exec::SandboxMode::kOverlay
                                                            : exec::SandboxMode::kNone;
  // auto: three quarters of the machine (fsmove scan -j N passes each check its share).
  if (std::optional<uint64_t> bytes =
          exec::MemoryLimitPerCheck(o.memory_limit, exec::MachineMemory(), 1)) {
    req.memory_limit = *bytes;
  } else {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "--memory-limit ", o.memory_limit, ": expected a size such as 512M or 4G, auto, or none")));
  }
  absl::StatusOr<base::HostBudget> budget = BudgetFromFlags(o.budget);
  if (!budget.ok()) return Fail(budget.status());
  req.budget = *budget;
  if (req.sandbox == exec::SandboxMode::kNone && o.confirm) {
    return Fail(absl::InvalidArgumentError(
        "--confirm needs the overlay sandbox: each replay must start from a fresh copy of the "
        "OS, not from this machine as the check left it"));
  }
  if (req.sandbox == exec::SandboxMode::kNone && !req.keep_sandbox.empty()) {
    return Fail(absl::InvalidArgumentError("--keep-sandbox needs --sandbox overlay"));
  }
  if (req.sandbox == exec::SandboxMode::kNone && !o.sandbox.empty()) {
    Say(
        {run::Note("--sandbox none: Puppet applies to this machine itself; what it leaves "
                   "running is killed when the check ends")});
  }
  req.progress = !o.quiet && isatty(STDERR_FILENO);
  return std::nullopt;
}

// The findings of a run Puppet applied (all or part of): the catalog, Puppet's graph, the
// replays (--confirm) and the patches (--fix-diff) they are checked and reported with, and how
// the check then ends.
int ReportCheck(CheckCliOptions& o, exec::RunResult& run, analysis::Analyzer& analyzer,
                bool work_kept, const std::optional<exec::ResolvedTarget>& fix_target,
                const pipeline::ProjectInputs& project) {
  const exec::CheckRequest& req = o.request;
  auto t = std::chrono::steady_clock::now();
  auto cat = exec::LoadRunCatalog(run, req.budget);
  if (absl::IsResourceExhausted(cat.status())) {
    // fsmove's own limit on the catalog: nothing was checked, and the check is incomplete.
    SayError(cat.status());
    return kExitIncomplete;
  }
  if (!cat.ok()) {
    return Fail(cat.status());
  }
  PrintCatalogWarnings(*cat);
  report::FindingsContext ctx;
  ctx.trace_name = "strace output of puppet apply";
  if (!req.save_trace.empty()) ctx.trace_name = req.save_trace;
  ctx.trace_kept = !req.save_trace.empty();
  ctx.analyzer = &analyzer;
  ctx.seconds.parse_interpret = run.analysis_seconds;
  ctx.seconds.catalog_and_graph =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  ctx.seconds.catalog_load = ctx.seconds.catalog_and_graph;
  ctx.run = &run.summary;
  int status = TraceWarnings(o.report, analyzer, ctx.trace_name, run.summary.ApplyFinished());
  if (status != kExitOk) return status;
  // Puppet's own graph of this apply, when it wrote one.
  std::optional<pipeline::PuppetGraphInput> puppet_graph;
  if (!run.puppet_graph.empty()) {
    std::string name = req.save_graph;
    if (name.empty()) {
      name = work_kept ? run.puppet_graph_path
                       : "Puppet's graph (not kept: --save-graph FILE keeps it)";
    }
    puppet_graph.emplace(pipeline::PuppetGraphInput{name, run.puppet_graph, /*required=*/false});
  } else {
    Say({run::Warning(
        absl::StrCat("no graph from Puppet (",
                     (run.puppet_graph_note.empty() ? "none written" : run.puppet_graph_note),
                     "); checking against fsmove's model of the catalog"))});
  }
  pipeline::BeforeReport confirm;
  ConfirmOptions co;
  int confirm_signal = 0;
  if (o.confirm) {
    co.jobs =
        o.jobs > 0 ? o.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    co.keep_dir = o.keep_replays;
    co.progress = req.progress;
    confirm = [&](const report::FindingsContext& c, checker::CheckResult* result) {
      if (run.end != exec::RunEnd::kApplied) return;  // a run that did not finish: no replays
      const auto t0 = std::chrono::steady_clock::now();
      confirm_signal = ConfirmFindings(req, run, *cat, c, co, result);
      run.summary.confirm_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
  }
  pipeline::VerifyFixes verify_fixes;
  if (fix_target) {
    verify_fixes = FixVerifier(o, run, *fix_target, project);
  }
  status = CheckAndReport(o.report, project, *cat, ctx, puppet_graph ? &*puppet_graph : nullptr,
                          confirm, verify_fixes);
  if (confirm_signal != 0) {
    Say({run::Info(absl::StrCat("interrupted (", sigabbrev_np(confirm_signal),
                                ") while replaying: the report says which findings were not "
                                "replayed"))});
    return ExitForSignal(confirm_signal);
  }

  const bool limit_hit =
      !analyzer.result().limits_hit.empty() || !run.summary.host_limits_hit.empty();
  const run::End end = run::EndAfterReport(run, status, req.timeout_seconds, limit_hit);
  Say(end.say);
  return end.exit_code;
}

int RunCheckCommand(CheckCliOptions& o) {
  exec::CheckRequest& req = o.request;
  if (auto exit = RequestFromFlags(o)) return *exit;
  // The module's (or the manifest's directory's) .fsmove.json applies unless --config is given;
  // a bad one, or a bad baseline, is reported before Puppet runs.
  if (!o.target.empty()) {
    std::error_code ec;
    std::filesystem::path p(o.target);
    o.report.project_dir =
        std::filesystem::is_directory(p, ec) ? p.string() : p.parent_path().string();
    if (o.report.project_dir.empty()) o.report.project_dir = ".";
  }
  auto project = LoadProjectInputs(o.report);
  if (!project.ok()) return Fail(project.status());
  if (!OptionsAgree(o)) return kExitError;
  o.report.fix.apply = o.fix;
  std::optional<exec::ResolvedTarget> fix_target;
  if (o.report.fixes_wanted()) {
    auto resolved = exec::ResolveTarget(req.target);
    if (!resolved.ok()) return Fail(resolved.status());
    auto scope = CheckFixScope(*resolved);
    if (!scope.ok()) return Fail(scope.status());
    o.report.fix.scope = std::move(*scope);
    fix_target = std::move(*resolved);
  }
  if (!RootNameAgrees(o)) return kExitError;
  exec::RootBuildOptions build;
  build.say = SayRootBuild;
  absl::StatusOr<exec::OsRoot> root = exec::ResolveRoot(o.root, /*build_missing=*/true, build);
  if (!root.ok()) {
    return Fail(root.status());
  }
  req.root = *root;
  struct RootLock {
    int fd;
    ~RootLock() {
      if (fd >= 0) close(fd);
    }
  } root_lock{exec::LockRootShared(req.root)};
  if (absl::Status st = exec::Preflight(req); !st.ok()) {
    return Fail(st);
  }

  // The root's own links (merged /usr's /bin -> usr/bin), which the trace never shows made.
  analysis::AnalyzerOptions analyzer_options;
  analyzer_options.interpreter.root_symlinks = exec::TopLevelSymlinks(req.root.dir);
  analyzer_options.interpreter.max_paths = req.budget.paths;
  analyzer_options.interpreter.max_inodes = req.budget.inodes;
  analysis::Analyzer analyzer(analyzer_options);
  auto run = RunTracedCheck(req, o.full_trace, analyzer);
  if (!run.ok()) {
    return Fail(run.status());
  }
  PrintNotes(*run, o.verbose || run->end != exec::RunEnd::kApplied);
  if (o.idempotence) Say(run::SummarizeIdempotence(&*run));
  run->summary.confirm = o.confirm;
  // A run that went wrong keeps its work directory: Puppet's log and the sandbox's files are
  // what a user looks at next. A clean one leaves nothing behind unless --keep-work.
  const run::WorkPolicy policy = run::DecideWorkDirectory(*run, o.keep_work, o.discard_work);
  WorkDirectory work(run->work_dir, policy.keep, policy.named);
  if (!policy.keep && req.puppet_log.empty()) run->summary.puppet_log.clear();
  if (auto end =
          run::EndBeforeReport(*run, policy.keep, req.timeout_seconds, req.root.puppet_version)) {
    Say(end->say);
    return end->exit_code;
  }
  if (req.untraced) {
    std::cout << "untraced apply: " << run->summary.apply_seconds << " s, puppet exit code "
              << run->summary.puppet_exit_code << "\n";
    return run->end == exec::RunEnd::kApplied ? kExitOk : kExitError;
  }

  return ReportCheck(o, *run, analyzer, work.kept(), fix_target, *project);
}

// What to check: a module, a manifest or code, and the modules it needs.
void AddTargetOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("TARGET", o->target,
                  "a module directory (applies `include <module>`) or a .pp manifest");
  cmd->add_option("-e,--execute", o->code, "Puppet code to check instead of TARGET");
  cmd->add_option("--modulepath", o->request.target.modulepath,
                  "another directory of modules (repeatable), whose modules alone the sandbox "
                  "sees; the module's parent comes first, with the module and the modules it "
                  "declares (metadata.json, .fixtures.yml) alone")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--with-module", o->request.target.with_module,
                  "with a .pp TARGET or -e: this module directory is on the modulepath as when "
                  "it is the TARGET (under its metadata.json name); a manifest under a module's "
                  "examples/ or tests/ has its module so without this")
      ->type_name("DIR")
      ->allow_extra_args(false);
}

// The sandbox: the OS root Puppet runs on, its init and its limits.
void AddSandboxOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--sandbox", o->sandbox,
                  "overlay (the default, as root or rootless): a copy-on-write overlay of the OS "
                  "root (--root) in private namespaces; none: apply to this machine itself")
      ->check(CLI::IsMember({"overlay", "none"}));
  cmd->add_option("--root", o->root,
                  "the OS the sandbox runs Puppet on: host (this machine's own files, its "
                  "Puppet), a pinned root built once with mmdebstrap and cached (" +
                      RootNames() + "; see `fsmove root`), or a directory holding one")
      ->type_name("NAME|DIR")
      ->default_str(std::string(kDefaultRoot));
  cmd->add_option("--init", o->request.init,
                  "PID 1 of the sandbox: none (Puppet's systemctl works offline; services start "
                  "through init scripts) or systemd (booted first, its units really start, and "
                  "the daemons it starts are traced)")
      ->check(CLI::IsMember({"none", "systemd"}))
      ->default_val("none");
  cmd->add_option("--memory-limit", o->memory_limit,
                  "the sandbox's memory (a cgroup of its own): SIZE such as 4G, auto (three "
                  "quarters of the machine) or none; the run's notes say when it was hit")
      ->type_name("SIZE")
      ->default_val("auto");
  cmd->add_option("--pids-limit", o->request.pids_limit,
                  "the sandbox's processes and threads, all together (a pids cgroup) and per user "
                  "inside; 0: no limit; the run's notes say when it was hit")
      ->type_name("N")
      ->default_val(exec::kSandboxPidsLimit);
  cmd->add_option("--keep-sandbox", o->request.keep_sandbox,
                  "copy what the run changed (the overlay's upper layer) to DIR")
      ->type_name("DIR");
}

// The files a run keeps: its trace, catalog, graph and Puppet's log.
void AddSaveOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--save-trace", o->request.save_trace,
                  "keep strace's output in FILE (zstd-compressed if FILE ends in .zst)")
      ->type_name("FILE");
  cmd->add_option("--save-catalog", o->request.save_catalog, "keep the compiled catalog in FILE")
      ->type_name("FILE");
  cmd->add_option("--save-graph", o->request.save_graph,
                  "keep the relationship graph Puppet applied (expanded_relationships.dot) in FILE")
      ->type_name("FILE");
  cmd->add_option("--puppet-log", o->request.puppet_log,
                  "keep Puppet's output in FILE (with --idempotence, the next applies' in "
                  "FILE-apply-2.log and FILE-apply-3.log when FILE ends in .log)")
      ->type_name("FILE");
}

// How Puppet's apply runs and is traced.
void AddApplyOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--timeout", o->request.timeout_seconds,
                  "stop Puppet and report what ran after this many seconds")
      ->check(CLI::PositiveNumber)
      ->default_val(1800);
  cmd->add_option("--policy-rc", o->request.policy_rc,
                  "service starts by package maintainer scripts in the sandbox: deny (the "
                  "Service resource starts the daemon, as in a container), allow, none")
      ->check(CLI::IsMember({"allow", "deny", "none"}))
      ->default_val("deny");
  cmd->add_flag(
      "--no-prep", [o](int64_t) { o->request.prep = false; },
      "skip the untraced apt preparation in the sandbox");
  cmd->add_flag(
      "--no-pin-cpu", [o](int64_t) { o->request.pin_cpu = false; },
      "do not run the traced apply on one CPU (pinning makes ptrace stops cheap)");
  cmd->add_flag("--full-trace", o->full_trace,
                "trace every system call, not only those the model uses (much slower)");
  cmd->add_option("--strace-string-limit", o->request.strace_string_limit,
                  "bytes of each string strace prints (its -s); below the default, a long "
                  "evaltrace marker can be cut (300 records traces as the FSMoVe paper did)")
      ->check(CLI::Range(32, 1 << 20))
      ->default_val(exec::kStraceStringLimit)
      ->type_name("BYTES");
  cmd->add_flag("--untraced", o->request.untraced,
                "apply without strace and report nothing (for measuring the tracing overhead)")
      ->group("");
}

// What more the check does to prove or fix its findings: replays, fixes, more applies.
void AddProofOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_flag("--confirm", o->confirm,
                "replay each missing ordering relationship with the opposite order forced, and "
                "each missing notifier with its file put back and applied again (untraced, in "
                "fresh sandboxes); mark the findings a replay proves CONFIRMED");
  cmd->add_flag("--fix", o->fix,
                "make each finding's fix in the checked code's own manifests, once a re-check of "
                "the patched code in a fresh sandbox proved it (see --fix-diff)");
  cmd->add_flag("--idempotence", o->idempotence,
                "apply the catalog a second time (and a third) in the same sandbox, untraced, "
                "and report each resource that changes again or fails then (NI)");
  cmd->add_option("--fail-on", o->report.fail_on,
                  "what makes the exit code 1: any finding that is reported, or only confirmed "
                  "ones (--confirm) and resources that are not idempotent (--idempotence)")
      ->check(CLI::IsMember({"any", "confirmed"}))
      ->default_val("any");
  cmd->add_option("--keep-replays", o->keep_replays,
                  "with --confirm: keep each replay's catalog and Puppet's log in DIR, to rerun "
                  "the proof with `puppet apply --catalog`")
      ->type_name("DIR");
  cmd->add_option("-j,--jobs", o->jobs, "replays run at once (default: the number of CPUs)")
      ->check(CLI::Range(1, 64));
}

// The run's work directory, and what the check shows while it runs.
void AddWorkOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--work-dir", o->request.work_parent,
                  "make the run's work directory (private: Puppet's logs) under DIR (default "
                  "$TMPDIR or /tmp)")
      ->type_name("DIR");
  cmd->add_flag("--keep-work", o->keep_work,
                "keep the run's work directory and say where (kept anyway when the run went "
                "wrong: timed out, interrupted, resources failed)");
  cmd->add_flag("--discard-work", o->discard_work,
                "remove the work directory even after a run that went wrong (fsmove scan, "
                "which keeps Puppet's log in the module's folder)")
      ->group("");
  cmd->add_flag("-q,--quiet", o->quiet, "no progress display");
  cmd->add_flag("-v,--verbose", o->verbose,
                "show what the sandbox did (inputs bound, preparation, processes killed)");
}

}  // namespace

std::function<int()> RegisterCheck(CLI::App& app) {
  auto o = std::make_shared<CheckCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Compile a module or manifest, apply it under strace in a throw-away sandbox, and report "
      "missing ordering relationships and notifiers");
  AddTargetOptions(cmd, o);
  AddSandboxOptions(cmd, o);
  AddSaveOptions(cmd, o);
  AddApplyOptions(cmd, o);
  AddProofOptions(cmd, o);
  AddWorkOptions(cmd, o);
  AddReportOptions(cmd, &o->report);
  AddBudgetOptions(cmd, &o->budget, BudgetScope::kCheck);
  return [o] { return RunCheckCommand(*o); };
}

}  // namespace fsmove::cli
