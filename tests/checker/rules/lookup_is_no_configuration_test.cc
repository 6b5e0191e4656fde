// The lookup-is-no-configuration rule (src/checker/rules/lookup_is_no_configuration.cc): a
// service's lookup of a path reads no configuration.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(LookupIsNoConfigurationRuleTest, AServiceThatOnlyLooked) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf").Writes("/etc/app.flag");
  run.Block("Service[app]").Reads("/etc/app.conf").LooksUp("/etc/app.flag");
  RuleHarness h({{"File", "/etc/app.conf"}, {"Service", "app"}}, run);
  EXPECT_EQ(h.MaxStrength("lookup-is-no-configuration", checker::kNotificationEvidence,
                          "File[/etc/app.conf]", "Service[app]", "/etc/app.flag"),
            0);
  EXPECT_EQ(h.MaxStrength("lookup-is-no-configuration", checker::kNotificationEvidence,
                          "File[/etc/app.conf]", "Service[app]", "/etc/app.conf"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
