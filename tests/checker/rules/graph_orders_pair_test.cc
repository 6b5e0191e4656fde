// The graph-orders-pair rule (src/checker/rules/graph_orders_pair.cc): what the graph already
// orders is no finding.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::PairVerdict;

TEST(GraphOrdersPairRuleTest, OrderedOneWayForAnOrderingEitherWayForWriters) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("Exec[use]").Reads("/etc/app.conf");
  RuleHarness h({{"File", "/etc/app.conf", {{"before", "Exec[use]"}}}, {"Exec", "use"}}, run);
  EXPECT_EQ(h.Pair("graph-orders-pair", checker::kOrderingPair, "File[/etc/app.conf]", "Exec[use]"),
            PairVerdict::kGuaranteed);
  EXPECT_EQ(h.Pair("graph-orders-pair", checker::kOrderingPair, "Exec[use]", "File[/etc/app.conf]"),
            PairVerdict::kKeep);
  EXPECT_EQ(
      h.Pair("graph-orders-pair", checker::kWriteWritePair, "Exec[use]", "File[/etc/app.conf]"),
      PairVerdict::kGuaranteed);
  RuleHarness unordered({{"File", "/etc/app.conf"}, {"Exec", "use"}}, run);
  EXPECT_EQ(unordered.Pair("graph-orders-pair", checker::kWriteWritePair, "File[/etc/app.conf]",
                           "Exec[use]"),
            PairVerdict::kKeep);
}

}  // namespace
}  // namespace fsmove::testing
