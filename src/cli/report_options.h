// Options shared by the commands that check a trace against its catalog (`fsmove analyze
// --catalog`, `fsmove check`), and the one place that turns a finished analysis into a report.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/pipeline/check_and_report.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::cli {

// The report options: how to report (the pipeline's settings) and the files that configure
// the project.
struct ReportOptions : pipeline::ReportSettings {
  std::string config;  // --config FILE
  // Not an option: `fsmove check` sets it to the module root, whose .fsmove.json then applies
  // when --config is not given. Empty: only --config.
  std::string project_dir;
  std::string baseline;  // --baseline FILE
};

// --format, -o, --json-output, --sarif-output, --junit-output, --rdjson-output,
// --codequality-output, --markdown-output, --source-root, --max-evidence,
// --strict, --package-notify, --ignore-path, --no-default-ignores, --ignore-resource,
// --config, --baseline, --write-baseline, --show-suppressed, --allow-failed, --fix-diff.
void AddReportOptions(CLI::App* cmd, ReportOptions* o);

// The configuration and the baseline the options name. `fsmove check` loads them before running
// Puppet, so that a bad file fails in a second, not after the run.
absl::StatusOr<pipeline::ProjectInputs> LoadProjectInputs(const ReportOptions& o);

// pipeline::TraceWarnings, printed: kExitError with --strict when there is one, else kExitOk.
int TraceWarnings(const ReportOptions& o, const analysis::Analyzer& analyzer,
                  const std::string& name, bool run_finished = true);

// pipeline::CheckAndReport with standard output and stderr: kExitOk (no findings that count),
// kExitFindings, kExitIncomplete (without --allow-failed) or kExitError.
int CheckAndReport(const ReportOptions& o, const pipeline::ProjectInputs& project,
                   const catalog::Catalog& cat, report::FindingsContext ctx,
                   const pipeline::PuppetGraphInput* puppet_graph = nullptr,
                   const pipeline::BeforeReport& before_report = nullptr,
                   const pipeline::VerifyFixes& verify_fixes = nullptr);

}  // namespace fsmove::cli
