// `fsmove analyze` as a library: a recorded trace (and the catalog it applied) in, a report
// out. Without a catalog the report is the trace's relations (which resource needs which);
// with one, the findings, reported as a check reports them (check_run.h's ReportFindings).
#pragma once

#include <string>

#include "fsmove/base/host_budget.h"
#include "fsmove/check/check_run.h"
#include "fsmove/pipeline/check_and_report.h"

namespace fsmove::check {

struct AnalyzeRequest {
  std::string trace;           // strace's output: a file, a .zst file, or - for standard input
  std::string catalog;         // the compiled catalog the trace applied; empty: relations only
  std::string initial_cwd;     // the traced command's working directory, if known
  bool no_merged_usr = false;  // /bin, /sbin and /lib* are not links into /usr
  std::string puppet_graph;    // check against this graph (Puppet's own) instead of fsmove's
  int threads = 2;             // 1: read and interpret on one thread; 2 (or more): two
  base::HostBudget budget;     // fsmove's own limits (paths, inodes, the catalog's size)
  // The project's files, read after the catalog (a check's inputs only): --config, the
  // directory whose .fsmove.json applies without it, --baseline.
  std::string config;
  std::string project_dir;
  std::string baseline;
};

// Reads, analyses and reports; everything it says goes to `sink`. Outputs that are also
// inputs, or cannot be written, are refused before the trace is read. Exit codes: check_end.h.
Outcome Analyze(const AnalyzeRequest& request, const pipeline::ReportSettings& report, Sink& sink);

}  // namespace fsmove::check
