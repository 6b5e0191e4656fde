// The enablement-link rule (src/checker/rules/enablement_link.cc): another service's enablement
// link is the init system's bookkeeping.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(EnablementLinkRuleTest, DropsALinkKeepsTheServicesFiles) {
  AnalysisBuilder run;
  run.Block("Package[app]").Writes("/etc/rc2.d/S01app").Writes("/etc/app.conf");
  run.Block("Exec[list]").Reads("/etc/rc2.d/S01app").Reads("/etc/app.conf");
  run.Block("Service[other]").Reads("/etc/rc2.d/S01app");
  RuleHarness h({{"Package", "app"}, {"Exec", "list"}, {"Service", "other"}}, run,
                {.package_notify = true});
  EXPECT_EQ(h.MaxStrength("enablement-link", checker::kOrderingEvidence, "Package[app]",
                          "Exec[list]", "/etc/rc2.d/S01app"),
            0);
  EXPECT_EQ(h.cited(), "enable.rc2-d");
  EXPECT_EQ(h.MaxStrength("enablement-link", checker::kNotificationEvidence, "Package[app]",
                          "Service[other]", "/etc/rc2.d/S01app"),
            0);
  EXPECT_EQ(h.MaxStrength("enablement-link", checker::kOrderingEvidence, "Package[app]",
                          "Exec[list]", "/etc/app.conf"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
