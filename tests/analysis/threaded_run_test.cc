// The threaded reading (Analyzer::RunThreaded, and zstd decoded on its own thread) gives
// exactly what the one-thread Run gives: on every recorded trace under traces/ (stats,
// blocks, access map, relations and, where a catalog is beside it, findings), and on small
// inputs cut into tiny batches so that every line boundary falls at a batch boundary.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/analysis_report.h"
#include "fsmove/report/golden.h"
#include "fsmove/strace/line_reader.h"

namespace fsmove::testing {
namespace {

namespace fs = std::filesystem;

// Every recorded trace: traces/NAME/trace.zst and traces/real/NAME/trace.strace.zst (any
// depth), relative to traces/.
std::vector<std::string> RecordedTraces() {
  std::vector<std::string> out;
  const fs::path dir = fs::path(FSMOVE_SOURCE_DIR) / "traces";
  if (!fs::exists(dir)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && (name == "trace.zst" || name == "trace.strace.zst")) {
      out.push_back(fs::relative(entry.path(), dir).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Everything the analysis of a trace gives, as text: equal text, equal result.
std::string OutcomeText(const analysis::Analyzer& analyzer, const catalog::Catalog* cat) {
  nlohmann::json stats = report::StatsToJson(analyzer, report::StageSeconds{});
  stats.erase("peak_rss_kb");  // the process's, not the analysis's
  std::string out = stats.dump(1);
  const analysis::InterpreterStats& is = analyzer.interpreter().stats();
  for (uint64_t v : {is.constructs, is.unresolved_dirfd, is.unnamed_paths, is.symlink_loops,
                     is.learned_symlinks, is.orphan_processes, is.adopted_processes,
                     is.markers_begin, is.markers_end, is.markers_foreign, is.markers_unbalanced}) {
    out += " " + std::to_string(v);
  }
  out += "\n" + report::BlocksText(analyzer.interpreter().blocks());
  out += report::AccessMapText(analyzer);
  out += report::RelationsText(analyzer.ComputeRelations(1000000), analyzer.interpreter().blocks());
  for (const strace::AutoRelationMessage& r : analyzer.puppet_autorelations()) {
    out += r.ref + " " + r.other + "\n";
  }
  if (cat != nullptr) {
    graph::DependencyGraph graph = graph::DependencyGraph::Build(*cat, {});
    auto result = checker::Check(analyzer.result(), *cat, graph, {});
    EXPECT_TRUE(result.ok()) << result.status();
    if (result.ok()) {
      for (const checker::Finding& f : result->findings) {
        out += std::string(checker::FaultKindName(f.kind)) + " " + cat->resource(f.source).ref +
               " " + cat->resource(f.target).ref + "\n";
        for (const checker::PathEvidence& e : f.evidence) {
          out += "  " + e.path + " " + std::to_string(e.source.line) + " " +
                 std::to_string(e.target.line) + "\n";
        }
      }
    }
  }
  return out;
}

struct Analysis {
  std::string outcome;
  absl::Status status;
};

Analysis Analyse(const std::string& path, int threads, const analysis::PipelineOptions& pipeline,
                 const catalog::Catalog* cat) {
  strace::LineReaderOptions options;
  options.decompress_thread = threads >= 2;
  auto reader = strace::LineReader::Open(path, options);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return {};
  analysis::Analyzer analyzer;
  Analysis run;
  run.status = threads >= 2 ? analyzer.RunThreaded(**reader, pipeline) : analyzer.Run(**reader);
  run.outcome = OutcomeText(analyzer, cat);
  return run;
}

TEST(ThreadedRunTest, FindsTheRecordedTraces) {
  // A moved traces/ directory must fail this suite, not make it pass vacuously.
  EXPECT_GE(RecordedTraces().size(), 20u);
}

class ThreadedRunTraceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ThreadedRunTraceTest, SameResultAsOneThread) {
  const fs::path path = fs::path(FSMOVE_SOURCE_DIR) / "traces" / GetParam();
  std::optional<catalog::Catalog> cat;
  if (fs::exists(path.parent_path() / "catalog.json")) {
    auto loaded = catalog::Catalog::LoadFile((path.parent_path() / "catalog.json").string());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    cat.emplace(std::move(*loaded));
  }
  const catalog::Catalog* c = cat ? &*cat : nullptr;
  Analysis one = Analyse(path.string(), 1, {}, c);
  ASSERT_TRUE(one.status.ok()) << one.status;
  Analysis two = Analyse(path.string(), 2, {}, c);
  ASSERT_TRUE(two.status.ok()) << two.status;
  EXPECT_GT(one.outcome.size(), 1000u);
  // Compared without printing megabytes on a failure: the first difference is enough.
  if (one.outcome != two.outcome) {
    auto [a, b] = std::mismatch(one.outcome.begin(), one.outcome.end(), two.outcome.begin(),
                                two.outcome.end());
    const size_t at = static_cast<size_t>(a - one.outcome.begin());
    const size_t from = at > 200 ? at - 200 : 0;
    ADD_FAILURE() << "threaded result differs at byte " << at
                  << ":\none thread: " << one.outcome.substr(from, 400)
                  << "\ntwo threads: " << two.outcome.substr(from, 400);
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, ThreadedRunTraceTest, ::testing::ValuesIn(RecordedTraces()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ThreadedRunTraceTest);

// A small trace with every kind of line, cut over-long lines, an unfinished/resumed pair
// across batches and no final newline.
std::string SmallTrace() {
  std::string t;
  t += "100 execve(\"/usr/bin/puppet\", [\"puppet\"], 0x7ffc /* 6 vars */) = 0\n";
  t += "100 writev(1, [{iov_base=\"\\33[0;32mInfo: /Stage[main]/Main/File[/tmp/a]: Starting to "
       "evaluate the resource (1 of 2)\\33[0m\", iov_len=99}, {iov_base=\"\\n\", iov_len=1}], 2) "
       "= 100\n";
  t += "100 openat(AT_FDCWD, \"/tmp/a\", O_WRONLY|O_CREAT|O_TRUNC, 0644 <unfinished ...>\n";
  t += "101 readlink(\"/usr\", 0x7ffc, 4096) = -1 EINVAL (Invalid argument)\n";
  t += "100 <... openat resumed>) = 3\n";
  t += "100 close(3) = 0\n";
  t += "\n";
  t += "garbage line\n";
  t += "100 openat(AT_FDCWD, \"/tmp/" + std::string(300, 'x') + "\", O_RDONLY) = 3\n";
  t += "100 stat(\"/tmp/b\"\n";  // cut short
  t += "--- SIGCHLD {si_signo=SIGCHLD} ---\n";
  t += "100 writev(1, [{iov_base=\"\\33[0;32mInfo: /Stage[main]/Main/File[/tmp/a]: Evaluated in "
       "0.01 seconds\\33[0m\", iov_len=80}, {iov_base=\"\\n\", iov_len=1}], 2) = 81\n";
  t += "101 +++ exited with 0 +++\n";
  t += "100 unlink(\"/tmp/a\") = 0";  // no newline
  return t;
}

TEST(ThreadedRunTest, TinyBatchesAndCutLines) {
  strace::LineReaderOptions reader_options;
  reader_options.max_line_bytes = 200;  // the 300-x line is cut
  reader_options.initial_buffer_bytes = 64;
  auto outcome = [&](int threads, size_t batch_bytes, size_t max_lines) {
    auto reader = strace::LineReader::FromString(SmallTrace(), reader_options);
    analysis::Analyzer analyzer;
    analysis::PipelineOptions pipeline;
    pipeline.batch.target_bytes = batch_bytes;
    pipeline.batch.max_lines = max_lines;
    pipeline.ring_slots = 2;
    absl::Status st =
        threads >= 2 ? analyzer.RunThreaded(*reader, pipeline) : analyzer.Run(*reader);
    EXPECT_TRUE(st.ok()) << st;
    EXPECT_EQ(analyzer.stats().cut_lines, 1u);
    EXPECT_TRUE(analyzer.stats().unterminated_last_line);
    return OutcomeText(analyzer, nullptr);
  };
  const std::string one = outcome(1, 0, 0);
  EXPECT_NE(one.find("cut, not analysed"), std::string::npos);
  for (size_t bytes : {size_t{1}, size_t{50}, size_t{300}, size_t{1} << 20}) {
    for (size_t lines : {size_t{1}, size_t{2}, size_t{3}, size_t{8192}}) {
      EXPECT_EQ(outcome(2, bytes, lines), one) << "batch bytes " << bytes << ", lines " << lines;
    }
  }
}

TEST(ThreadedRunTest, ZstdDecodedOnItsOwnThreadReadsTheSameBytes) {
  const fs::path path = fs::path(FSMOVE_SOURCE_DIR) / "traces" / RecordedTraces().front();
  auto lines = [&](bool thread) {
    strace::LineReaderOptions options;
    options.decompress_thread = thread;
    auto reader = strace::LineReader::Open(path.string(), options);
    EXPECT_TRUE(reader.ok());
    uint64_t sum = 0;
    std::string_view line;
    while ((*reader)->Next(&line)) {
      for (char ch : line) sum = sum * 31 + static_cast<unsigned char>(ch);
    }
    EXPECT_TRUE((*reader)->status().ok());
    return std::make_pair((*reader)->line_number(), sum);
  };
  EXPECT_EQ(lines(true), lines(false));
}

TEST(ThreadedRunTest, ZstdDecoderThreadStopsWhenTheReaderIsDropped) {
  const fs::path path = fs::path(FSMOVE_SOURCE_DIR) / "traces" / RecordedTraces().front();
  strace::LineReaderOptions options;
  options.decompress_thread = true;
  auto reader = strace::LineReader::Open(path.string(), options);
  ASSERT_TRUE(reader.ok());
  std::string_view line;
  ASSERT_TRUE((*reader)->Next(&line));
  reader->reset();  // joins the decoder thread, which waits on a full ring
}

TEST(ThreadedRunTest, CorruptZstdIsAnErrorOnBothPaths) {
  std::string bytes = "\x28\xB5\x2F\xFD";
  bytes += std::string(64, '\x07');
  for (int threads : {1, 2}) {
    strace::LineReaderOptions options;
    options.decompress_thread = threads >= 2;
    auto reader = strace::LineReader::FromString(bytes, options);
    analysis::Analyzer analyzer;
    absl::Status st = threads >= 2 ? analyzer.RunThreaded(*reader) : analyzer.Run(*reader);
    EXPECT_FALSE(st.ok()) << threads;
    EXPECT_NE(st.message().find("zstd"), std::string::npos) << st;
  }
}

}  // namespace
}  // namespace fsmove::testing
