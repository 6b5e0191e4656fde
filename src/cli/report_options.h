// Options shared by the commands that check a trace against its catalog (`fsmove analyze
// --catalog`, `fsmove check`), and the one place that turns a finished analysis into a report.
#pragma once

#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/checker.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::cli {

struct ReportOptions {
  std::string format = "text";
  std::string output;
  size_t max_evidence = 16;
  bool strict = false;
  bool no_default_ignores = false;
  check::CheckOptions check;
};

// --format, -o, --max-evidence, --strict, --package-notify, --ignore-path,
// --no-default-ignores, --ignore-resource.
void AddReportOptions(CLI::App* cmd, ReportOptions* o);

// Unparsed lines and missing markers: warnings on stderr, or errors with --strict (returns
// kExitError then, kExitOk otherwise).
int TraceWarnings(const ReportOptions& o, const analysis::Analyzer& analyzer,
                  const std::string& name);

// Builds the dependency graph, runs the checker and writes the report. `ctx` carries the trace
// name, the analyzer, parse and catalog seconds and, for `fsmove check`, the run summary; the
// graph and result are filled here. Returns kExitOk, kExitFindings or kExitError.
int CheckAndReport(const ReportOptions& o, const catalog::Catalog& cat,
                   report::FindingsContext ctx);

}  // namespace fsmove::cli
