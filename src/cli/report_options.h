// Options shared by the commands that check a trace against its catalog (`fsmove analyze
// --catalog`, `fsmove check`): the pipeline's report settings and the project's files.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "fsmove/pipeline/check_and_report.h"

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

}  // namespace fsmove::cli
