// `fsmove scan MODULE...`: `fsmove check` on many modules, N at a time, each in its own
// process and folder of a results directory, resumable, shardable, with a summary.
#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "budget_options.h"
#include "commands.h"
#include "fmt/format.h"
#include "fsmove/exec/memory_limit.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/scan/module_list.h"
#include "fsmove/scan/results_dir.h"
#include "fsmove/scan/scan_report.h"
#include "fsmove/scan/scan_runner.h"
#include "fsmove/scan/shard.h"

namespace fsmove::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;
void OnStopSignal(int sig) { g_stop = sig; }

struct ScanCliOptions {
  std::vector<std::string> modules;
  std::vector<std::string> lists;
  std::vector<std::string> modules_dirs;
  std::string shard;
  std::vector<std::string> modulepath;
  bool package_notify = false;
  bool confirm = false;
  bool idempotence = false;
  std::string policy_rc;
  std::string sandbox;
  std::string root;  // empty: each check's default
  std::string init;  // empty: each check's default (none)
  // Each check's --memory-limit; auto: the machine's budget divided by --jobs.
  std::string memory_limit = "auto";
  bool quiet = false;
  bool no_examples = false;
  BudgetFlags budget;  // each check's own limits (those that differ from the defaults passed)
  scan::ScanOptions run;
};

constexpr const char* kStatusHelp = R"(
A module is checked as its users use it: one run of `include MODULE` when its
manifests/init.pp declares that class, one run of each manifest under its examples/ (tests/
when it has no examples/), up to 4 literal manifests of its acceptance specs, and, when
`include MODULE` alone cannot compile (no such class, or parameters without defaults), up
to 3 runs of `include MODULE::CLASS` of its public classes whose parameters all have
defaults (MODULE#CLASS); --no-examples: the include run only. A .pp or a MODULE#CLASS given
or listed is one run.
Each run gets a folder in the results directory (its base name and a hash of its path):
report.json, catalog.json, puppet.log, check.log (check's stderr), trace.zst (--save-traces)
and status.json, written last, which marks it done. summary.json and summary.csv list every
run of the scan (or shard) with its status, MOR and MN counts, trace bytes, apply and
analysis seconds and, when not ok, a one-line error (for a compile, the error that ended
it; custom facts that failed are warnings). report.html shows the whole scan in a browser
(no network needed): statuses, coverage, each finding with its evidence and fix. A status:
  ok              check exited 0 and no resource failed in Puppet's run
  findings        check exited 1 (missing ordering relationships or notifiers) and no
                  resource failed
  resources-failed  check exited 0 or 1 but resources failed in Puppet's run (what failed,
                  and what depended on it, was not checked); MOR and MN are still counted
  timeout         check exited 2 and its report says the apply timed out (or, without a
                  report, --timeout stopped the compile), or check did not end --kill-after
                  seconds after --timeout and was killed
  compile-failed  check exited 2 and said "could not compile", or left no catalog
  missing-dependency  the compile stopped on a class, defined type or function of a module
                  that no --modulepath directory holds (the error names it, and whether
                  metadata.json or .fixtures.yml does)
  apply-failed    check exited 2 with a report: Puppet killed, trace incomplete, or
                  resources failed
  crashed         check was killed by a signal, left no report, or exited otherwise
  missing         the module directory does not exist (no check was run)
  nothing-to-apply  the module has no class of its name to include and no other run (no
                  check was run; the error says what was looked for)
A rerun skips modules whose status.json is valid (its files present, of the sizes recorded)
and redoes the others, and retries missing and nothing-to-apply ones; --force redoes all.
Exit status: 0 every module ok; 1 any module has findings or could not be checked (any status
but ok); 2 usage error or the results directory cannot be written; 128 + the signal when
interrupted: 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP (finished modules are kept; a rerun continues).)";

// The runs of the scan, before sharding: MODULE..., --list and --modules-dir, each module
// expanded into its runs unless --no-examples, in canonical order.
absl::StatusOr<std::vector<std::string>> RunsToScan(const ScanCliOptions& o) {
  std::vector<std::string> all = o.modules;
  for (const auto& list : o.lists) {
    auto m = scan::ReadModuleList(list);
    if (!m.ok()) {
      return m.status();
    }
    all.insert(all.end(), m->begin(), m->end());
  }
  for (const auto& dir : o.modules_dirs) {
    auto m = scan::DiscoverModules(dir);
    if (!m.ok()) {
      return m.status();
    }
    if (m->empty())
      Say({check::Warning(
          absl::StrCat("no module (NAME/manifests/ or NAME/metadata.json) in ", dir))});
    all.insert(all.end(), m->begin(), m->end());
  }
  all = scan::CanonicalModuleList(std::move(all));
  // Each module as its users use it: include, and each of its examples.
  if (!o.no_examples) {
    std::vector<std::string> runs;
    for (const std::string& m : all) {
      std::vector<std::string> of = scan::ExpandModuleRuns(m);
      runs.insert(runs.end(), of.begin(), of.end());
    }
    all = scan::CanonicalModuleList(std::move(runs));
  }
  return all;
}

// The options each check is given (o->run.check_options and the like), from the scan's; the
// root built first if it needs to be.
absl::Status PassCheckOptions(ScanCliOptions* o) {
  o->run.modulepath = o->modulepath;
  // fsmove's own limits, read first: a value no check could read stops the scan before it
  // builds a root or starts a check.
  absl::StatusOr<base::HostBudget> budget = BudgetFromFlags(o->budget);
  if (!budget.ok()) return budget.status();
  const std::vector<std::string> limits = base::BudgetArguments(*budget, BudgetScope::kCheck);
  o->run.check_options.insert(o->run.check_options.end(), limits.begin(), limits.end());
  if (o->package_notify) o->run.check_options.push_back("--package-notify");
  if (o->confirm) o->run.check_options.push_back("--confirm");
  if (o->confirm) o->run.timeout_periods = 2;
  if (o->idempotence) o->run.check_options.push_back("--idempotence");
  if (!o->policy_rc.empty())
    o->run.check_options.insert(o->run.check_options.end(), {"--policy-rc", o->policy_rc});
  if (!o->sandbox.empty())
    o->run.check_options.insert(o->run.check_options.end(), {"--sandbox", o->sandbox});
  // The root is built (if need be) once, before the checks start; with auto (each module's
  // check takes the root its metadata.json asks for), the default one, which most take: a
  // check that takes another builds it, one at a time under the root's lock.
  if (o->root.empty() && o->sandbox != "none" && geteuid() == 0) {
    o->root = std::string(kAutoRoot);
  }
  if (!o->root.empty() && o->root != exec::kHostRoot) {
    exec::RootBuildOptions build;
    build.say = SayRootBuild;
    absl::StatusOr<exec::OsRoot> root = exec::ResolveRoot(
        o->root == kAutoRoot ? std::string(kDefaultRoot) : o->root, /*build_missing=*/true, build);
    if (!root.ok()) {
      return root.status();
    }
  }
  if (!o->root.empty())
    o->run.check_options.insert(o->run.check_options.end(), {"--root", o->root});
  if (!o->init.empty())
    o->run.check_options.insert(o->run.check_options.end(), {"--init", o->init});
  // The checks running at once share the machine's memory budget: -j N checks each get an
  // Nth of it, not each three quarters of the machine.
  std::optional<uint64_t> memory =
      exec::MemoryLimitPerCheck(o->memory_limit, exec::MachineMemory(), o->run.jobs);
  if (!memory) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--memory-limit ", o->memory_limit, ": expected a size such as 512M or 4G, auto, or none"));
  }
  o->run.check_options.insert(o->run.check_options.end(),
                              {"--memory-limit", *memory > 0 ? std::to_string(*memory) : "none"});
  o->run.progress = !o->quiet && isatty(STDERR_FILENO);
  return absl::OkStatus();
}

// The scan's result on stdout: each run not ok, the counts by status, the coverage. Returns
// the exit status.
int PrintScanResult(const ScanCliOptions& o, const scan::ScanOutcome& outcome) {
  std::map<std::string, int> counts;
  bool all_ok = true;
  std::vector<const scan::ModuleResult*> sorted;
  for (const auto& r : outcome.results) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->module < b->module; });
  for (const auto* r : sorted) {
    ++counts[std::string(scan::ModuleStatusName(r->status))];
    if (r->status == scan::ModuleStatus::kOk) continue;
    all_ok = false;
    if (r->status == scan::ModuleStatus::kFindings) {
      std::cout << fmt::format("{:<15} {}: {} MOR, {} MN{}{}\n", "findings",
                               base::TerminalSafe(r->module), r->mor, r->mn,
                               o.confirm ? fmt::format(" ({} confirmed)", r->confirmed) : "",
                               o.idempotence ? fmt::format(", {} NI", r->ni) : "");
    } else if (r->status == scan::ModuleStatus::kResourcesFailed) {
      std::cout << fmt::format("{:<15} {}: {} MOR, {} MN; {}\n", "resources-failed",
                               base::TerminalSafe(r->module), r->mor, r->mn,
                               base::TerminalSafe(r->error));
    } else {
      std::cout << fmt::format("{:<15} {}: {}\n", scan::ModuleStatusName(r->status),
                               base::TerminalSafe(r->module), base::TerminalSafe(r->error));
    }
  }
  std::string line;
  for (const char* s :
       {"ok", "findings", "resources-failed", "compile-failed", "missing-dependency",
        "apply-failed", "timeout", "crashed", "missing", "nothing-to-apply"}) {
    if (counts[s] > 0) line += fmt::format("{}{} {}", line.empty() ? "" : ", ", counts[s], s);
  }
  if (o.confirm || o.idempotence) {
    int mor = 0, confirmed = 0, ni = 0;
    for (const auto* r : sorted) {
      mor += r->mor;
      confirmed += r->confirmed;
      ni += r->ni;
    }
    if (o.confirm)
      std::cout << fmt::format("confirmed by a replay: {} of {} MOR\n", confirmed, mor);
    if (o.idempotence)
      std::cout << fmt::format("not idempotent: {} resource{}\n", ni, ni == 1 ? "" : "s");
  }
  const scan::ScanCoverage cov = scan::Coverage(outcome.results);
  std::cout << fmt::format(
      "{} of {} module{} had a run that compiled and applied (ok or findings)\n",
      cov.modules_applied, cov.modules, cov.modules == 1 ? "" : "s");
  std::cout << fmt::format("{} of {} run{} done ({} skipped as already done): {}; summary in {}\n",
                           outcome.results.size(), o.run.modules.size(),
                           o.run.modules.size() == 1 ? "" : "s", outcome.skipped,
                           line.empty() ? "nothing" : line,
                           (std::filesystem::path(o.run.out_dir) / scan::kReportHtml).string());
  if (outcome.signal != 0) {
    Say({check::Info(fmt::format(
        "interrupted ({}): unfinished modules were stopped; run the same command again to continue",
        sigabbrev_np(outcome.signal)))});
    return ExitForSignal(outcome.signal);
  }
  return all_ok ? kExitOk : kExitFindings;
}

int RunScanCommand(ScanCliOptions& o) {
  absl::StatusOr<std::vector<std::string>> runs = RunsToScan(o);
  if (!runs.ok()) {
    return Fail(runs.status());
  }
  const std::vector<std::string>& all = *runs;
  if (all.empty()) {
    Say(
        {check::Error("no modules to scan (give MODULE..., --list FILE or "
                      "--modules-dir DIR)")});
    return kExitError;
  }
  scan::Shard shard;
  if (!o.shard.empty()) {
    auto s = scan::ParseShard(o.shard);
    if (!s.ok()) {
      return Fail(s.status());
    }
    shard = *s;
  }
  o.run.modules = scan::SelectShard(all, shard);
  if (absl::Status st = PassCheckOptions(&o); !st.ok()) {
    return Fail(st);
  }

  std::error_code ec;
  std::filesystem::create_directories(o.run.out_dir, ec);
  scan::ScanManifest manifest{shard, scan::ModuleListDigest(all), all.size(), o.run.modules};
  if (auto st = scan::WriteScanManifest(o.run.out_dir, manifest); !st.ok()) {
    return Fail(st);
  }
  if (!o.quiet) {
    Say({check::Info(fmt::format(
        "scanning {} module{}{} into {} ({} at a time)", o.run.modules.size(),
        o.run.modules.size() == 1 ? "" : "s",
        o.shard.empty() ? "" : fmt::format(" (shard {} of {})", shard.ToString(), all.size()),
        o.run.out_dir, o.run.jobs))});
  }

  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  auto outcome = scan::RunScan(o.run, &g_stop);
  if (!outcome.ok()) {
    return Fail(outcome.status());
  }
  for (const auto& n : outcome->notes) Say({check::Note(std::string(n))});
  if (auto st = scan::WriteSummary(o.run.out_dir, outcome->results); !st.ok()) {
    return Fail(st);
  }
  if (auto st = scan::WriteScanReport(o.run.out_dir, outcome->results); !st.ok()) {
    return Fail(st);
  }
  return PrintScanResult(o, *outcome);
}

}  // namespace

std::function<int()> RegisterScan(CLI::App& app) {
  auto o = std::make_shared<ScanCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "scan",
      "Run `fsmove check` on many modules (N at a time, resumable, shardable) and "
      "summarise");
  cmd->footer(kStatusHelp);
  cmd->add_option("MODULE", o->modules, "module directories to scan");
  cmd->add_option("--list", o->lists,
                  "a file of module directories, one a line (# comments; repeatable; - reads "
                  "standard input)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  cmd->add_option("--modules-dir", o->modules_dirs,
                  "scan every module in DIR (each subdirectory with manifests/ or metadata.json; "
                  "repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("-o,--output", o->run.out_dir, "the results directory")
      ->type_name("DIR")
      ->default_val("fsmove-scan");
  cmd->add_option("-j,--jobs", o->run.jobs, "checks (sandboxes) running at once")
      ->check(CLI::Range(1, 256))
      ->default_val(1);
  cmd->add_option("--timeout", o->run.timeout_seconds,
                  "each check's --timeout: Puppet's apply is stopped after this many seconds")
      ->check(CLI::PositiveNumber)
      ->default_val(1800);
  cmd->add_option("--kill-after", o->run.kill_after_seconds,
                  "kill a check still running this many seconds after --timeout (after twice "
                  "--timeout with --confirm; status timeout)")
      ->check(CLI::PositiveNumber)
      ->default_val(300);
  cmd->add_option("--shard", o->shard,
                  "scan only shard I of N (1-based): module k of the sorted list belongs to "
                  "shard (k mod N) + 1; merge the shards' folders with `fsmove merge`")
      ->type_name("I/N");
  cmd->add_flag("--no-examples", o->no_examples,
                "one run per module (include MODULE) rather than one more per manifest under its "
                "examples/ (tests/ when it has no examples/)");
  cmd->add_flag("--force", o->run.force, "redo modules already done");
  cmd->add_flag("--save-traces", o->run.save_traces, "keep each module's trace as trace.zst");
  cmd->add_option("--modulepath", o->modulepath,
                  "passed to each check: another directory of modules (repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_option("--module-source", o->run.module_sources,
                  "passed to each check: a directory of modules (repeatable) the dependencies "
                  "no modulepath directory has are taken from, before Debian's packages")
      ->type_name("DIR")
      ->allow_extra_args(false);
  cmd->add_flag("--package-notify", o->package_notify, "passed to each check");
  cmd->add_flag("--confirm", o->confirm,
                "passed to each check: replay each MOR with the other order forced; the "
                "summary counts the confirmed findings");
  cmd->add_flag("--idempotence", o->idempotence,
                "passed to each check: apply twice more and report what is not idempotent (NI)");
  cmd->add_option("--policy-rc", o->policy_rc, "passed to each check: deny (default), allow, none")
      ->check(CLI::IsMember({"allow", "deny", "none"}));
  cmd->add_option("--root", o->root,
                  "passed to each check: auto (each module's metadata.json chooses; the "
                  "default), " +
                      RootNames() + " or a directory")
      ->type_name("auto|NAME|DIR")
      ->default_str(std::string(kAutoRoot));
  cmd->add_option("--init", o->init, "passed to each check: none (default) or systemd")
      ->check(CLI::IsMember({"none", "systemd"}));
  cmd->add_option("--memory-limit", o->memory_limit,
                  "each check's --memory-limit: SIZE such as 4G, none, or auto (three quarters "
                  "of the machine shared by the --jobs checks running at once: each gets an Nth)")
      ->type_name("SIZE")
      ->default_val("auto");
  cmd->add_option("--sandbox", o->sandbox, "passed to each check: overlay or none")
      ->check(CLI::IsMember({"overlay", "none"}));
  cmd->add_flag("-q,--quiet", o->quiet, "no progress line");
  AddBudgetOptions(cmd, &o->budget, BudgetScope::kCheck);
  return [o] { return RunScanCommand(*o); };
}

}  // namespace fsmove::cli
