// `fsmove check TARGET --matrix FILE`: the check of TARGET made once per row of the matrix
// file (matrix_file.h), each as its own check (its node name, class and facts; its own
// sandboxes), and one report of them all in the formats asked for (matrix_report.h), with
// --results DIR keeping each node's files and a report.html of the rows.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fsmove/check/check_run.h"
#include "fsmove/matrix/matrix_file.h"

namespace fsmove::matrix {

struct MatrixSettings {
  std::string file;  // the matrix file, as the user named it
  // --results DIR: per node a folder (its name) with report.json, check.log, catalog.json,
  // puppet.log and Puppet's graph; report.html at the top. Empty: nothing is kept.
  std::string results_dir;
};

// What --matrix does not go with, said before anything runs: --node, --facts (a row's
// columns), the files of one run (--save-trace, --save-catalog, --save-graph, --puppet-log,
// --keep-sandbox: --results DIR keeps them per node), --fix, --fix-diff and
// --write-baseline (a patch or a baseline of one node: check it alone); a row's class on a
// target that is no control repo; a row's facts file that cannot be read (FILE:LINE).
absl::Status MatrixAgrees(const check::Request& request, const pipeline::ReportSettings& report,
                          const std::vector<MatrixRow>& rows, const MatrixSettings& matrix,
                          bool control_repo);

// The rows' checks one after the other (an interrupted one stops the rest), their merged
// report written where settings.report says (standard output: `sink`'s), and the matrix's
// exit code (MatrixExitCode). What each check says goes to `sink` with its node's name first.
check::Outcome RunMatrix(const check::Request& request, const check::Settings& settings,
                         const std::vector<MatrixRow>& rows, const MatrixSettings& matrix,
                         check::Sink& sink);

}  // namespace fsmove::matrix
