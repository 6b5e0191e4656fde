// Fuzzes the whole offline pipeline on a trace: lines -> CallAssembler -> markers and lowering
// -> interpreter -> access map -> relations -> checker against a real catalog -> every report
// (analysis text and JSON, findings text and JSON, golden text forms).
//
// Input: strace text. A first line `#catalog NAME` checks it against traces/NAME/catalog.json
// (tools/fuzz's seeds carry the name of the trace they were cut from); without it, the first
// recorded catalog is used. Invariants: every line is counted, relations and findings name
// blocks and resources that exist, and the reports can be written.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/analysis_report.h"
#include "fsmove/report/findings_report.h"
#include "fsmove/report/golden.h"
#include "fsmove/report/json_output.h"
#include "fuzz_support.h"

namespace fsmove::fuzz {
namespace {

struct CheckedCatalog {
  std::unique_ptr<catalog::Catalog> catalog;  // the graph points to it: never moves
  std::optional<graph::DependencyGraph> graph;
};

// Every recorded catalog, by trace name, with its graph built once.
const std::map<std::string, std::unique_ptr<CheckedCatalog>, std::less<>>& Catalogs() {
  static const auto* catalogs = [] {
    auto* out = new std::map<std::string, std::unique_ptr<CheckedCatalog>, std::less<>>();
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(FSMOVE_SOURCE_DIR) + "/traces")) {
      std::filesystem::path file = entry.path() / "catalog.json";
      if (!std::filesystem::exists(file)) continue;
      auto loaded = catalog::Catalog::LoadFile(file.string());
      FSMOVE_FUZZ_CHECK(loaded.ok());
      auto checked = std::make_unique<CheckedCatalog>();
      checked->catalog = std::make_unique<catalog::Catalog>(std::move(*loaded));
      checked->graph.emplace(graph::DependencyGraph::Build(*checked->catalog));
      out->emplace(entry.path().filename().string(), std::move(checked));
    }
    FSMOVE_FUZZ_CHECK(!out->empty());
    return out;
  }();
  return *catalogs;
}

const CheckedCatalog& ChooseCatalog(std::string_view* text) {
  const auto& catalogs = Catalogs();
  constexpr std::string_view kHeader = "#catalog ";
  if (text->starts_with(kHeader)) {
    size_t nl = text->find('\n');
    std::string_view name = text->substr(kHeader.size(), nl - std::min(nl, kHeader.size()));
    text->remove_prefix(nl == std::string_view::npos ? text->size() : nl + 1);
    if (auto it = catalogs.find(name); it != catalogs.end()) return *it->second;
  }
  return *catalogs.begin()->second;
}

void CheckRelations(const analysis::Relations& relations, const analysis::BlockTable& blocks) {
  for (const auto* list : {&relations.ordering, &relations.notification, &relations.write_write}) {
    for (const analysis::Relation& r : *list) {
      FSMOVE_FUZZ_CHECK(r.first < blocks.size() && r.second < blocks.size());
      FSMOVE_FUZZ_CHECK(r.first != r.second);
      FSMOVE_FUZZ_CHECK(r.evidence.size() <= r.evidence_total);
    }
  }
}

// What a reading of the bytes counts: the one-thread Run and the two-thread RunThreaded must
// agree. Small buffers, batches and rings, chosen from the input's size, put line and batch
// boundaries everywhere, so that runs of whole lines, cut lines and the last line are split
// by either thread.
auto ReadingCounts(std::string_view text, int threads) {
  strace::LineReaderOptions reader_options;
  reader_options.initial_buffer_bytes = 64 + text.size() % 509;
  reader_options.max_line_bytes = 256 + text.size() % 1021;
  auto reader = strace::LineReader::FromString(std::string(text), reader_options);
  analysis::Analyzer analyzer;
  analysis::PipelineOptions pipeline;
  pipeline.batch.target_bytes = 1 + text.size() % 701;
  pipeline.batch.max_lines = 1 + text.size() % 5;
  pipeline.ring_slots = 2 + text.size() % 3;
  const absl::Status status =
      threads >= 2 ? analyzer.RunThreaded(*reader, pipeline) : analyzer.Run(*reader);
  const analysis::TraceStats& s = analyzer.stats();
  return std::make_tuple(status.ok(), s.lines, s.bytes, s.calls, s.unparsed_lines, s.cut_lines,
                         s.unterminated_last_line, s.modelled_calls, s.lowered_calls,
                         s.skipped_outside_blocks, analyzer.interpreter().blocks().size(),
                         analyzer.interpreter().accesses().path_count());
}

}  // namespace
}  // namespace fsmove::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fsmove::fuzz::Catalogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fsmove;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const fuzz::CheckedCatalog& checked = fuzz::ChooseCatalog(&text);

  FSMOVE_FUZZ_CHECK(fuzz::ReadingCounts(text, 1) == fuzz::ReadingCounts(text, 2));

  analysis::Analyzer analyzer;
  uint64_t lines = 0;
  fuzz::ForEachLine(text, [&](std::string_view line) { analyzer.FeedLine(line, ++lines); });
  analyzer.Finish();
  const analysis::TraceStats& stats = analyzer.stats();
  FSMOVE_FUZZ_CHECK(stats.lines == lines);
  FSMOVE_FUZZ_CHECK(stats.unparsed_examples.size() <= stats.unparsed_lines);
  for (const analysis::UnparsedLine& u : stats.unparsed_examples) {
    FSMOVE_FUZZ_CHECK(u.line >= 1 && u.line <= lines && !u.reason.empty());
  }

  const analysis::BlockTable& blocks = analyzer.interpreter().blocks();
  analysis::Relations relations = analyzer.ComputeRelations(8);
  fuzz::CheckRelations(relations, blocks);
  std::ostringstream out;
  report::WriteAnalysisText(out, "fuzz", analyzer, relations);
  report::DumpJson(report::StatsToJson(analyzer, {}));
  report::DumpJson(report::RelationsToJson(relations, blocks));
  report::AccessMapText(analyzer);
  report::RelationsText(relations, blocks);
  report::BlocksText(blocks);

  checker::CheckOptions options;
  options.max_evidence = 4;
  auto result = checker::Check(analyzer.result(), *checked.catalog, *checked.graph, options);
  if (!result.ok()) return 0;
  for (const checker::Finding& f : result->findings) {
    FSMOVE_FUZZ_CHECK(f.source < checked.catalog->size() && f.target < checked.catalog->size());
    FSMOVE_FUZZ_CHECK(f.source != f.target);
    FSMOVE_FUZZ_CHECK(!f.evidence.empty() && f.evidence.size() <= f.evidence_total);
    FSMOVE_FUZZ_CHECK(!f.fix.empty());
  }
  report::FindingsContext ctx;
  ctx.trace_name = "fuzz";
  ctx.analyzer = &analyzer;
  ctx.catalog = checked.catalog.get();
  ctx.graph = &*checked.graph;
  ctx.result = &*result;
  report::WriteFindingsText(out, ctx);
  report::DumpJson(report::FindingsToJson(ctx));
  return 0;
}
