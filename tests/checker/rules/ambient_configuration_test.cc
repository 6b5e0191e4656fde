// The ambient-configuration rule (src/checker/rules/ambient_configuration.cc): settings every
// program reads in passing are weak evidence.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(AmbientConfigurationRuleTest, WeakForAReaderStrongForAService) {
  AnalysisBuilder run;
  run.Block("File[/etc/resolv.conf]").Writes("/etc/resolv.conf").Writes("/etc/app.conf");
  run.Block("Exec[use]").Reads("/etc/resolv.conf").Reads("/etc/app.conf");
  run.Block("Service[app]").Reads("/etc/resolv.conf");
  RuleHarness h({{"File", "/etc/resolv.conf"}, {"Exec", "use"}, {"Service", "app"}}, run);
  EXPECT_EQ(h.MaxStrength("ambient-configuration", checker::kOrderingEvidence,
                          "File[/etc/resolv.conf]", "Exec[use]", "/etc/resolv.conf"),
            1);
  EXPECT_EQ(h.cited(), "ambient.resolv-conf");  // the row it weakened the evidence by
  EXPECT_EQ(h.MaxStrength("ambient-configuration", checker::kOrderingEvidence,
                          "File[/etc/resolv.conf]", "Service[app]", "/etc/resolv.conf"),
            kStrongest);
  EXPECT_EQ(h.cited(), "");
  EXPECT_EQ(h.MaxStrength("ambient-configuration", checker::kOrderingEvidence,
                          "File[/etc/resolv.conf]", "Exec[use]", "/etc/app.conf"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
