// Golden findings on the real recorded fault fixtures: each trace under traces/ with an
// expected-findings.txt (written by hand from the fixture's EXPECTED.md: the Puppet truth,
// not tool output) must give exactly those findings, kind and resource pair, a low-confidence
// one (what only --all shows) with a fourth field `low`. A
// `check-options` file beside it may hold `--package-notify`. The same again against the
// graph Puppet built for that catalog (tests/data/puppet-graphs/NAME.expanded.dot), as
// `fsmove check` does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/strace/line_reader.h"

namespace fsmove::testing {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> FixtureTraces() {
  std::vector<std::string> names;
  fs::path dir = fs::path(FSMOVE_SOURCE_DIR) / "traces";
  if (!fs::exists(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (fs::exists(entry.path() / "expected-findings.txt")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::set<std::string> Lines(const fs::path& p) {
  std::ifstream f(p);
  std::set<std::string> out;
  std::string line;
  while (std::getline(f, line)) {
    if (!line.empty()) out.insert(line);
  }
  return out;
}

std::string ReadText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

class FindingsGoldenTest : public ::testing::TestWithParam<std::string> {
 protected:
  void CheckFindings(bool puppet_graph);
};

TEST_P(FindingsGoldenTest, MatchesThePuppetTruth) { CheckFindings(false); }

TEST_P(FindingsGoldenTest, MatchesThePuppetTruthWithPuppetsGraph) { CheckFindings(true); }

void FindingsGoldenTest::CheckFindings(bool puppet_graph) {
  fs::path dir = fs::path(FSMOVE_SOURCE_DIR) / "traces" / GetParam();
  auto cat = catalog::Catalog::LoadFile((dir / "catalog.json").string());
  ASSERT_TRUE(cat.ok()) << cat.status();
  auto reader = strace::LineReader::Open((dir / "trace.zst").string());
  ASSERT_TRUE(reader.ok()) << reader.status();
  analysis::Analyzer analyzer;
  ASSERT_TRUE(analyzer.Run(**reader).ok());
  graph::GraphOptions graph_options;
  if (puppet_graph) {
    const fs::path dot = fs::path(FSMOVE_SOURCE_DIR) / "tests" / "data" / "puppet-graphs" /
                         (GetParam() + ".expanded.dot");
    auto puppet = graph::LoadPuppetGraph(ReadText(dot), dot.string(), *cat);
    ASSERT_TRUE(puppet.ok()) << puppet.status();
    graph_options = graph::PuppetGraphOptions(*puppet);
  }
  graph::DependencyGraph graph = graph::DependencyGraph::Build(*cat, graph_options);

  checker::CheckOptions options;
  for (const std::string& opt : Lines(dir / "check-options")) {
    ASSERT_EQ(opt, "--package-notify") << "unknown option in check-options";
    options.package_notify = true;
  }
  auto result = checker::Check(analyzer.result(), *cat, graph, options);
  ASSERT_TRUE(result.ok()) << result.status();
  std::set<std::string> got;
  for (const checker::Finding& f : result->findings) {
    got.insert(std::string(checker::FaultKindName(f.kind)) + "\t" + cat->resource(f.source).ref +
               "\t" + cat->resource(f.target).ref +
               (f.confidence == checker::Confidence::kLow ? "\tlow" : ""));
    EXPECT_FALSE(f.evidence.empty());
    EXPECT_FALSE(f.fix.empty());
    for (const checker::PathEvidence& e : f.evidence) {  // evidence points into the trace
      EXPECT_GT(e.source.line, 0u);
      EXPECT_GT(e.target.line, 0u);
      EXPECT_LE(e.target.line, analyzer.stats().lines);
      EXPECT_NE(fstrace::SyscallName(e.source.syscall), "?");
      EXPECT_NE(fstrace::SyscallName(e.target.syscall), "?");
      EXPECT_EQ(e.source.block, f.source);
      EXPECT_EQ(e.target.block, f.target);
    }
  }
  EXPECT_EQ(got, Lines(dir / "expected-findings.txt"));
  EXPECT_TRUE(result->stats.unknown_blocks.empty()) << result->stats.unknown_blocks.front().ref;
}

INSTANTIATE_TEST_SUITE_P(Traces, FindingsGoldenTest, ::testing::ValuesIn(FixtureTraces()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

// The suite above passes vacuously when it finds no trace (a checkout without traces/, a
// renamed file): that is a failure of its own.
TEST(FindingsGoldenTestSuite, FindsTraces) {
  EXPECT_FALSE(FixtureTraces().empty())
      << "no trace under " << FSMOVE_SOURCE_DIR << "/traces has expected-findings.txt";
}

}  // namespace
}  // namespace fsmove::testing
