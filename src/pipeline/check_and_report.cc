// From a finished analysis to the reports: graph, checker, suppressions, report files.
#include "fsmove/pipeline/check_and_report.h"

#include <chrono>
#include <memory>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/seconds.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/catalog/block_resolver.h"
#include "fsmove/catalog/managed_paths.h"
#include "fsmove/gating/suppressions.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/pipeline/source_comments.h"
#include "fsmove/report/code_quality.h"
#include "fsmove/report/json_output.h"
#include "fsmove/report/junit.h"
#include "fsmove/report/markdown_report.h"
#include "fsmove/report/rdjson.h"
#include "fsmove/report/sarif.h"
#include "fsmove/report/source_root.h"

namespace fsmove::pipeline {
namespace {

using Clock = std::chrono::steady_clock;

void WriteReport(std::string_view format, std::ostream& out, const report::FindingsContext& ctx,
                 const report::SourceRoot& root) {
  if (format == "json") {
    out << report::DumpJson(report::FindingsToJson(ctx)) << "\n";
  } else if (format == "sarif") {
    out << report::DumpJson(report::FindingsToSarif(ctx, {root})) << "\n";
  } else if (format == "junit") {
    report::WriteFindingsJunit(out, ctx, {root});
  } else if (format == "rdjson") {
    out << report::DumpJson(report::FindingsToRdjson(ctx, root)) << "\n";
  } else if (format == "codequality") {
    out << report::DumpJson(report::FindingsToCodeQuality(ctx, root)) << "\n";
  } else if (format == "markdown") {
    report::MarkdownOptions markdown;
    markdown.source_root = root;
    report::WriteFindingsMarkdown(out, ctx, markdown);
  } else {
    report::WriteFindingsText(out, ctx);
  }
}

}  // namespace

// The relationships Puppet logged adding (--debug) between resources of this catalog. A
// resource Puppet generated at apply time (the File a Concat_file writes, a recursive File's
// children, a Tidy's files) logs its own autorequires too: its parent directory's File, its
// owner and group. Its block is charged to its generator, so the relationship is its
// generator's: File[/etc/app] -> Concat_file[/etc/app/app.conf].
std::vector<graph::ObservedEdge> ObservedAutorelations(const analysis::Analyzer& analyzer,
                                                       const catalog::Catalog& cat) {
  std::vector<graph::ObservedEdge> edges;
  std::optional<catalog::ManagedPaths> paths;
  std::optional<catalog::BlockResolver> resolver;
  for (const strace::AutoRelationMessage& m : analyzer.puppet_autorelations()) {
    std::optional<catalog::ResourceId> self = cat.ResolveRef(m.ref);
    std::optional<catalog::ResourceId> other = cat.ResolveRef(m.other);
    if (!self && other) {
      if (!resolver) {
        paths.emplace(cat);
        resolver.emplace(cat, *paths);
      }
      catalog::BlockResolution generated = resolver->Resolve(m.ref, m.ref);
      if (generated.how == catalog::BlockMatch::kGenerated) self = generated.resource;
    }
    if (!self || !other || *self == *other) continue;
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

namespace {

// The findings a baseline written now accepts: all but those the code's comments and
// ignore_pairs suppress.
absl::Status WriteBaseline(const std::string& path, const checker::CheckResult& result,
                           const gating::Suppressions& suppressions, const catalog::Catalog& cat,
                           const base::DiagnosticSink& say) {
  std::vector<const checker::Finding*> accepted;
  for (size_t i = 0; i < result.findings.size(); ++i) {
    const gating::SuppressionKind kind = suppressions.findings[i].kind;
    if (kind != gating::SuppressionKind::kIgnoredPair &&
        kind != gating::SuppressionKind::kInSource) {
      accepted.push_back(&result.findings[i]);
    }
  }
  std::string text = report::DumpJson(gating::BaselineToJson(accepted, cat)) + "\n";
  if (absl::Status st = base::WriteOutputFile(path, text); !st.ok()) return st;
  if (say) {
    say(base::Info(absl::StrCat("wrote ", accepted.size(), " finding",
                                accepted.size() == 1 ? "" : "s", " to baseline ", path)));
  }
  return absl::OkStatus();
}

// What the run (fsmove check) knows of its apply besides the trace.
checker::ApplyFacts FactsOf(const report::RunSummary& run) {
  checker::ApplyFacts facts;
  facts.exit_code = run.puppet_exit_code;
  for (const report::FailedResource& f : run.failed)
    facts.failed.push_back({f.resource, f.message});
  facts.unfinished = run.WhyUnfinished();
  facts.limits_hit = run.host_limits_hit;
  return facts;
}

}  // namespace

Verdict Decide(size_t reported, const checker::Completeness& completeness, bool allow_failed) {
  // A limit of fsmove's own is not Puppet's failure: --allow-failed does not judge past it.
  if (!completeness.limits_hit.empty()) return Verdict::kIncomplete;
  if (!allow_failed && !completeness.complete()) return Verdict::kIncomplete;
  return reported == 0 ? Verdict::kClean : Verdict::kFindings;
}

absl::StatusOr<ProjectInputs> LoadProjectInputs(const std::string& config_file,
                                                const std::string& project_dir,
                                                const std::string& baseline_file) {
  ProjectInputs inputs;
  if (!config_file.empty()) {
    auto config = checker::LoadProjectConfigFile(config_file);
    if (!config.ok()) return config.status();
    inputs.config = std::move(*config);
  } else if (!project_dir.empty()) {
    auto config = checker::LoadProjectConfig(project_dir);
    if (!config.ok()) return config.status();
    inputs.config = std::move(*config);
  }
  if (!baseline_file.empty()) {
    auto baseline = gating::Baseline::LoadFile(baseline_file);
    if (!baseline.ok()) return baseline.status();
    inputs.baseline.emplace(std::move(*baseline));
  }
  return inputs;
}

absl::Status TraceWarnings(bool strict, const analysis::Analyzer& analyzer, const std::string& name,
                           bool run_finished, const base::DiagnosticSink& say) {
  auto warn = [&](const std::string& text) {
    if (say) say(base::Warning(text));
  };
  auto problem = [&](const std::string& text) -> absl::Status {
    if (strict) return absl::InvalidArgumentError(text);
    warn(text);
    return absl::OkStatus();
  };
  if (analyzer.stats().unparsed_lines > 0) {
    const auto& first = analyzer.stats().unparsed_examples.front();
    absl::Status st =
        problem(absl::StrCat(analyzer.stats().unparsed_lines, " unparsed lines in ", name,
                             "; first at line ", first.line, ": ", first.reason));
    if (!st.ok()) return st;
  }
  if (analyzer.interpreter().stats().markers_begin == 0 && !run_finished) {
    warn("Puppet was stopped before it applied its first resource; nothing was checked");
  } else if (analyzer.interpreter().stats().markers_begin == 0) {
    return problem(absl::StrCat(name,
                                " has no Puppet evaltrace markers (was it recorded with "
                                "`puppet apply --debug --evaltrace`?)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Verdict> CheckAndReport(const ReportSettings& o, const ProjectInputs& project,
                                       const catalog::Catalog& cat, report::FindingsContext ctx,
                                       const PipelineIo& io, const PuppetGraphInput* puppet_graph,
                                       const BeforeReport& before_report,
                                       const VerifyFixes& verify_fixes) {
  auto warn = [&](std::string_view text) {
    if (io.say) io.say(base::Warning(std::string(text)));
  };
  // Every report file is made before the (possibly long) check, so that one that cannot be
  // written fails first.
  struct Report {
    std::string_view format;
    const std::string& path;
    bool wanted;
    base::ReportDestination out;
  };
  std::vector<Report> reports;
  reports.reserve(1 + std::size(kExtraOutputs));
  reports.push_back({o.format, o.output, true, {}});
  for (const ExtraOutput& e : kExtraOutputs) {
    reports.push_back({e.format, o.*e.file, !(o.*e.file).empty(), {}});
  }
  for (Report& r : reports) {
    if (!r.wanted) continue;
    if (absl::Status st = r.out.Open(r.path, io.stdout_stream); !st.ok()) return st;
  }

  auto t = Clock::now();
  graph::GraphOptions graph_options;
  graph_options.observed_edges = ObservedAutorelations(*ctx.analyzer, cat);
  if (puppet_graph != nullptr) {
    auto loaded = graph::LoadPuppetGraph(puppet_graph->text, puppet_graph->name, cat,
                                         graph_options.observed_edges);
    if (!loaded.ok() && puppet_graph->required) return loaded.status();
    if (!loaded.ok()) {
      warn(absl::StrCat(loaded.status().message(),
                        "; checking against fsmove's model of the catalog instead"));
    } else {
      for (const std::string& w : loaded->warnings) warn(w);
      graph_options = graph::PuppetGraphOptions(*loaded, std::move(graph_options.observed_edges));
      ctx.puppet_graph = puppet_graph->name;
    }
  }
  graph::DependencyGraph graph = graph::DependencyGraph::Build(cat, graph_options);
  ctx.seconds.catalog_and_graph += base::SecondsSince(t);
  t = Clock::now();
  checker::CheckOptions options = o.check;
  options.default_ignores = !o.no_default_ignores;
  options.max_evidence = o.max_evidence;
  std::vector<std::string> warnings = checker::ApplyProjectConfig(project.config, cat, &options);
  auto result = checker::Check(ctx.analyzer->result(), cat, graph, options);
  if (!result.ok()) return result.status();
  ctx.seconds.check = base::SecondsSince(t);
  std::optional<checker::ApplyFacts> facts;
  if (ctx.run != nullptr) facts = FactsOf(*ctx.run);
  const checker::Completeness completeness =
      checker::AssessCompleteness(ctx.analyzer->result(), cat, *result, facts ? &*facts : nullptr);
  ctx.completeness = &completeness;
  ctx.allow_failed = o.allow_failed;
  const gating::SourceSuppressions in_source = ReadSourceSuppressions(cat, o.fix.scope);
  gating::Suppressions suppressions = gating::Suppress(
      *result, cat, project.config, project.baseline ? &*project.baseline : nullptr, &in_source);
  suppressions.warnings.insert(suppressions.warnings.begin(), warnings.begin(), warnings.end());
  ctx.catalog = &cat;
  ctx.graph = &graph;
  ctx.result = &*result;
  ctx.suppressions = &suppressions;
  ctx.show_suppressed = o.show_suppressed;
  ctx.show_low = o.show_low;
  if (before_report) before_report(ctx, &*result);
  if (o.fixes_wanted()) {
    absl::Status st = MakeFixes(o.fix, ctx, &*result, verify_fixes, io.say);
    if (!st.ok()) return st;
  }

  report::SourceRoot root = report::SourceRoot::FromDirectory(o.source_root);
  absl::Status written = absl::OkStatus();
  for (Report& r : reports) {
    if (!r.wanted) continue;
    WriteReport(r.format, r.out.stream(), ctx, root);
    if (absl::Status st = r.out.Close(); written.ok()) written = st;
  }
  if (!written.ok()) return written;
  if (!o.write_baseline.empty()) {
    absl::Status st = WriteBaseline(o.write_baseline, *result, suppressions, cat, io.say);
    if (!st.ok()) return st;
  }

  for (const auto& u : result->stats.unknown_blocks) {
    warn(
        absl::StrCat(base::TerminalSafe(u.ref), " is in the trace but not in ", cat.source_name()));
  }
  for (const std::string& w : suppressions.warnings) warn(base::TerminalSafe(w));
  for (const base::BudgetHit& hit : completeness.limits_hit) {
    warn(base::TerminalSafe(hit.Sentence()));
  }
  return Decide(ctx.ReportedCount(o.fail_on == "confirmed"), completeness, o.allow_failed);
}

absl::StatusOr<RecheckFindings> CheckFindings(const ReportSettings& settings,
                                              const ProjectInputs& project,
                                              const catalog::Catalog& cat,
                                              const analysis::Analyzer& analyzer,
                                              const PuppetGraphInput* puppet_graph) {
  graph::GraphOptions graph_options;
  graph_options.observed_edges = ObservedAutorelations(analyzer, cat);
  if (puppet_graph != nullptr) {
    auto loaded = graph::LoadPuppetGraph(puppet_graph->text, puppet_graph->name, cat,
                                         graph_options.observed_edges);
    if (loaded.ok()) {
      graph_options = graph::PuppetGraphOptions(*loaded, std::move(graph_options.observed_edges));
    }
  }
  graph::DependencyGraph graph = graph::DependencyGraph::Build(cat, graph_options);
  checker::CheckOptions options = settings.check;
  options.default_ignores = !settings.no_default_ignores;
  options.max_evidence = settings.max_evidence;
  checker::ApplyProjectConfig(project.config, cat, &options);
  auto result = checker::Check(analyzer.result(), cat, graph, options);
  if (!result.ok()) return result.status();
  gating::Suppressions suppressions = gating::Suppress(
      *result, cat, project.config, project.baseline ? &*project.baseline : nullptr);
  RecheckFindings out;
  for (size_t i = 0; i < result->findings.size(); ++i) {
    out.counted.push_back(
        !suppressions.IsSuppressed(i) &&
        (settings.show_low || result->findings[i].confidence == checker::Confidence::kHigh));
  }
  out.result = std::move(*result);
  return out;
}

}  // namespace fsmove::pipeline
