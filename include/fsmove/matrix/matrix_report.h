// One report of a matrix's checks (`fsmove check --matrix FILE`), in each of check's formats,
// merged from the documents each row's check wrote, with the row (its node, class and facts)
// on every part:
//   text         each node's report under a heading, then a table of a row per node
//   json         {"matrix", "target", "exit_code", "rows": [{node, class, facts, status,
//                exit_code, mor, mn, error, report}]} (docs/json-matrix.schema.json), each
//                report check's own JSON report
//   sarif        one run per node, told apart by automationDetails.id ("fsmove-matrix/NODE/":
//                a category of its own in GitHub code scanning); a node that could not be
//                checked is a run whose invocation failed, with the error
//   junit        one testsuite per node, the totals summed; a node not checked is an error case
//   rdjson,      the diagnostics or issues of every node, one per finding: a finding of several
//   codequality  nodes names them all
//   markdown     each node's comment under a heading
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fsmove/matrix/matrix_file.h"
#include "fsmove/scan/module_result.h"
#include "nlohmann/json.hpp"

namespace fsmove::matrix {

// What one row's check left.
struct RowResult {
  MatrixRow row;
  int exit_code = -1;
  std::string check_log;                 // what the check said, as the terminal shows it
  std::optional<nlohmann::json> report;  // its JSON report, when it wrote one
  scan::ModuleResult result;             // its status and counts (scan::Classify)
  // Its documents in the formats asked for, by format name ("" when it wrote none).
  std::vector<std::pair<std::string, std::string>> documents;
  const std::string* Document(std::string_view format) const;
};

// The status a row's check ended in (scan::Classify of what it left).
scan::ModuleResult ClassifyRow(const MatrixRow& row, int exit_code, const std::string& check_log,
                               const std::optional<nlohmann::json>& report);

// The matrix's exit code: an interrupted row's (128 + signal), else kExitError when a row
// could not be checked, kExitIncomplete when one was incomplete, kExitFindings when one has
// findings, kExitOk.
int MatrixExitCode(const std::vector<RowResult>& rows);

// The document in `format` ("text", "json", "sarif", ...), for the check of `target` by the
// matrix file `matrix_file`.
std::string MergeReports(std::string_view format, const std::vector<RowResult>& rows,
                         const std::string& target, const std::string& matrix_file);

// The terminal's table: a line per node with its class, facts, status and counts.
std::string MatrixTable(const std::vector<RowResult>& rows);

}  // namespace fsmove::matrix
