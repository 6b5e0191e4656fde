// `fsmove analyze`: parse and interpret a recorded trace offline and report what it found.
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/report/analysis_report.h"
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
};

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

int RunAnalyze(const AnalyzeOptions& o) {
  auto reader = trace::LineReader::Open(o.trace);
  if (!reader.ok()) {
    std::cerr << "fsmove: error: cannot read trace " << reader.status().message() << "\n";
    return kExitError;
  }
  if (!o.catalog.empty() && !std::ifstream(o.catalog)) {
    std::cerr << "fsmove: error: cannot read catalog " << o.catalog << "\n";
    return kExitError;
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
  auto t1 = std::chrono::steady_clock::now();
  analysis::Relations relations = analyzer.ComputeRelations(o.max_evidence);
  seconds.relations = SecondsSince(t1);

  std::ofstream file;
  std::ostream* out = &std::cout;
  if (!o.output.empty()) {
    file.open(o.output);
    if (!file) {
      std::cerr << "fsmove: error: cannot write " << o.output << "\n";
      return kExitError;
    }
    out = &file;
  }
  const std::string name = (*reader)->name();
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
  return [o] { return RunAnalyze(*o); };
}

}  // namespace fsmove::cli
