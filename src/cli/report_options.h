// Options shared by the commands that check a trace against its catalog (`fsmove analyze
// --catalog`, `fsmove check`), and the one place that turns a finished analysis into a report.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/baseline.h"
#include "fsmove/check/checker.h"
#include "fsmove/check/project_config.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::cli {

struct ReportOptions {
  std::string format = "text";  // text, json, sarif, junit
  std::string output;
  size_t max_evidence = 16;
  bool strict = false;
  bool no_default_ignores = false;
  check::CheckOptions check;
  // Further reports of the same run (CI wants SARIF and JUnit from one Puppet run).
  std::string json_output;
  std::string sarif_output;
  std::string junit_output;
  // SARIF and JUnit paths are relative to it (default: the current directory).
  std::string source_root = ".";
  std::string config;  // --config FILE
  // Not an option: `fsmove check` sets it to the module root, whose .fsmove.json then applies
  // when --config is not given. Empty: only --config.
  std::string project_dir;
  std::string baseline;        // --baseline FILE
  std::string write_baseline;  // --write-baseline FILE
  bool show_suppressed = false;
  bool show_low = false;  // --all
  // fsmove check --fail-on: "any" finding that counts fails the run, or only "confirmed"
  // ones (by a replay, and resources that are not idempotent).
  std::string fail_on = "any";
};

// --format, -o, --json-output, --sarif-output, --junit-output, --source-root, --max-evidence,
// --strict, --package-notify, --ignore-path, --no-default-ignores, --ignore-resource,
// --config, --baseline, --write-baseline, --show-suppressed.
void AddReportOptions(CLI::App* cmd, ReportOptions* o);

// The project configuration that applies: --config FILE, else <project_dir>/.fsmove.json
// when project_dir is set and the file exists, else an empty one.
absl::StatusOr<check::ProjectConfig> ResolveProjectConfig(const ReportOptions& o);

// Loads the configuration and the baseline the options name and prints the first error.
// Returns kExitOk or kExitError. CheckAndReport loads them itself; `fsmove check` calls this
// before running Puppet so that a bad file fails in a second, not after the run.
int CheckReportInputs(const ReportOptions& o);

// Unparsed lines and missing markers: warnings on stderr, or errors with --strict (returns
// kExitError then, kExitOk otherwise). `run_finished` false (a check whose apply was stopped):
// no markers means Puppet was stopped before its first resource, not a trace recorded wrongly.
int TraceWarnings(const ReportOptions& o, const analysis::Analyzer& analyzer,
                  const std::string& name, bool run_finished = true);

// Puppet's own graph of the run (expanded_relationships.dot), for CheckAndReport.
struct PuppetGraphInput {
  std::string name;  // the file, for messages and the report
  std::string text;
  // analyze --puppet-graph: a graph that does not load is an error. fsmove check: a warning,
  // and the check uses fsmove's model of the catalog instead.
  bool required = true;
};

// Builds the dependency graph (from Puppet's graph when `puppet_graph` is given), runs the
// checker (with the project configuration's ignores), applies ignore_pairs and the baseline,
// writes the reports (and the baseline with --write-baseline). `ctx` carries the trace name, the analyzer, parse and catalog seconds and,
// for `fsmove check`, the run summary; the graph, result and suppressions are filled here.
// Returns kExitOk (no findings that are not suppressed), kExitFindings or kExitError.
// `before_report`, when set, runs once the findings are known and suppressed, before any
// report is written (fsmove check --confirm replays them there).
using BeforeReport = std::function<void(const report::FindingsContext&, check::CheckResult*)>;
int CheckAndReport(const ReportOptions& o, const catalog::Catalog& cat, report::FindingsContext ctx,
                   const PuppetGraphInput* puppet_graph = nullptr,
                   const BeforeReport& before_report = nullptr);

}  // namespace fsmove::cli
