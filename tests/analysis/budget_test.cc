// The host's budget in the analysis: past max_paths distinct paths, or max_inodes names in the
// inode table, the interpreter takes no more in (neither table grows), still follows processes,
// descriptors and blocks, and says which limit stopped it and where.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fsmove/analysis/interpreter.h"
#include "trace_harness.h"

namespace fsmove::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

const std::string kStatLoop = "Exec[stat loop]";
const std::string kF = "File[/etc/late]";

// `n` failed lookups of distinct paths inside Exec[stat loop]'s block, then File[/etc/late]
// writes its file.
std::vector<std::string> StatLoop(int n) {
  std::vector<std::string> calls;
  calls.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    calls.push_back("newfstatat(AT_FDCWD, \"/srv/d" + std::to_string(i / 10) + "/f" +
                    std::to_string(i) + "\", 0x7ffc3a1e2f30, 0) = -1 ENOENT (No such file)");
  }
  return Cat({Block(kStatLoop, calls), Block(kF, {"openat(AT_FDCWD, \"/etc/late\", "
                                                  "O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3",
                                                  "close(3) = 0"})});
}

analysis::AnalyzerOptions Limits(uint64_t paths, uint64_t inodes) {
  analysis::AnalyzerOptions o;
  o.interpreter.max_paths = paths;
  o.interpreter.max_inodes = inodes;
  return o;
}

TEST(BudgetTest, WithinTheLimitsNothingIsSaid) {
  Harness h(StatLoop(50), Limits(1000, 1000));
  EXPECT_FALSE(h.analyzer.interpreter().budget_hit());
  EXPECT_TRUE(h.analyzer.result().limits_hit.empty());
  EXPECT_THAT(h.At("/etc/late"), UnorderedElementsAre(Pair(kF, "produced")));
}

TEST(BudgetTest, PathsStopGrowingAtTheLimit) {
  Harness h(StatLoop(500), Limits(100, 1'000'000));
  const analysis::Interpreter& interp = h.analyzer.interpreter();
  EXPECT_EQ(interp.accesses().path_count(), 100u);
  ASSERT_TRUE(interp.budget_hit());
  EXPECT_EQ(interp.budget_hit()->limit, base::BudgetLimit::kPaths);
  EXPECT_EQ(interp.budget_hit()->value, 100u);
  // Line 1 is the block's marker: the 101st path is the 101st lookup, at line 102.
  EXPECT_EQ(interp.budget_hit()->where, "trace line 102");
  // Nothing after the limit, not even the later resource's write: the check is incomplete.
  EXPECT_TRUE(h.At("/etc/late").empty());
  EXPECT_GT(interp.stats().over_budget_constructs, 0u);
  // The blocks are still followed (their markers are no paths).
  EXPECT_EQ(interp.stats().markers_begin, 2u);
  EXPECT_EQ(interp.stats().markers_end, 2u);
  ASSERT_EQ(h.analyzer.result().limits_hit.size(), 1u);
  EXPECT_EQ(h.analyzer.result().limits_hit[0], *interp.budget_hit());
}

TEST(BudgetTest, InodesStopGrowingAtTheLimit) {
  // Each lookup adds its file's name (and every tenth a directory's): the table reaches 200
  // names long before 1,000 paths.
  Harness h(StatLoop(500), Limits(1'000'000, 200));
  const analysis::Interpreter& interp = h.analyzer.interpreter();
  ASSERT_TRUE(interp.budget_hit());
  EXPECT_EQ(interp.budget_hit()->limit, base::BudgetLimit::kInodes);
  EXPECT_EQ(interp.budget_hit()->value, 200u);
  // Checked before each call: at most one call's components past it.
  EXPECT_LE(interp.inodes().live_inodes(), 200u + 3);
  EXPECT_LT(interp.accesses().path_count(), 200u);
  EXPECT_TRUE(h.At("/etc/late").empty());
}

TEST(BudgetTest, KnownPathsAreStillRecordedAtThePathLimit) {
  // The limit is on distinct paths: a path already interned takes no room.
  std::vector<std::string> calls;
  for (int i = 0; i < 3; ++i) {
    calls.push_back("openat(AT_FDCWD, \"/etc/a" + std::to_string(i) + "\", O_RDONLY) = 3");
    calls.push_back("close(3) = 0");
  }
  Harness h(Block(kStatLoop, calls), Limits(3, 1'000'000));
  EXPECT_FALSE(h.analyzer.interpreter().budget_hit());
  EXPECT_EQ(h.analyzer.interpreter().accesses().path_count(), 3u);
}

TEST(BudgetTest, DescriptorsAndProcessesAreFollowedPastTheLimit) {
  // Past the limit a descriptor is still opened, inherited and closed: a process started then
  // is still charged to its block.
  std::vector<std::string> lines = StatLoop(20);
  lines.insert(lines.end() - 1, {"100 openat(AT_FDCWD, \"/etc/new\", O_RDONLY) = 7",
                                 "100 clone(child_stack=NULL, flags=SIGCHLD) = 300",
                                 "300 close(7) = 0", "300 +++ exited with 0 +++"});
  Harness h(lines, Limits(5, 1'000'000));
  ASSERT_TRUE(h.analyzer.interpreter().budget_hit());
  EXPECT_EQ(h.analyzer.stats().unparsed_lines, 0u);
  EXPECT_EQ(h.analyzer.interpreter().stats().markers_unbalanced, 0u);
}

TEST(BudgetTest, TheSentenceNamesTheLimitItsValueAndTheFlag) {
  base::BudgetHit paths{base::BudgetLimit::kPaths, 100000, "trace line 1234"};
  EXPECT_EQ(paths.Sentence(),
            "the analysis stopped at its limit of 100000 distinct paths (--max-paths) at trace "
            "line 1234: what the rest of the trace did is not analysed; raise it with "
            "--max-paths N (about 524 bytes of memory each)");
  base::BudgetHit inodes{base::BudgetLimit::kInodes, 200, ""};
  EXPECT_THAT(inodes.Sentence(), HasSubstr("limit of 200 names in its model of the file system "
                                           "(--max-inodes): "));
  EXPECT_THAT(inodes.Sentence(), HasSubstr("raise it with --max-inodes N"));
}

}  // namespace
}  // namespace fsmove::testing
