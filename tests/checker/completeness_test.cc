// Whether a check saw the whole apply, on hand-written catalogs and analyses (no strace text;
// how Puppet's messages are read is the strace layer's tests' job): resources
// that failed, were skipped or were never evaluated, and the run's own facts; and the verdict
// (exit code) the pipeline draws from it.
#include "fsmove/checker/completeness.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis_builder.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/pipeline/check_and_report.h"
#include "nlohmann/json.hpp"

namespace fsmove::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

catalog::Catalog ThreeResources() {
  nlohmann::json cat = {{"resources",
                         {{{"type", "Class"}, {"title", "main"}},
                          {{"type", "Exec"}, {"title", "fails"}},
                          {{"type", "File"}, {"title", "/etc/after"}},
                          {{"type", "File"}, {"title", "/etc/other"}}}},
                        {"edges", nlohmann::json::array()}};
  auto loaded = catalog::Catalog::LoadString(cat.dump(), "test.json");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return std::move(*loaded);
}

struct Assessed {
  checker::Completeness completeness;
  std::vector<std::string> gaps;  // "kind ref"
};

Assessed Assess(const AnalysisBuilder& analysis, const checker::ApplyFacts* run = nullptr) {
  catalog::Catalog cat = ThreeResources();
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  auto result = checker::Check(analysis.Result(), cat, g, {});
  EXPECT_TRUE(result.ok()) << result.status();
  Assessed a;
  a.completeness = checker::AssessCompleteness(analysis.Result(), cat, *result, run);
  for (const checker::ResourceGap& gap : a.completeness.gaps) {
    a.gaps.push_back(std::string(checker::GapKindName(gap.kind)) + " " + gap.ref);
  }
  return a;
}

// An apply that evaluated Class[Main] and then `refs`, each with an empty block.
AnalysisBuilder Evaluated(std::initializer_list<std::string_view> refs) {
  AnalysisBuilder run;
  run.Block("Class[Main]");
  for (std::string_view ref : refs) run.Block(ref);
  return run;
}

TEST(CompletenessTest, EveryResourceEvaluatedIsComplete) {
  Assessed a = Assess(Evaluated({"Exec[fails]", "File[/etc/after]", "File[/etc/other]"}));
  EXPECT_TRUE(a.completeness.complete());
  EXPECT_THAT(a.gaps, IsEmpty());
  EXPECT_EQ(a.completeness.evaluated, 4u);
  EXPECT_EQ(a.completeness.Summary(), "");
}

TEST(CompletenessTest, FailedSkippedAndNeverEvaluatedFromTheTrace) {
  // Exec[fails] fails, File[/etc/after] is skipped, and the apply stops before File[/etc/other].
  AnalysisBuilder run = Evaluated({"Exec[fails]", "File[/etc/after]"});
  run.Problem(strace::ProblemKind::kResourceFailed, "Exec[fails]",
              "change from 'notrun' to ['0'] failed: '/bin/false' returned 1 instead of one of "
              "[0]");
  run.Problem(strace::ProblemKind::kResourceSkipped, "File[/etc/after]",
              "Skipping because of failed dependencies");
  Assessed a = Assess(run);
  EXPECT_FALSE(a.completeness.complete());
  EXPECT_THAT(a.gaps, ElementsAre("failed Exec[fails]", "skipped File[/etc/after]",
                                  "not-evaluated File[/etc/other]"));
  EXPECT_THAT(a.completeness.gaps[0].message, HasSubstr("'/bin/false' returned 1"));
  EXPECT_THAT(a.completeness.gaps[1].evidence_lost, HasSubstr("block is empty"));
  EXPECT_THAT(a.completeness.gaps[2].evidence_lost, HasSubstr("no block"));
  EXPECT_EQ(a.completeness.Summary(),
            "1 resource failed, 1 skipped, 1 never evaluated (3 of 4 evaluated)");
}

TEST(CompletenessTest, TheRunsFactsAddToTheTrace) {
  // A resource that failed before its evaluation (its provider does not work here) is listed
  // once, as failed; puppet apply's exit code is a problem of the apply.
  checker::ApplyFacts run;
  run.exit_code = 1;
  run.failed.push_back({"File[/etc/other]", "Provider x is not functional on this host"});
  Assessed a = Assess(Evaluated({"Exec[fails]", "File[/etc/after]"}), &run);
  EXPECT_THAT(a.gaps, ElementsAre("failed File[/etc/other]"));
  EXPECT_THAT(a.completeness.apply_problems, ElementsAre("puppet apply exited with code 1"));
  run.failed.clear();
  run.exit_code = 0;
  run.unfinished = "timed out (--timeout) while applying the catalog";
  a = Assess(Evaluated({"Exec[fails]", "File[/etc/after]", "File[/etc/other]"}), &run);
  EXPECT_THAT(a.completeness.apply_problems,
              ElementsAre("the apply did not finish (timed out (--timeout) while applying the "
                          "catalog)"));
  // Stopped in a resource whose block never ended (a Service whose start never returns): it
  // is named, with where it began.
  AnalysisBuilder stuck = Evaluated({"Exec[fails]", "File[/etc/after]"});
  stuck.Unfinished("Service[powerman]");
  a = Assess(stuck, &run);
  EXPECT_THAT(a.completeness.apply_problems,
              ElementsAre("the apply did not finish (timed out (--timeout) while applying the "
                          "catalog) while Puppet was applying Service[powerman]: its block began "
                          "at trace line 4 and never ended"));
}

TEST(CompletenessTest, ACycleFoundAtApplyTime) {
  AnalysisBuilder nothing_evaluated;
  nothing_evaluated.Problem(strace::ProblemKind::kApplyFailed, "", "Found 1 dependency cycle:");
  Assessed a = Assess(nothing_evaluated);
  EXPECT_THAT(a.completeness.apply_problems, ElementsAre("Puppet: Found 1 dependency cycle:"));
  EXPECT_EQ(a.completeness.Count(checker::GapKind::kNotEvaluated), 4u);
}

TEST(VerdictTest, AnIncompleteCheckFailsWhateverItsFindingsUnlessAllowed) {
  checker::Completeness complete;
  checker::Completeness incomplete;
  incomplete.gaps.push_back({checker::GapKind::kSkipped, "File[/x]", std::nullopt, "", ""});
  using pipeline::Decide;
  using pipeline::Verdict;
  EXPECT_EQ(Decide(0, complete, false), Verdict::kClean);
  EXPECT_EQ(Decide(2, complete, false), Verdict::kFindings);
  EXPECT_EQ(Decide(0, incomplete, false), Verdict::kIncomplete);
  EXPECT_EQ(Decide(2, incomplete, false), Verdict::kIncomplete);
  // --allow-failed: today's behaviour, the findings alone.
  EXPECT_EQ(Decide(0, incomplete, true), Verdict::kClean);
  EXPECT_EQ(Decide(2, incomplete, true), Verdict::kFindings);
  checker::Completeness exited;
  exited.apply_problems.push_back("puppet apply exited with code 1");
  EXPECT_EQ(Decide(0, exited, false), Verdict::kIncomplete);
}

TEST(CompletenessTest, ALimitOfFsmovesOwnMakesItIncompleteWhateverPuppetDid) {
  // Everything evaluated, but the analysis stopped at its paths and the saved trace was cut.
  AnalysisBuilder run = Evaluated({"Exec[fails]", "File[/etc/after]", "File[/etc/other]"});
  analysis::AnalysisResult result = run.Result();
  result.limits_hit.push_back({base::BudgetLimit::kPaths, 100, "trace line 7"});
  catalog::Catalog cat = ThreeResources();
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  auto checked = checker::Check(result, cat, g, {});
  ASSERT_TRUE(checked.ok());
  checker::ApplyFacts facts;
  facts.limits_hit.push_back({base::BudgetLimit::kSavedTrace, 4096, "out.trace"});
  checker::Completeness c = checker::AssessCompleteness(result, cat, *checked, &facts);
  EXPECT_FALSE(c.complete());
  EXPECT_TRUE(c.apply_complete());
  ASSERT_EQ(c.limits_hit.size(), 2u);
  EXPECT_EQ(c.limits_hit[0].limit, base::BudgetLimit::kPaths);
  EXPECT_EQ(c.limits_hit[1].limit, base::BudgetLimit::kSavedTrace);
  EXPECT_THAT(c.Headline(), HasSubstr("fsmove reached a limit of its own: the analysis stopped "
                                      "at its limit of 100 distinct paths (--max-paths) at trace "
                                      "line 7"));
  EXPECT_THAT(c.Summary(), HasSubstr("; the saved trace out.trace stops at its limit of 4 KiB"));
  // --allow-failed judges Puppet's failures, not fsmove's limits.
  EXPECT_EQ(pipeline::Decide(0, c, true), pipeline::Verdict::kIncomplete);
  EXPECT_EQ(pipeline::Decide(2, c, false), pipeline::Verdict::kIncomplete);
}

}  // namespace
}  // namespace fsmove::testing
