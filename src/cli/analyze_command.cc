// `fsmove analyze`: parse and interpret a recorded trace offline and report what it found.
#include <fcntl.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "budget_options.h"
#include "commands.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/base/heap.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/seconds.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/check_run.h"
#include "fsmove/check/fix_scope.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/report/analysis_report.h"
#include "fsmove/report/json_output.h"
#include "fsmove/strace/line_reader.h"
#include "report_options.h"

namespace fsmove::cli {
namespace {

// Two threads (one reads, the caller's interprets, and both split lines into calls) when the
// machine has two CPUs; more would not help, interpreting is one thread's work.
int DefaultThreads() { return std::thread::hardware_concurrency() >= 2 ? 2 : 1; }

struct AnalyzeOptions {
  std::string trace;
  std::string catalog;
  std::string initial_cwd;
  bool no_merged_usr = false;
  std::string puppet_graph;
  int threads = DefaultThreads();
  ReportOptions report;
  BudgetFlags budget;
};

// An output that is one of the inputs would replace it with the report: refused up front.
bool OutputsClobberInputs(const AnalyzeOptions& o) {
  const std::string* inputs[] = {&o.trace, &o.catalog, &o.puppet_graph, &o.report.config,
                                 &o.report.baseline};
  for (const std::string* out : o.report.OutputFiles()) {
    if (out->empty()) continue;
    for (const std::string* in : inputs) {
      std::error_code ec;
      if (!in->empty() && in != out && *in != "-" && std::filesystem::equivalent(*out, *in, ec)) {
        Say({check::Error(absl::StrCat(*out, " is also an input (", *in,
                                       "): writing the report there would replace it"))});
        return true;
      }
    }
  }
  return false;
}

// Every report file can be written (checked before a long analysis); false after saying why.
bool OutputsWritable(const AnalyzeOptions& o) {
  for (const std::string* out : o.report.OutputFiles()) {
    if (absl::Status st = out->empty() ? absl::OkStatus() : base::CheckWritable(*out); !st.ok()) {
      SayError(st);
      return false;
    }
  }
  return true;
}

// --puppet-graph, read up front (its mapping onto the catalog comes later). The user named
// this file: a symlink to it is fine (not so for the graph `fsmove check` reads from the
// sandbox's work directory).
absl::StatusOr<std::optional<pipeline::PuppetGraphInput>> PuppetGraphOption(const AnalyzeOptions& o,
                                                                            bool have_catalog) {
  if (o.puppet_graph.empty()) return std::nullopt;
  if (!have_catalog) {
    return absl::InvalidArgumentError(
        "--puppet-graph needs --catalog (the catalog Puppet applied)");
  }
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(o.puppet_graph, ec);
  auto text = graph::ReadPuppetGraphFile(AT_FDCWD, ec ? o.puppet_graph : real.string());
  if (!text.ok()) return text.status();
  return pipeline::PuppetGraphInput{o.puppet_graph, std::move(*text), true};
}

// What an analysis's model usually needs at most (a 200 MB trace: 15 MB): reserved in huge pages
// (see base/heap.h); a larger model grows past it in ordinary pages.
constexpr size_t kHeapReserveBytes = size_t{64} << 20;

int RunAnalyze(const AnalyzeOptions& o) {
  // Before the reader's thread starts and before the catalog is read: the model's memory.
  base::UseHugePageHeap(kHeapReserveBytes);
  double catalog_seconds = 0;
  if (OutputsClobberInputs(o) || !OutputsWritable(o)) return kExitError;
  strace::LineReaderOptions reader_options;
  reader_options.on_fifo_wait = [](const std::string& path) {
    Say({check::Note(absl::StrCat(path, " is a FIFO: waiting for a writer"))});
  };
  reader_options.decompress_thread = o.threads >= 2;
  auto reader = strace::LineReader::Open(o.trace, reader_options);
  if (!reader.ok()) {
    Say({check::Error(absl::StrCat("cannot read trace ", reader.status().message()))});
    return kExitError;
  }
  absl::StatusOr<base::HostBudget> budget = BudgetFromFlags(o.budget);
  if (!budget.ok()) return Fail(budget.status());
  // The catalog is read first: a bad one is reported before a long trace is analysed.
  std::optional<catalog::Catalog> cat;
  if (!o.catalog.empty()) {
    auto t = std::chrono::steady_clock::now();
    catalog::LoadOptions load;
    load.max_bytes = budget->catalog_bytes;
    load.max_values = budget->catalog_values;
    auto loaded = catalog::Catalog::LoadFile(o.catalog, load);
    if (absl::IsResourceExhausted(loaded.status())) {
      // fsmove's own limit, not a bad catalog: the check is incomplete (nothing was checked).
      SayError(loaded.status());
      return kExitIncomplete;
    }
    if (!loaded.ok()) {
      return Fail(loaded.status());
    }
    cat.emplace(std::move(*loaded));
    Say(check::CatalogWarnings(*cat));
    catalog_seconds = base::SecondsSince(t);
  }
  // So are the project's configuration and baseline, which only a check uses.
  pipeline::ProjectInputs project;
  if (cat) {
    auto loaded =
        pipeline::LoadProjectInputs(o.report.config, o.report.project_dir, o.report.baseline);
    if (!loaded.ok()) return Fail(loaded.status());
    project = std::move(*loaded);
  }
  auto puppet_graph = PuppetGraphOption(o, cat.has_value());
  if (!puppet_graph.ok()) return Fail(puppet_graph.status());
  analysis::AnalyzerOptions options;
  options.interpreter.initial_cwd = o.initial_cwd;
  if (o.no_merged_usr) options.interpreter.root_symlinks.clear();
  options.interpreter.max_paths = budget->paths;
  options.interpreter.max_inodes = budget->inodes;
  analysis::Analyzer analyzer(options);
  auto t0 = std::chrono::steady_clock::now();
  absl::Status st = o.threads >= 2 ? analyzer.RunThreaded(**reader) : analyzer.Run(**reader);
  report::StageSeconds seconds;
  seconds.analysis = base::SecondsSince(t0);
  if (!st.ok()) {
    const uint64_t read = (*reader)->line_number();
    Say({check::Error(
        absl::StrCat(st.message(), (read == 0 ? std::string(" (before its first line)")
                                              : " (after line " + std::to_string(read) + ")")))});
    return kExitError;
  }
  const std::string name = (*reader)->name();
  TerminalSink sink;
  int status = check::TraceWarnings(o.report.strict, analyzer, name, /*run_finished=*/true, sink);
  if (status != kExitOk) return status;

  if (cat) {
    report::FindingsContext ctx;
    ctx.trace_name = name;
    ctx.analyzer = &analyzer;
    ctx.seconds.parse_interpret = seconds.analysis;
    ctx.seconds.catalog_and_graph = catalog_seconds;
    ctx.seconds.catalog_load = catalog_seconds;
    ReportOptions report = o.report;
    if (report.fixes_wanted()) report.fix.scope = check::AnalyzeFixScope(report.source_root, *cat);
    return check::ReportFindings(report, project, *cat, ctx, sink,
                                 *puppet_graph ? &**puppet_graph : nullptr)
        .exit_code;
  }

  ReportOutput file;
  std::ostream* out = file.Open(o.report.output);
  if (out == nullptr) return kExitError;
  auto t1 = std::chrono::steady_clock::now();
  analysis::Relations relations = analyzer.ComputeRelations(o.report.max_evidence);
  seconds.relations = base::SecondsSince(t1);

  if (o.report.format == "json") {
    nlohmann::json j;
    j["tool"] = {{"name", "fsmove"}, {"version", FSMOVE_VERSION}};
    j["trace"] = name;
    j["stats"] = report::StatsToJson(analyzer, seconds);
    j["relations"] = report::RelationsToJson(relations, analyzer.interpreter().blocks());
    *out << report::DumpJson(j) << "\n";
  } else {
    report::WriteAnalysisText(*out, name, analyzer, relations);
  }
  if (!file.Close()) return kExitError;
  // The relations cover only what was analysed before a limit of fsmove's own.
  if (const auto& hit = analyzer.interpreter().budget_hit()) {
    Say({check::Warning(hit->Sentence())});
    return kExitIncomplete;
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
  cmd->add_option("--initial-cwd", o->initial_cwd,
                  "working directory of the traced command, if known");
  cmd->add_flag("--no-merged-usr", o->no_merged_usr,
                "the traced machine's /bin, /sbin and /lib* are directories of their own (before "
                "merged /usr: Debian 11 and older); by default they are links into /usr");
  cmd->add_option("--puppet-graph", o->puppet_graph,
                  "check against the graph Puppet applied (expanded_relationships.dot from "
                  "`puppet apply --graph`, or `fsmove check --save-graph`) instead of fsmove's "
                  "model of the catalog")
      ->type_name("FILE");
  cmd->add_option("--threads", o->threads,
                  "1: read and interpret the trace on one thread; 2: read on a second thread, "
                  "both splitting lines (and decompress a .zst input on a third); more counts "
                  "as 2")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  AddReportOptions(cmd, &o->report);
  AddBudgetOptions(cmd, &o->budget, BudgetScope::kAnalyze);
  return [o] { return RunAnalyze(*o); };
}

}  // namespace fsmove::cli
