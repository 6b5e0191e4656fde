// report.html: a scan (or a merge of shards) on one self-contained page that a browser opens
// from the results folder, with no network: the status of every run and the counts per
// status, the coverage, each run's findings with their evidence, fix and a small graph of the
// two resources, and filters by status and kind.
//
// Everything on the page comes from module code nobody reviewed (resource titles, Puppet's
// error messages), so the data travels as JSON inside a non-executable script element, with
// '<', '>' and '&' escaped, and the page's script puts it into the DOM only as text; a
// Content-Security-Policy forbids anything but the page's own inline style and script.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fsmove/scan/module_result.h"
#include "nlohmann/json.hpp"

namespace fsmove::scan {

inline constexpr const char* kReportHtml = "report.html";

// What the page shows of one run: its result, and its report.json's findings (null when the
// run has no report).
struct ReportRun {
  ModuleResult result;
  std::string folder;  // the run's folder, relative to the page (links to its files)
  nlohmann::json report;
};

// The page's data: {"title", "coverage", "statuses": {status: count}, "runs": [...]} (and
// "unit", what the coverage counts when not modules: a --matrix's "nodes"), each run
// with its summary fields and at most `max_findings` findings, each with at most 5 paths.
nlohmann::json ScanReportData(const std::vector<ReportRun>& runs, const std::string& title,
                              size_t max_findings = 200);

// The whole page for `data` (from ScanReportData).
std::string ScanReportHtml(const nlohmann::json& data);

// Reads each result's report.json from its folder of `dir` (ModuleDirName; unreadable or
// missing: no findings shown, the status says why) and writes `dir`/report.html atomically.
absl::Status WriteScanReport(const std::string& dir, const std::vector<ModuleResult>& results);

}  // namespace fsmove::scan
