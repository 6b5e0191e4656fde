// Golden tests on the real recorded traces in traces/: every trace parses without unparsed
// lines, has as many resource blocks as Puppet printed begin markers, and gives the blocks,
// access map and relations checked in beside it (expected-*.txt, reviewed by hand; regenerate
// with tools/update-golden after a reviewed change).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/report/golden.h"
#include "fsmove/strace/line_reader.h"

namespace fsmove::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> TraceNames() {
  std::vector<std::string> names;
  fs::path dir = fs::path(FSMOVE_SOURCE_DIR) / "traces";
  if (!fs::exists(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (fs::exists(entry.path() / "trace.zst") &&
        fs::exists(entry.path() / "expected-relations.txt")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Whether "Info: " at `at` starts the text of a write/writev to stdout (after an optional
// colour escape), as Puppet's log lines do; quoted catalogs or reports merely contain it.
bool StartsWrittenText(std::string_view line, size_t at) {
  std::string_view before = line.substr(0, at);
  if (before.ends_with("m")) {  // strip \33[0;32m
    size_t esc = before.rfind("\\33[");
    if (esc != std::string_view::npos) before = before.substr(0, esc);
  }
  return before.ends_with("iov_base=\"") || before.ends_with("write(1, \"");
}

// Lines that hold a begin marker, counted without the parser: the unfinished form carries the
// text too, its resumed half does not.
uint64_t CountBeginMarkers(const fs::path& trace) {
  auto reader = strace::LineReader::Open(trace.string());
  EXPECT_TRUE(reader.ok());
  uint64_t n = 0;
  std::string_view line;
  while ((*reader)->Next(&line)) {
    size_t at = line.find("Info: ");
    if (at != std::string_view::npos && StartsWrittenText(line, at) &&
        line.find(": Starting to evaluate the resource") != std::string_view::npos) {
      ++n;
    }
  }
  return n;
}

class TraceGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TraceGoldenTest, MatchesExpected) {
  fs::path dir = fs::path(FSMOVE_SOURCE_DIR) / "traces" / GetParam();
  auto reader = strace::LineReader::Open((dir / "trace.zst").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  analysis::Analyzer analyzer;
  ASSERT_TRUE(analyzer.Run(**reader).ok());

  const analysis::TraceStats& stats = analyzer.stats();
  EXPECT_EQ(stats.unparsed_lines, 0u)
      << "first: line " << stats.unparsed_examples.front().line << " "
      << stats.unparsed_examples.front().reason << ": " << stats.unparsed_examples.front().text;
  EXPECT_GT(analyzer.interpreter().stats().markers_begin, 0u);
  EXPECT_EQ(analyzer.interpreter().stats().markers_begin, CountBeginMarkers(dir / "trace.zst"));
  EXPECT_EQ(analyzer.interpreter().stats().markers_begin,
            analyzer.interpreter().stats().markers_end);
  EXPECT_EQ(analyzer.interpreter().stats().markers_unbalanced, 0u);

  const analysis::BlockTable& blocks = analyzer.interpreter().blocks();
  EXPECT_EQ(report::BlocksText(blocks), ReadFile(dir / "expected-blocks.txt"));
  EXPECT_EQ(report::AccessMapText(analyzer), ReadFile(dir / "expected-accesses.txt"));
  EXPECT_EQ(report::RelationsText(analyzer.ComputeRelations(1000000), blocks),
            ReadFile(dir / "expected-relations.txt"));
}

INSTANTIATE_TEST_SUITE_P(Traces, TraceGoldenTest, ::testing::ValuesIn(TraceNames()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

// The suite above passes vacuously when it finds no trace (a checkout without traces/, a
// renamed file): that is a failure of its own.
TEST(TraceGoldenTestSuite, FindsTraces) {
  EXPECT_FALSE(TraceNames().empty()) << "no trace under " << FSMOVE_SOURCE_DIR
                                     << "/traces has trace.zst and expected-relations.txt";
}

}  // namespace
}  // namespace fsmove::testing
