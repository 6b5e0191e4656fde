// The metadata-only-change rule (src/checker/rules/metadata_only_change.cc): owner or mode matter
// only to a lookup, never to a service.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(MetadataOnlyChangeRuleTest, OnlyALookupDependsOnMetadata) {
  AnalysisBuilder run;
  run.Block("File[/srv/data]").ChangesMetadata("/srv/data").Writes("/srv/content");
  run.Block("Exec[stat]").LooksUp("/srv/data");
  run.Block("Exec[read]").Reads("/srv/data").Reads("/srv/content");
  run.Block("Service[app]").Reads("/srv/data").Reads("/srv/content");
  RuleHarness h({{"File", "/srv/data", {{"owner", "app"}}},
                 {"Exec", "stat"},
                 {"Exec", "read"},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.MaxStrength("metadata-only-change", checker::kOrderingEvidence, "File[/srv/data]",
                          "Exec[stat]", "/srv/data", 1),
            1);
  EXPECT_EQ(h.MaxStrength("metadata-only-change", checker::kOrderingEvidence, "File[/srv/data]",
                          "Exec[read]", "/srv/data"),
            0);
  EXPECT_EQ(h.MaxStrength("metadata-only-change", checker::kOrderingEvidence, "File[/srv/data]",
                          "Exec[read]", "/srv/content"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength("metadata-only-change", checker::kNotificationEvidence, "File[/srv/data]",
                          "Service[app]", "/srv/data"),
            0);
  EXPECT_EQ(h.MaxStrength("metadata-only-change", checker::kNotificationEvidence, "File[/srv/data]",
                          "Service[app]", "/srv/content"),
            kStrongest);
}

TEST(MetadataOnlyChangeRuleTest, OwnerSetTwiceIsNoContentRace) {
  AnalysisBuilder run;
  run.Block("Exec[a]").ChangesMetadata("/srv/log").Writes("/srv/data");
  run.Block("Exec[b]").Writes("/srv/log").Writes("/srv/data");
  RuleHarness h({{"Exec", "a"}, {"Exec", "b"}}, run);
  EXPECT_EQ(h.MaxStrength("metadata-only-change", checker::kWriteWriteEvidence, "Exec[a]",
                          "Exec[b]", "/srv/log"),
            0);
  EXPECT_EQ(h.MaxStrength("metadata-only-change", checker::kWriteWriteEvidence, "Exec[a]",
                          "Exec[b]", "/srv/data"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
