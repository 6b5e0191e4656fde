// `fsmove check TARGET`: compile, apply under strace in a sandbox, analyse as it streams, and
// report, with the same formats and exit codes as `fsmove analyze`. Here the flags make a
// check::Request; the check itself is the library's (check/check_run.h).
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "budget_options.h"
#include "commands.h"
#include "fsmove/check/check_run.h"
#include "fsmove/check/fix_scope.h"
#include "fsmove/exec/memory_limit.h"
#include "fsmove/matrix/matrix_run.h"
#include "report_options.h"

namespace fsmove::cli {
namespace {

struct CheckCliOptions {
  std::string sandbox;  // empty: overlay as root, none otherwise
  std::string memory_limit = "auto";
  bool quiet = false;
  check::Request request;
  ReportOptions report;
  BudgetFlags budget;
  matrix::MatrixSettings matrix;  // --matrix FILE, --results DIR
};

// The request the flags make (target, sandbox, memory limit): an exit code when they cannot.
std::optional<int> RequestFromFlags(CheckCliOptions& o) {
  exec::CheckRequest& req = o.request.run;
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
  if (req.sandbox == exec::SandboxMode::kNone && o.request.confirm) {
    return Fail(absl::InvalidArgumentError(
        "--confirm needs the overlay sandbox: each replay must start from a fresh copy of the "
        "OS, not from this machine as the check left it"));
  }
  if (req.sandbox == exec::SandboxMode::kNone && !req.keep_sandbox.empty()) {
    return Fail(absl::InvalidArgumentError("--keep-sandbox needs --sandbox overlay"));
  }
  if (req.sandbox == exec::SandboxMode::kNone && !o.sandbox.empty()) {
    Say(
        {check::Note("--sandbox none: Puppet applies to this machine itself; what it leaves "
                     "running is killed when the check ends")});
  }
  req.progress = !o.quiet && isatty(STDERR_FILENO);
  return std::nullopt;
}

// Flags, then the request, then one call to the check library.
int RunCheckCommand(CheckCliOptions& o) {
  if (auto exit = RequestFromFlags(o)) return *exit;
  if (!o.matrix.results_dir.empty() && o.matrix.file.empty()) {
    return Fail(absl::InvalidArgumentError(
        "--results DIR keeps the files of a --matrix's checks; one check keeps its own with "
        "--save-catalog, --puppet-log and --json-output"));
  }
  // The module's (or the manifest's directory's) .fsmove.json applies unless --config is given;
  // a bad one, or a bad baseline, is reported before Puppet runs.
  if (!o.request.run.target.path.empty()) {
    std::error_code ec;
    std::filesystem::path p(o.request.run.target.path);
    o.report.project_dir =
        std::filesystem::is_directory(p, ec) ? p.string() : p.parent_path().string();
    if (o.report.project_dir.empty()) o.report.project_dir = ".";
  }
  auto project =
      pipeline::LoadProjectInputs(o.report.config, o.report.project_dir, o.report.baseline);
  if (!project.ok()) return Fail(project.status());
  if (absl::Status st = check::OptionsAgree(&o.request, o.report); !st.ok()) return Fail(st);
  // The checked code: where fixes go and `# fsmove:ignore` comments are read (none for -e
  // code). Without fixes, a target that does not resolve is said by the check itself.
  absl::StatusOr<exec::ResolvedTarget> resolved = exec::ResolveTarget(o.request.run.target);
  absl::StatusOr<fix::FixScope> scope =
      resolved.ok() ? check::CheckFixScope(*resolved) : resolved.status();
  if (o.report.fixes_wanted()) {
    if (!scope.ok()) return Fail(scope.status());
    o.request.fix_target = *resolved;
  }
  if (scope.ok()) o.report.fix.scope = std::move(*scope);
  if (absl::Status st = check::RootAgrees(&o.request, project->config); !st.ok()) return Fail(st);
  check::Settings settings;
  settings.report = o.report;
  settings.project = std::move(*project);
  TerminalSink sink;
  if (o.matrix.file.empty()) return check::Run(o.request, settings, sink).exit_code;
  // --matrix: the rows read and agreed with before any Puppet runs.
  absl::StatusOr<std::vector<matrix::MatrixRow>> rows = matrix::ReadMatrix(o.matrix.file);
  if (!rows.ok()) return Fail(rows.status());
  const bool control_repo =
      resolved.ok() && resolved->kind == exec::ResolvedTarget::Kind::kEnvironment;
  if (absl::Status st = matrix::MatrixAgrees(o.request, o.report, *rows, o.matrix, control_repo);
      !st.ok()) {
    return Fail(st);
  }
  return matrix::RunMatrix(o.request, settings, *rows, o.matrix, sink).exit_code;
}

// What to check: a module, a manifest, code or a control repo, and the modules it needs.
void AddTargetOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("TARGET", o->request.run.target.path,
                  "a module directory (applies `include <module>`), a .pp manifest, or a control "
                  "repo (a directory with environment.conf or a Puppetfile: its Puppetfile "
                  "deployed with r10k, compiled as its environment with its Hiera data)");
  cmd->add_option("-e,--execute", o->request.run.target.code,
                  "Puppet code to check instead of TARGET");
  cmd->add_option("--modulepath", o->request.run.target.modulepath,
                  "another directory of modules (repeatable), whose modules alone the sandbox "
                  "sees; the module's parent comes first, with the module and the modules it "
                  "declares (metadata.json, .fixtures.yml) alone")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--with-module", o->request.run.target.with_module,
                  "with a .pp TARGET or -e: this module directory is on the modulepath as when "
                  "it is the TARGET (under its metadata.json name); a manifest under a module's "
                  "examples/ or tests/ has its module so without this")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--module-source", o->request.run.target.module_sources,
                  "a directory of modules (repeatable) that the module's dependencies no "
                  "modulepath directory has are taken from: the highest version its "
                  "metadata.json's range admits, and theirs in turn; then Debian's installed "
                  "puppet-module-* packages (" +
                      std::string(exec::kDebianModulesDir) + ")")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--class", o->request.run.target.include_class,
                  "with a control repo: check this class (role::web) instead of its site.pp")
      ->type_name("NAME");
  cmd->add_option("--node", o->request.run.node,
                  "compile the catalog for this node name (site.pp's node definitions, Hiera's "
                  "trusted.certname) instead of this machine's certname")
      ->type_name("NAME");
  cmd->add_option("--matrix", o->matrix.file,
                  "check once per row of FILE, each row `NODE [CLASS [FACTS]]` (\"-\": none; "
                  "facts paths relative to FILE), and report them all in one report: each "
                  "node's findings and a row per node")
      ->type_name("FILE");
  cmd->add_option("--results", o->matrix.results_dir,
                  "with --matrix: keep each node's report, catalog, Puppet's log and graph in "
                  "DIR/NODE/, and a report.html of the nodes in DIR")
      ->type_name("DIR");
  cmd->add_option("--facts", o->request.run.facts_file,
                  "compile with this node's facts (JSON or YAML, as `puppet facts show`, `puppet "
                  "facts find`, a Puppet server's yaml cache, PuppetDB or Foreman give them), "
                  "each over the sandbox's own fact of that name; facts of another OS family "
                  "or kernel are refused")
      ->type_name("FILE");
}

// The sandbox: the OS root Puppet runs on, its init and its limits.
void AddSandboxOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--sandbox", o->sandbox,
                  "overlay (the default, as root or rootless): a copy-on-write overlay of the OS "
                  "root (--root) in private namespaces; none: apply to this machine itself")
      ->check(CLI::IsMember({"overlay", "none"}));
  cmd->add_option("--root", o->request.root,
                  "the OS the sandbox runs Puppet on: auto (the pinned root the module's "
                  "metadata.json asks for: its puppet version range and Debian releases; " +
                      std::string(kDefaultRoot) +
                      " when it fits or nothing is asked), host (this machine's own files, its "
                      "Puppet), a pinned root built once with mmdebstrap and cached (" +
                      RootNames() + "; see `fsmove root`), or a directory holding one")
      ->type_name("auto|NAME|DIR")
      ->default_str(std::string(kAutoRoot));
  cmd->add_option("--init", o->request.run.init,
                  "PID 1 of the sandbox: none (Puppet's systemctl works offline; services start "
                  "through init scripts), systemd (booted first, its units really start, and "
                  "the daemons it starts are traced) or auto (none, and the check is made again "
                  "under systemd when its only failures are Services with no init script: a "
                  "package that ships a systemd unit only)")
      ->check(CLI::IsMember({"auto", "none", "systemd"}))
      ->default_val(std::string(kAutoInit));
  cmd->add_option("--memory-limit", o->memory_limit,
                  "the sandbox's memory (a cgroup of its own): SIZE such as 4G, auto (three "
                  "quarters of the machine) or none; the run's notes say when it was hit")
      ->type_name("SIZE")
      ->default_val("auto");
  cmd->add_option("--pids-limit", o->request.run.pids_limit,
                  "the sandbox's processes and threads, all together (a pids cgroup) and per user "
                  "inside; 0: no limit; the run's notes say when it was hit")
      ->type_name("N")
      ->default_val(exec::kSandboxPidsLimit);
  cmd->add_option("--keep-sandbox", o->request.run.keep_sandbox,
                  "copy what the run changed (the overlay's upper layer) to DIR")
      ->type_name("DIR");
}

// The files a run keeps: its trace, catalog, graph and Puppet's log.
void AddSaveOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--save-trace", o->request.run.save_trace,
                  "keep strace's output in FILE (zstd-compressed if FILE ends in .zst)")
      ->type_name("FILE");
  cmd->add_option("--save-catalog", o->request.run.save_catalog,
                  "keep the compiled catalog in FILE")
      ->type_name("FILE");
  cmd->add_option("--save-graph", o->request.run.save_graph,
                  "keep the relationship graph Puppet applied (expanded_relationships.dot) in FILE")
      ->type_name("FILE");
  cmd->add_option("--puppet-log", o->request.run.puppet_log,
                  "keep Puppet's output in FILE (with --idempotence, the next applies' in "
                  "FILE-apply-2.log and FILE-apply-3.log when FILE ends in .log)")
      ->type_name("FILE");
}

// How Puppet's apply runs and is traced.
void AddApplyOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--timeout", o->request.run.timeout_seconds,
                  "stop Puppet and report what ran after this many seconds")
      ->check(CLI::PositiveNumber)
      ->default_val(1800);
  cmd->add_option("--policy-rc", o->request.run.policy_rc,
                  "service starts by package maintainer scripts in the sandbox: deny (the "
                  "Service resource starts the daemon, as in a container), allow, none")
      ->check(CLI::IsMember({"allow", "deny", "none"}))
      ->default_val("deny");
  cmd->add_flag(
      "--no-prep", [o](int64_t) { o->request.run.prep = false; },
      "skip the untraced apt preparation in the sandbox");
  cmd->add_option("--preinstalled", o->request.run.preinstalled,
                  "the packages the catalog installs that the OS root already has: remove "
                  "them before the traced apply, so that their install is traced (they are "
                  "downloaded first), or keep them")
      ->check(CLI::IsMember({"remove", "keep"}))
      ->default_val("remove");
  cmd->add_flag(
      "--no-pin-cpu", [o](int64_t) { o->request.run.pin_cpu = false; },
      "do not run the traced apply on one CPU (pinning makes ptrace stops cheap)");
  cmd->add_flag("--full-trace", o->request.full_trace,
                "trace every system call, not only those the model uses (much slower)");
  cmd->add_option("--strace-string-limit", o->request.run.strace_string_limit,
                  "bytes of each string strace prints (its -s); below the default, a long "
                  "evaltrace marker can be cut (300 records traces as the FSMoVe paper did)")
      ->check(CLI::Range(32, 1 << 20))
      ->default_val(exec::kStraceStringLimit)
      ->type_name("BYTES");
  cmd->add_flag("--strace-timestamps", o->request.run.strace_timestamps,
                "strace also prints each call's time and duration and each descriptor's path "
                "(-ttt -T -yy), in the trace --save-trace keeps too; the analysis reads them "
                "(a larger, slower trace)");
  cmd->add_flag("--untraced", o->request.run.untraced,
                "apply without strace and report nothing (for measuring the tracing overhead)")
      ->group("");
}

// What more the check does to prove or fix its findings: replays, fixes, more applies.
void AddProofOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_flag("--confirm", o->request.confirm,
                "replay each missing ordering relationship with the opposite order forced, and "
                "each missing notifier with its file put back and applied again (untraced, in "
                "fresh sandboxes); mark the findings a replay proves CONFIRMED");
  cmd->add_flag("--fix", o->report.fix.apply,
                "make each finding's fix in the checked code's own manifests, once a re-check of "
                "the patched code in a fresh sandbox proved it (see --fix-diff)");
  cmd->add_flag("--idempotence", o->request.idempotence,
                "apply the catalog a second time (and a third) in the same sandbox, untraced, "
                "and report each resource that changes again or fails then (NI)");
  cmd->add_option("--fail-on", o->report.fail_on,
                  "what makes the exit code 1: any finding that is reported, or only confirmed "
                  "ones (--confirm) and resources that are not idempotent (--idempotence)")
      ->check(CLI::IsMember({"any", "confirmed"}))
      ->default_val("any");
  cmd->add_option("--keep-replays", o->request.keep_replays,
                  "with --confirm: keep each replay's catalog and Puppet's log in DIR, to rerun "
                  "the proof with `puppet apply --catalog`")
      ->type_name("DIR");
  cmd->add_option("-j,--jobs", o->request.jobs, "replays run at once (default: the number of CPUs)")
      ->check(CLI::Range(1, 64));
}

// The run's work directory, and what the check shows while it runs.
void AddWorkOptions(CLI::App* cmd, const std::shared_ptr<CheckCliOptions>& o) {
  cmd->add_option("--work-dir", o->request.run.work_parent,
                  "make the run's work directory (private: Puppet's logs) under DIR (default "
                  "$TMPDIR or /tmp)")
      ->type_name("DIR");
  cmd->add_flag("--keep-work", o->request.keep_work,
                "keep the run's work directory and say where (kept anyway when the run went "
                "wrong: timed out, interrupted, resources failed)");
  cmd->add_flag("--discard-work", o->request.discard_work,
                "remove the work directory even after a run that went wrong (fsmove scan, "
                "which keeps Puppet's log in the module's folder)")
      ->group("");
  cmd->add_flag("-q,--quiet", o->quiet, "no progress display");
  cmd->add_flag("-v,--verbose", o->request.verbose,
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
