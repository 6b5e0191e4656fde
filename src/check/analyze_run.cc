// `fsmove analyze` as a library; see analyze_run.h.
#include "fsmove/check/analyze_run.h"

#include <fcntl.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/base/heap.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/seconds.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/fix_scope.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/report/analysis_report.h"
#include "fsmove/report/json_output.h"
#include "fsmove/strace/line_reader.h"

namespace fsmove::check {
namespace {

// An output that is one of the inputs would replace it with the report: refused up front.
absl::Status OutputsClobberInputs(const AnalyzeRequest& r, const pipeline::ReportSettings& report) {
  const std::string* inputs[] = {&r.trace, &r.catalog, &r.puppet_graph, &r.config, &r.baseline};
  for (const std::string* out : report.OutputFiles()) {
    if (out->empty()) continue;
    for (const std::string* in : inputs) {
      std::error_code ec;
      if (!in->empty() && *in != "-" && std::filesystem::equivalent(*out, *in, ec)) {
        return absl::InvalidArgumentError(absl::StrCat(
            *out, " is also an input (", *in, "): writing the report there would replace it"));
      }
    }
  }
  return absl::OkStatus();
}

// Every report file can be written (checked before a long analysis).
absl::Status OutputsWritable(const pipeline::ReportSettings& report) {
  for (const std::string* out : report.OutputFiles()) {
    if (absl::Status st = out->empty() ? absl::OkStatus() : base::CheckWritable(*out); !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

// --puppet-graph, read up front (its mapping onto the catalog comes later). The user named
// this file: a symlink to it is fine (not so for the graph `fsmove check` reads from the
// sandbox's work directory).
absl::StatusOr<std::optional<pipeline::PuppetGraphInput>> PuppetGraphOption(const AnalyzeRequest& r,
                                                                            bool have_catalog) {
  if (r.puppet_graph.empty()) return std::nullopt;
  if (!have_catalog) {
    return absl::InvalidArgumentError(
        "--puppet-graph needs --catalog (the catalog Puppet applied)");
  }
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(r.puppet_graph, ec);
  auto text = graph::ReadPuppetGraphFile(AT_FDCWD, ec ? r.puppet_graph : real.string());
  if (!text.ok()) return text.status();
  return pipeline::PuppetGraphInput{r.puppet_graph, std::move(*text), true};
}

// What an analysis's model usually needs at most (a 200 MB trace: 15 MB): reserved in huge pages
// (see base/heap.h); a larger model grows past it in ordinary pages.
constexpr size_t kHeapReserveBytes = size_t{64} << 20;

// Without a catalog: the relations the trace shows, as JSON or text.
Outcome ReportRelations(const analysis::Analyzer& analyzer, const std::string& name,
                        const pipeline::ReportSettings& report, report::StageSeconds seconds,
                        Sink& sink) {
  base::ReportDestination dest;
  if (absl::Status st = dest.Open(report.output, &sink.out()); !st.ok()) return Fail(st, sink);
  std::ostream& out = dest.stream();
  auto t = std::chrono::steady_clock::now();
  analysis::Relations relations = analyzer.ComputeRelations(report.max_evidence);
  seconds.relations = base::SecondsSince(t);
  if (report.format == "json") {
    nlohmann::json j;
    j["tool"] = {{"name", "fsmove"}, {"version", FSMOVE_VERSION}};
    j["trace"] = name;
    j["stats"] = report::StatsToJson(analyzer, seconds);
    j["relations"] = report::RelationsToJson(relations, analyzer.interpreter().blocks());
    out << report::DumpJson(j) << "\n";
  } else {
    report::WriteAnalysisText(out, name, analyzer, relations);
  }
  if (absl::Status st = dest.Close(); !st.ok()) {
    // Standard output that cannot be written has nowhere to say so.
    if (report.output.empty()) return Outcome{std::nullopt, kExitError};
    return Fail(st, sink);
  }
  // The relations cover only what was analysed before a limit of fsmove's own.
  if (const auto& hit = analyzer.interpreter().budget_hit()) {
    sink.Say(Warning(hit->Sentence()));
    return Outcome{std::nullopt, kExitIncomplete};
  }
  return Outcome{};
}

}  // namespace

Outcome Analyze(const AnalyzeRequest& r, const pipeline::ReportSettings& report, Sink& sink) {
  // Before the reader's thread starts and before the catalog is read: the model's memory.
  base::UseHugePageHeap(kHeapReserveBytes);
  if (absl::Status st = OutputsClobberInputs(r, report); !st.ok()) return Fail(st, sink);
  if (absl::Status st = OutputsWritable(report); !st.ok()) return Fail(st, sink);
  strace::LineReaderOptions reader_options;
  reader_options.on_fifo_wait = [&sink](const std::string& path) {
    sink.Say(Note(absl::StrCat(path, " is a FIFO: waiting for a writer")));
  };
  reader_options.decompress_thread = r.threads >= 2;
  auto reader = strace::LineReader::Open(r.trace, reader_options);
  if (!reader.ok()) {
    sink.Say(Error(absl::StrCat("cannot read trace ", reader.status().message())));
    return Outcome{std::nullopt, kExitError};
  }
  // The catalog is read first: a bad one is reported before a long trace is analysed.
  std::optional<catalog::Catalog> cat;
  double catalog_seconds = 0;
  if (!r.catalog.empty()) {
    auto t = std::chrono::steady_clock::now();
    catalog::LoadOptions load;
    load.max_bytes = r.budget.catalog_bytes;
    load.max_values = r.budget.catalog_values;
    auto loaded = catalog::Catalog::LoadFile(r.catalog, load);
    if (absl::IsResourceExhausted(loaded.status())) {
      // fsmove's own limit, not a bad catalog: the check is incomplete (nothing was checked).
      sink.Say(Error(std::string(loaded.status().message())));
      return Outcome{std::nullopt, kExitIncomplete};
    }
    if (!loaded.ok()) return Fail(loaded.status(), sink);
    cat.emplace(std::move(*loaded));
    sink.Say(CatalogWarnings(*cat));
    catalog_seconds = base::SecondsSince(t);
  }
  // So are the project's configuration and baseline, which only a check uses.
  pipeline::ProjectInputs project;
  if (cat) {
    auto loaded = pipeline::LoadProjectInputs(r.config, r.project_dir, r.baseline);
    if (!loaded.ok()) return Fail(loaded.status(), sink);
    project = std::move(*loaded);
  }
  auto puppet_graph = PuppetGraphOption(r, cat.has_value());
  if (!puppet_graph.ok()) return Fail(puppet_graph.status(), sink);
  analysis::AnalyzerOptions options;
  options.interpreter.initial_cwd = r.initial_cwd;
  if (r.no_merged_usr) options.interpreter.root_symlinks.clear();
  options.interpreter.max_paths = r.budget.paths;
  options.interpreter.max_inodes = r.budget.inodes;
  analysis::Analyzer analyzer(options);
  auto t0 = std::chrono::steady_clock::now();
  absl::Status st = r.threads >= 2 ? analyzer.RunThreaded(**reader) : analyzer.Run(**reader);
  report::StageSeconds seconds;
  seconds.analysis = base::SecondsSince(t0);
  if (!st.ok()) {
    const uint64_t read = (*reader)->line_number();
    sink.Say(
        Error(absl::StrCat(st.message(), read == 0 ? std::string(" (before its first line)")
                                                   : absl::StrCat(" (after line ", read, ")"))));
    return Outcome{std::nullopt, kExitError};
  }
  const std::string name = (*reader)->name();
  // The reader's buffers (and a .zst decoder's window and ring) go back to the heap before the
  // check, whose own allocations then reuse them instead of raising the peak RSS above both.
  reader->reset();
  if (int status = TraceWarnings(report.strict, analyzer, name, /*run_finished=*/true, sink);
      status != kExitOk) {
    return Outcome{std::nullopt, status};
  }
  if (!cat) return ReportRelations(analyzer, name, report, seconds, sink);
  report::FindingsContext ctx;
  ctx.trace_name = name;
  ctx.analyzer = &analyzer;
  ctx.seconds.parse_interpret = seconds.analysis;
  ctx.seconds.catalog_and_graph = catalog_seconds;
  ctx.seconds.catalog_load = catalog_seconds;
  pipeline::ReportSettings settings = report;
  // The code under --source-root: where fixes go and `# fsmove:ignore` comments are read.
  settings.fix.scope = AnalyzeFixScope(settings.source_root, *cat);
  return ReportFindings(settings, project, *cat, ctx, sink,
                        *puppet_graph ? &**puppet_graph : nullptr);
}

}  // namespace fsmove::check
