// The ordered-the-other-way rule (src/checker/rules/ordered_the_other_way.cc): a pair the graph
// orders the other way would close a cycle.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::PairVerdict;

TEST(OrderedTheOtherWayRuleTest, DropsOnlyAPairOrderedTheOtherWay) {
  AnalysisBuilder run;
  run.Block("Exec[use]").Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("Exec[use]").Reads("/etc/app.conf");
  RuleHarness h({{"File", "/etc/app.conf", {{"require", "Exec[use]"}}}, {"Exec", "use"}}, run);
  EXPECT_EQ(
      h.Pair("ordered-the-other-way", checker::kOrderingPair, "File[/etc/app.conf]", "Exec[use]"),
      PairVerdict::kAgainstDeclaredOrder);
  EXPECT_EQ(
      h.Pair("ordered-the-other-way", checker::kOrderingPair, "Exec[use]", "File[/etc/app.conf]"),
      PairVerdict::kKeep);
  RuleHarness unordered({{"File", "/etc/app.conf"}, {"Exec", "use"}}, run);
  EXPECT_EQ(unordered.Pair("ordered-the-other-way", checker::kOrderingPair, "File[/etc/app.conf]",
                           "Exec[use]"),
            PairVerdict::kKeep);
}

}  // namespace
}  // namespace fsmove::testing
