// The provided-by-another-before rule (src/checker/rules/provided_by_another_before.cc): another
// resource before the consumer makes the path exist.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(ProvidedByAnotherBeforeRuleTest, ExistenceFromAResourceOrderedBefore) {
  AnalysisBuilder run;
  run.Block("Exec[mkdir]").MakesDirectory("/srv/app").Writes("/srv/app.conf");
  run.Block("File[/srv/app]").MakesDirectory("/srv/app");
  run.Block("File[/srv/app.conf]").Writes("/srv/app.conf");
  run.Block("Exec[use]").LooksUp("/srv/app").Reads("/srv/app.conf");
  std::vector<TestResource> resources = {
      {"Exec", "mkdir"},
      {"File", "/srv/app", {{"ensure", "directory"}, {"before", "Exec[use]"}}},
      {"File", "/srv/app.conf", {{"before", "Exec[use]"}}},
      {"Exec", "use"}};
  RuleHarness h(resources, run);
  EXPECT_EQ(h.MaxStrength("provided-by-another-before", checker::kOrderingEvidence, "Exec[mkdir]",
                          "Exec[use]", "/srv/app"),
            0);
  // Content is no existence: whose version the reader gets is overwritten-before-read's.
  EXPECT_EQ(h.MaxStrength("provided-by-another-before", checker::kOrderingEvidence, "Exec[mkdir]",
                          "Exec[use]", "/srv/app.conf"),
            kStrongest);
  // The other maker not ordered before the consumer: it may come too late.
  resources[1].params.erase("before");
  EXPECT_EQ(RuleHarness(resources, run)
                .MaxStrength("provided-by-another-before", checker::kOrderingEvidence,
                             "Exec[mkdir]", "Exec[use]", "/srv/app"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
