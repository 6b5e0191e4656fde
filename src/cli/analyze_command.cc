// `fsmove analyze`: its flags, for check::Analyze (check/analyze_run.h), which parses and
// interprets a recorded trace offline and reports what it found.
#include <thread>

#include "budget_options.h"
#include "commands.h"
#include "fsmove/check/analyze_run.h"
#include "report_options.h"

namespace fsmove::cli {
namespace {

// Two threads (one reads, the caller's interprets, and both split lines into calls) when the
// machine has two CPUs; more would not help, interpreting is one thread's work.
int DefaultThreads() { return std::thread::hardware_concurrency() >= 2 ? 2 : 1; }

struct AnalyzeOptions {
  std::string trace;
  std::string catalog;
  std::string initial_cwd;
  bool no_merged_usr = false;
  std::string puppet_graph;
  int threads = DefaultThreads();
  ReportOptions report;
  BudgetFlags budget;
};

int RunAnalyze(const AnalyzeOptions& o) {
  absl::StatusOr<base::HostBudget> budget = BudgetFromFlags(o.budget);
  if (!budget.ok()) return Fail(budget.status());
  check::AnalyzeRequest request;
  request.trace = o.trace;
  request.catalog = o.catalog;
  request.initial_cwd = o.initial_cwd;
  request.no_merged_usr = o.no_merged_usr;
  request.puppet_graph = o.puppet_graph;
  request.threads = o.threads;
  request.budget = *budget;
  request.config = o.report.config;
  request.project_dir = o.report.project_dir;
  request.baseline = o.report.baseline;
  TerminalSink sink;
  return check::Analyze(request, o.report, sink).exit_code;
}

}  // namespace

std::function<int()> RegisterAnalyze(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand("analyze", "Analyse a recorded strace trace of puppet apply");
  cmd->add_option("--trace", o->trace, "strace output: a file, a .zst file, or - for stdin")
      ->required();
  cmd->add_option("--catalog", o->catalog, "the compiled catalog the trace applied (JSON)");
  cmd->add_option("--initial-cwd", o->initial_cwd,
                  "working directory of the traced command, if known");
  cmd->add_flag("--no-merged-usr", o->no_merged_usr,
                "the traced machine's /bin, /sbin and /lib* are directories of their own (before "
                "merged /usr: Debian 11 and older); by default they are links into /usr");
  cmd->add_option("--puppet-graph", o->puppet_graph,
                  "check against the graph Puppet applied (expanded_relationships.dot from "
                  "`puppet apply --graph`, or `fsmove check --save-graph`) instead of fsmove's "
                  "model of the catalog")
      ->type_name("FILE");
  cmd->add_option("--threads", o->threads,
                  "1: read and interpret the trace on one thread; 2: read on a second thread, "
                  "both splitting lines (and decompress a .zst input on a third); more counts "
                  "as 2")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  AddReportOptions(cmd, &o->report);
  AddBudgetOptions(cmd, &o->budget, BudgetScope::kAnalyze);
  return [o] { return RunAnalyze(*o); };
}

}  // namespace fsmove::cli
