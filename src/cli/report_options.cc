// The report options and the check-and-report step shared by `analyze` and `check`.
#include "report_options.h"

#include <chrono>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "fsmove/check/path_filter.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/json_output.h"

namespace fsmove::cli {

void AddReportOptions(CLI::App* cmd, ReportOptions* o) {
  cmd->add_option("--format", o->format, "report format")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-o,--output", o->output, "write the report to this file");
  cmd->add_option("--max-evidence", o->max_evidence, "evidence paths listed per finding");
  cmd->add_flag("--strict", o->strict, "treat unparsed lines and missing markers as errors");
  cmd->add_flag("--package-notify", o->check.package_notify,
                "packages count as notifiers of the services that read their files");
  std::string ignored_help = "ignore accesses to paths matching GLOB (* within a component, ** "
                             "across); defaults:";
  for (const auto& d : check::DefaultIgnores()) ignored_help += " " + std::string(d.glob);
  // One value per occurrence: `--ignore-path A TARGET` must not swallow TARGET.
  cmd->add_option("--ignore-path", o->check.ignore_paths, ignored_help)
      ->type_name("GLOB")
      ->allow_extra_args(false);
  cmd->add_flag("--no-default-ignores", o->no_default_ignores, "do not ignore the default paths");
  cmd->add_option("--ignore-resource", o->check.ignore_resources,
                  "drop every finding involving this resource, e.g. Exec[apt-update]")
      ->type_name("REF")
      ->allow_extra_args(false);
}

int TraceWarnings(const ReportOptions& o, const analysis::Analyzer& analyzer,
                  const std::string& name) {
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

int CheckAndReport(const ReportOptions& o, const catalog::Catalog& cat,
                   report::FindingsContext ctx) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  std::ofstream file;
  std::ostream* out = OpenOutput(o.output, &file);
  if (out == nullptr) return kExitError;

  auto t = Clock::now();
  graph::DependencyGraph graph = graph::DependencyGraph::Build(cat);
  ctx.seconds.catalog_and_graph += seconds_since(t);
  t = Clock::now();
  check::CheckOptions options = o.check;
  options.default_ignores = !o.no_default_ignores;
  options.max_evidence = o.max_evidence;
  auto result = check::Check(*ctx.analyzer, cat, graph, options);
  if (!result.ok()) {
    std::cerr << "fsmove: error: " << result.status().message() << "\n";
    return kExitError;
  }
  ctx.seconds.check = seconds_since(t);
  ctx.catalog = &cat;
  ctx.graph = &graph;
  ctx.result = &*result;
  if (o.format == "json") {
    *out << report::DumpJson(report::FindingsToJson(ctx)) << "\n";
  } else {
    report::WriteFindingsText(*out, ctx);
  }
  out->flush();
  if (!*out) {
    std::cerr << "fsmove: error: writing the report failed\n";
    return kExitError;
  }
  for (const auto& u : result->stats.unknown_blocks) {
    std::cerr << "fsmove: warning: " << u.ref << " is in the trace but not in "
              << cat.source_name() << "\n";
  }
  return result->findings.empty() ? kExitOk : kExitFindings;
}

}  // namespace fsmove::cli
