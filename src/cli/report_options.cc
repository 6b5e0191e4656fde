// The report options and the check-and-report step shared by `analyze` and `check`.
#include "report_options.h"

#include <chrono>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "fsmove/check/path_filter.h"
#include "fsmove/check/suppressions.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/report/json_output.h"
#include "fsmove/report/junit.h"
#include "fsmove/report/sarif.h"
#include "fsmove/report/source_root.h"
#include "fsmove/report/terminal_text.h"

namespace fsmove::cli {
namespace {

// One report in one format to one stream.
void WriteReport(std::string_view format, std::ostream& out, const report::FindingsContext& ctx,
                 const report::SourceRoot& root) {
  if (format == "json") {
    out << report::DumpJson(report::FindingsToJson(ctx)) << "\n";
  } else if (format == "sarif") {
    out << report::DumpJson(report::FindingsToSarif(ctx, {root})) << "\n";
  } else if (format == "junit") {
    report::WriteFindingsJunit(out, ctx, {root});
  } else {
    report::WriteFindingsText(out, ctx);
  }
}

}  // namespace

void AddReportOptions(CLI::App* cmd, ReportOptions* o) {
  cmd->add_option("--format", o->format, "report format (default text)")
      ->check(CLI::IsMember({"text", "json", "sarif", "junit"}));
  cmd->add_option("-o,--output", o->output, "write the report to this file");
  cmd->add_option("--json-output", o->json_output, "also write the JSON report to FILE")
      ->type_name("FILE");
  cmd->add_option("--sarif-output", o->sarif_output,
                  "also write a SARIF 2.1.0 report to FILE (GitHub code scanning)")
      ->type_name("FILE");
  cmd->add_option("--junit-output", o->junit_output,
                  "also write a JUnit XML report to FILE (GitLab, Jenkins)")
      ->type_name("FILE");
  cmd->add_option("--source-root", o->source_root,
                  "repository root: SARIF and JUnit name manifests relative to it (default: the "
                  "current directory)")
      ->type_name("DIR");
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
  cmd->add_option("--config", o->config,
                  "project configuration (.fsmove.json schema: ignore_paths, ignore_resources, "
                  "ignore_pairs, package_notify); command-line options add to it")
      ->type_name("FILE");
  cmd->add_option("--baseline", o->baseline,
                  "report only findings whose fingerprint is not in this baseline (exit 0 when "
                  "all are)")
      ->type_name("FILE");
  cmd->add_option("--write-baseline", o->write_baseline,
                  "write this run's findings (but those ignore_pairs accept) to FILE as a "
                  "baseline")
      ->type_name("FILE");
  cmd->add_flag("--all", o->show_low,
                "also show findings of low confidence (evidence only lookups or metadata) in "
                "text, and count them in the exit code; JSON and SARIF always list them, "
                "SARIF at level `note`");
  cmd->add_flag("--show-suppressed", o->show_suppressed,
                "show suppressed findings in full in text and as SARIF results with "
                "`suppressions` (GitHub ignores those and would open alerts for them)");
}

absl::StatusOr<check::ProjectConfig> ResolveProjectConfig(const ReportOptions& o) {
  if (!o.config.empty()) return check::LoadProjectConfigFile(o.config);
  if (!o.project_dir.empty()) return check::LoadProjectConfig(o.project_dir);
  return check::ProjectConfig{};
}

int CheckReportInputs(const ReportOptions& o) {
  auto config = ResolveProjectConfig(o);
  if (!config.ok()) {
    std::cerr << "fsmove: error: " << config.status().message() << "\n";
    return kExitError;
  }
  if (!o.baseline.empty()) {
    auto baseline = check::Baseline::LoadFile(o.baseline);
    if (!baseline.ok()) {
      std::cerr << "fsmove: error: " << baseline.status().message() << "\n";
      return kExitError;
    }
  }
  return kExitOk;
}

int TraceWarnings(const ReportOptions& o, const analysis::Analyzer& analyzer,
                  const std::string& name, bool run_finished) {
  if (analyzer.stats().unparsed_lines > 0) {
    const auto& first = analyzer.stats().unparsed_examples.front();
    std::cerr << "fsmove: " << (o.strict ? "error" : "warning") << ": "
              << analyzer.stats().unparsed_lines << " unparsed lines in " << name
              << "; first at line " << first.line << ": " << first.reason << "\n";
    if (o.strict) return kExitError;
  }
  if (analyzer.interpreter().stats().markers_begin == 0 && !run_finished) {
    std::cerr << "fsmove: warning: Puppet was stopped before it applied its first resource; "
                 "nothing was checked\n";
  } else if (analyzer.interpreter().stats().markers_begin == 0) {
    std::cerr << "fsmove: warning: " << name
              << " has no Puppet evaltrace markers (was it recorded with "
                 "`puppet apply --debug --evaltrace`?)\n";
    if (o.strict) return kExitError;
  }
  return kExitOk;
}

// The relationships Puppet logged adding (--debug) between resources of this catalog.
std::vector<graph::ObservedEdge> ObservedAutorelations(const analysis::Analyzer& analyzer,
                                                       const catalog::Catalog& cat) {
  std::vector<graph::ObservedEdge> edges;
  for (const trace::AutoRelationMessage& m : analyzer.puppet_autorelations()) {
    std::optional<catalog::ResourceId> self = cat.ResolveRef(m.ref);
    std::optional<catalog::ResourceId> other = cat.ResolveRef(m.other);
    if (!self || !other) continue;
    graph::ObservedEdge e;
    e.source = m.other_first ? *other : *self;
    e.target = m.other_first ? *self : *other;
    e.kind = m.refresh ? graph::EdgeKind::kNotify : graph::EdgeKind::kBefore;
    e.rule = m.other_first ? (m.refresh ? "puppet:autosubscribe" : "puppet:autorequire")
                           : (m.refresh ? "puppet:autonotify" : "puppet:autobefore");
    edges.push_back(e);
  }
  return edges;
}

int CheckAndReport(const ReportOptions& o, const catalog::Catalog& cat, report::FindingsContext ctx,
                   const PuppetGraphInput* puppet_graph, const BeforeReport& before_report) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  auto fail = [](const absl::Status& status) {
    std::cerr << "fsmove: error: " << status.message() << "\n";
    return kExitError;
  };
  auto config = ResolveProjectConfig(o);
  if (!config.ok()) return fail(config.status());
  std::optional<check::Baseline> baseline;
  if (!o.baseline.empty()) {
    auto loaded = check::Baseline::LoadFile(o.baseline);
    if (!loaded.ok()) return fail(loaded.status());
    baseline.emplace(std::move(*loaded));
  }

  ReportOutput file;
  std::ostream* out = file.Open(o.output);
  if (out == nullptr) return kExitError;
  struct ExtraReport {
    std::string_view format;
    const std::string& path;
    ReportOutput file;
    std::ostream* out = nullptr;
  };
  ExtraReport extras[] = {{"json", o.json_output, {}},
                          {"sarif", o.sarif_output, {}},
                          {"junit", o.junit_output, {}}};
  for (ExtraReport& e : extras) {
    if (!e.path.empty() && (e.out = e.file.Open(e.path)) == nullptr) return kExitError;
  }

  auto t = Clock::now();
  graph::GraphOptions graph_options;
  graph_options.observed_edges = ObservedAutorelations(*ctx.analyzer, cat);
  if (puppet_graph != nullptr) {
    auto loaded = graph::LoadPuppetGraph(puppet_graph->text, puppet_graph->name, cat,
                                         graph_options.observed_edges);
    if (!loaded.ok() && puppet_graph->required) return fail(loaded.status());
    if (!loaded.ok()) {
      std::cerr << "fsmove: warning: " << loaded.status().message()
                << "; checking against fsmove's model of the catalog instead\n";
    } else {
      for (const std::string& w : loaded->warnings) std::cerr << "fsmove: warning: " << w << "\n";
      graph_options = graph::PuppetGraphOptions(*loaded, std::move(graph_options.observed_edges));
      ctx.puppet_graph = puppet_graph->name;
    }
  }
  graph::DependencyGraph graph = graph::DependencyGraph::Build(cat, graph_options);
  ctx.seconds.catalog_and_graph += seconds_since(t);
  t = Clock::now();
  check::CheckOptions options = o.check;
  options.default_ignores = !o.no_default_ignores;
  options.max_evidence = o.max_evidence;
  std::vector<std::string> warnings = check::ApplyProjectConfig(*config, cat, &options);
  auto result = check::Check(*ctx.analyzer, cat, graph, options);
  if (!result.ok()) return fail(result.status());
  ctx.seconds.check = seconds_since(t);
  check::Suppressions suppressions =
      check::Suppress(*result, cat, *config, baseline ? &*baseline : nullptr);
  suppressions.warnings.insert(suppressions.warnings.begin(), warnings.begin(), warnings.end());
  ctx.catalog = &cat;
  ctx.graph = &graph;
  ctx.result = &*result;
  ctx.suppressions = &suppressions;
  ctx.show_suppressed = o.show_suppressed;
  ctx.show_low = o.show_low;
  if (before_report) before_report(ctx, &*result);

  report::SourceRoot root = report::SourceRoot::FromDirectory(o.source_root);
  WriteReport(o.format, *out, ctx, root);
  bool written = file.Close();
  for (ExtraReport& e : extras) {
    if (e.path.empty()) continue;
    WriteReport(e.format, *e.out, ctx, root);
    written = e.file.Close() && written;
  }
  if (!written) return kExitError;

  if (!o.write_baseline.empty()) {
    std::vector<const check::Finding*> accepted;
    for (size_t i = 0; i < result->findings.size(); ++i) {
      if (suppressions.findings[i].kind != check::SuppressionKind::kIgnoredPair) {
        accepted.push_back(&result->findings[i]);
      }
    }
    ReportOutput baseline_file;
    std::ostream* b = baseline_file.Open(o.write_baseline);
    if (b == nullptr) return kExitError;
    *b << check::BaselineToJson(accepted, cat)
              .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
       << "\n";
    if (!baseline_file.Close()) return kExitError;
    std::cerr << "fsmove: wrote " << accepted.size() << " finding"
              << (accepted.size() == 1 ? "" : "s") << " to baseline " << o.write_baseline << "\n";
  }

  for (const auto& u : result->stats.unknown_blocks) {
    std::cerr << "fsmove: warning: " << report::TerminalSafe(u.ref) << " is in the trace but not in "
              << cat.source_name() << "\n";
  }
  for (const std::string& w : suppressions.warnings) {
    std::cerr << "fsmove: warning: " << report::TerminalSafe(w) << "\n";
  }
  return ctx.ReportedCount(o.fail_on == "confirmed") == 0 ? kExitOk : kExitFindings;
}

}  // namespace fsmove::cli
