// `fsmove analyze`: parse and interpret a recorded trace offline and report what it found.
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/checker.h"
#include "fsmove/check/path_filter.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/analysis_report.h"
#include "fsmove/report/findings_report.h"
#include "fsmove/report/json_output.h"
#include "fsmove/trace/line_reader.h"

namespace fsmove::cli {
namespace {

struct AnalyzeOptions {
  std::string trace;
  std::string catalog;
  std::string format = "text";
  std::string output;
  std::string initial_cwd;
  bool strict = false;
  size_t max_evidence = 16;
  check::CheckOptions check;
  bool no_default_ignores = false;
};

int Warnings(const AnalyzeOptions& o, const analysis::Analyzer& analyzer, const std::string& name);

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int RunAnalyze(const AnalyzeOptions& o) {
  double catalog_seconds = 0;
  auto reader = trace::LineReader::Open(o.trace);
  if (!reader.ok()) {
    std::cerr << "fsmove: error: cannot read trace " << reader.status().message() << "\n";
    return kExitError;
  }
  // The catalog is read first: a bad one is reported before a long trace is analysed.
  std::optional<catalog::Catalog> cat;
  if (!o.catalog.empty()) {
    auto t = std::chrono::steady_clock::now();
    auto loaded = catalog::Catalog::LoadFile(o.catalog);
    if (!loaded.ok()) {
      std::cerr << "fsmove: error: " << loaded.status().message() << "\n";
      return kExitError;
    }
    cat.emplace(std::move(*loaded));
    catalog_seconds = SecondsSince(t);
  }
  analysis::AnalyzerOptions options;
  options.interpreter.initial_cwd = o.initial_cwd;
  analysis::Analyzer analyzer(options);
  auto t0 = std::chrono::steady_clock::now();
  absl::Status st = analyzer.Run(**reader);
  report::StageSeconds seconds;
  seconds.analysis = SecondsSince(t0);
  if (!st.ok()) {
    std::cerr << "fsmove: error: " << st.message() << " (after line "
              << (*reader)->line_number() << ")\n";
    return kExitError;
  }
  std::ofstream file;
  std::ostream* out = OpenOutput(o.output, &file);
  if (out == nullptr) return kExitError;
  const std::string name = (*reader)->name();
  int status = Warnings(o, analyzer, name);
  if (status != kExitOk) return status;

  if (cat) {
    auto t = std::chrono::steady_clock::now();
    graph::DependencyGraph graph = graph::DependencyGraph::Build(*cat);
    double graph_seconds = SecondsSince(t);
    t = std::chrono::steady_clock::now();
    check::CheckOptions options = o.check;
    options.default_ignores = !o.no_default_ignores;
    options.max_evidence = o.max_evidence;
    auto result = check::Check(analyzer, *cat, graph, options);
    if (!result.ok()) {
      std::cerr << "fsmove: error: " << result.status().message() << "\n";
      return kExitError;
    }
    report::FindingsContext ctx;
    ctx.trace_name = name;
    ctx.analyzer = &analyzer;
    ctx.catalog = &*cat;
    ctx.graph = &graph;
    ctx.result = &*result;
    ctx.seconds = {seconds.analysis, catalog_seconds + graph_seconds, SecondsSince(t)};
    if (o.format == "json") {
      *out << report::DumpJson(report::FindingsToJson(ctx)) << "\n";
    } else {
      report::WriteFindingsText(*out, ctx);
    }
    for (const auto& u : result->stats.unknown_blocks) {
      std::cerr << "fsmove: warning: " << u.ref << " is in the trace but not in " << o.catalog
                << "\n";
    }
    return result->findings.empty() ? kExitOk : kExitFindings;
  }

  auto t1 = std::chrono::steady_clock::now();
  analysis::Relations relations = analyzer.ComputeRelations(o.max_evidence);
  seconds.relations = SecondsSince(t1);

  if (o.format == "json") {
    nlohmann::json j;
    j["tool"] = {{"name", "fsmove"}, {"version", FSMOVE_VERSION}};
    j["trace"] = name;
    j["stats"] = report::StatsToJson(analyzer, seconds);
    j["relations"] =
        report::RelationsToJson(relations, analyzer.interpreter().blocks());
    *out << report::DumpJson(j) << "\n";
  } else {
    report::WriteAnalysisText(*out, name, analyzer, relations);
  }
  return kExitOk;
}

// Unparsed lines and missing markers: warnings, or errors with --strict.
int Warnings(const AnalyzeOptions& o, const analysis::Analyzer& analyzer, const std::string& name) {
  if (analyzer.stats().unparsed_lines > 0) {
    const auto& first = analyzer.stats().unparsed_examples.front();
    std::cerr << "fsmove: " << (o.strict ? "error" : "warning") << ": "
              << analyzer.stats().unparsed_lines << " unparsed lines in " << name
              << "; first at line " << first.line << ": " << first.reason << "\n";
    if (o.strict) return kExitError;
  }
  if (analyzer.interpreter().stats().markers_begin == 0) {
    std::cerr << "fsmove: warning: " << name
              << " has no Puppet evaltrace markers (was it recorded with "
                 "`puppet apply --debug --evaltrace`?)\n";
    if (o.strict) return kExitError;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> RegisterAnalyze(CLI::App& app) {
  auto o = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand("analyze", "Analyse a recorded strace trace of puppet apply");
  cmd->add_option("--trace", o->trace, "strace output: a file, a .zst file, or - for stdin")
      ->required();
  cmd->add_option("--catalog", o->catalog, "the compiled catalog the trace applied (JSON)");
  cmd->add_option("--format", o->format, "report format")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-o,--output", o->output, "write the report to this file");
  cmd->add_option("--initial-cwd", o->initial_cwd,
                  "working directory of the traced command, if known");
  cmd->add_option("--max-evidence", o->max_evidence, "evidence paths listed per relation");
  cmd->add_flag("--strict", o->strict, "treat unparsed lines and missing markers as errors");
  cmd->add_flag("--package-notify", o->check.package_notify,
                "packages count as notifiers of the services that read their files");
  std::string ignored_help = "ignore accesses to paths matching GLOB (* within a component, ** "
                             "across); defaults:";
  for (const auto& d : check::DefaultIgnores()) ignored_help += " " + std::string(d.glob);
  cmd->add_option("--ignore-path", o->check.ignore_paths, ignored_help)->type_name("GLOB");
  cmd->add_flag("--no-default-ignores", o->no_default_ignores, "do not ignore the default paths");
  cmd->add_option("--ignore-resource", o->check.ignore_resources,
                  "drop every finding involving this resource, e.g. Exec[apt-update]")
      ->type_name("REF");
  return [o] { return RunAnalyze(*o); };
}

}  // namespace fsmove::cli
