// The check pipeline's last stage, shared by `fsmove analyze --catalog` and `fsmove check`:
// from a finished analysis and its catalog to the reports. Builds the dependency graph (from
// Puppet's own graph when given), runs the checker with the project's configuration, applies
// its ignore_pairs and baseline, writes every report and, on request, a new baseline.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/base/diagnostic.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/checker/completeness.h"
#include "fsmove/checker/project_config.h"
#include "fsmove/gating/baseline.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/pipeline/fix_patches.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::pipeline {

// How the findings are reported (the command line's report options, without the files that
// configure the project: those are ProjectInputs).
struct ReportSettings {
  std::string format = "text";  // text, json, sarif, junit, rdjson, codequality, markdown
  std::string output;           // empty: `stdout` below
  size_t max_evidence = 16;
  bool strict = false;
  bool no_default_ignores = false;
  checker::CheckOptions check;
  // Further reports of the same run (CI wants SARIF and JUnit from one Puppet run).
  std::string json_output;
  std::string sarif_output;
  std::string junit_output;
  std::string rdjson_output;       // reviewdog's diagnostic format
  std::string codequality_output;  // GitLab Code Quality
  std::string markdown_output;     // a pull-request comment
  // Report paths (SARIF, JUnit, rdjson, Code Quality, markdown) are relative to it (default:
  // the current directory).
  std::string source_root = ".";
  std::string write_baseline;  // write the accepted findings here as a baseline
  bool show_suppressed = false;
  bool show_low = false;
  // "any" finding that counts makes the verdict kFindings, or only "confirmed" ones (by a
  // replay, and resources that are not idempotent).
  std::string fail_on = "any";
  // --allow-failed: a check that saw only part of the apply (resources failed, skipped or never
  // evaluated, Puppet's apply failed) is judged on its findings alone, as a complete one.
  bool allow_failed = false;
  // --fix-diff FILE and --fix: the findings as patches of the checked code (fix_patches.h);
  // nothing is planned unless one of them is given.
  FixSettings fix;
  bool fixes_wanted() const { return !fix.diff_file.empty() || fix.apply; }

  // Every file a report goes to (-o, the --*-output files, --write-baseline, --fix-diff), empty
  // or not: the commands check them before a long run and against their inputs.
  std::vector<const std::string*> OutputFiles() const {
    return {&output,          &json_output,    &sarif_output,
            &junit_output,    &rdjson_output,  &codequality_output,
            &markdown_output, &write_baseline, &fix.diff_file};
  }
};

// The formats a report of its own can go to beside the main one (--json-output, ...): the name,
// the setting that names its file (empty: not asked for), and the extension a file of it takes.
struct ExtraOutput {
  std::string_view format;
  std::string ReportSettings::*file;
  std::string_view ext;
};
inline constexpr ExtraOutput kExtraOutputs[] = {
    {"json", &ReportSettings::json_output, "json"},
    {"sarif", &ReportSettings::sarif_output, "sarif"},
    {"junit", &ReportSettings::junit_output, "xml"},
    {"rdjson", &ReportSettings::rdjson_output, "rdjson"},
    {"codequality", &ReportSettings::codequality_output, "codequality.json"},
    {"markdown", &ReportSettings::markdown_output, "md"}};

// The project's configuration and baseline, loaded once (before a long run, so that a bad file
// fails in a second).
struct ProjectInputs {
  checker::ProjectConfig config;
  std::optional<gating::Baseline> baseline;
};

// `config_file` when given, else <project_dir>/.fsmove.json when project_dir is not empty and
// the file exists, else an empty configuration; and the baseline `baseline_file` names (none
// when empty).
absl::StatusOr<ProjectInputs> LoadProjectInputs(const std::string& config_file,
                                                const std::string& project_dir,
                                                const std::string& baseline_file);

// Unparsed lines and missing markers: warnings, or an error with `strict`. `run_finished`
// false (a check whose apply was stopped): no markers means Puppet was stopped before its first
// resource, not a trace recorded wrongly.
absl::Status TraceWarnings(bool strict, const analysis::Analyzer& analyzer, const std::string& name,
                           bool run_finished, const base::DiagnosticSink& say);

// Puppet's own graph of the run (expanded_relationships.dot).
struct PuppetGraphInput {
  std::string name;  // the file, for messages and the report
  std::string text;
  // analyze --puppet-graph: a graph that does not load is an error. fsmove check: a warning,
  // and the check uses fsmove's model of the catalog instead.
  bool required = true;
};

// Runs once the findings are known and suppressed, before any report is written (fsmove check
// --confirm replays them there).
using BeforeReport = std::function<void(const report::FindingsContext&, checker::CheckResult*)>;

enum class Verdict {
  kClean,       // no finding that counts (suppressed and low-confidence ones do not)
  kFindings,    // at least one
  kIncomplete,  // Puppet did not apply the whole catalog: the check saw only part of it
};

// The verdict of a check with `reported` findings that count: kIncomplete when the check saw
// only part of the apply, whatever its findings (the report lists both), unless
// `allow_failed`; then kFindings or kClean.
Verdict Decide(size_t reported, const checker::Completeness& completeness, bool allow_failed);

struct PipelineIo {
  std::ostream* stdout_stream = nullptr;  // the report when settings.output is empty
  // Warnings ("fsmove: warning: TEXT" on the command line) and what was done besides the
  // reports (Info: "wrote 3 findings to baseline FILE"); may be empty (dropped).
  base::DiagnosticSink say;
};

// The relationships Puppet logged adding (--debug) between resources of this catalog, as
// edges of the dependency graph.
std::vector<graph::ObservedEdge> ObservedAutorelations(const analysis::Analyzer& analyzer,
                                                       const catalog::Catalog& cat);

// `ctx` carries the trace name, the analyzer, parse and catalog seconds and, for `fsmove check`,
// the run summary; the graph, result and suppressions are filled here. Errors: a report or
// baseline that cannot be written, a required Puppet graph that does not load.
absl::StatusOr<Verdict> CheckAndReport(const ReportSettings& settings, const ProjectInputs& project,
                                       const catalog::Catalog& cat, report::FindingsContext ctx,
                                       const PipelineIo& io,
                                       const PuppetGraphInput* puppet_graph = nullptr,
                                       const BeforeReport& before_report = nullptr,
                                       const VerifyFixes& verify_fixes = nullptr);

// A re-check's findings: the check of a finished analysis with the same settings and project
// (fsmove check verifying a patch), without reports. `counted` lists the findings that count
// (not suppressed; low confidence only with show_low).
struct RecheckFindings {
  checker::CheckResult result;
  std::vector<bool> counted;
};
absl::StatusOr<RecheckFindings> CheckFindings(const ReportSettings& settings,
                                              const ProjectInputs& project,
                                              const catalog::Catalog& cat,
                                              const analysis::Analyzer& analyzer,
                                              const PuppetGraphInput* puppet_graph);

}  // namespace fsmove::pipeline
