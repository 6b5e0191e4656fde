// The restart-relay rule (src/checker/rules/restart_relay.cc): an Exec that restarts a service is
// the service's own doing.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;
using checker::PairVerdict;

std::vector<TestResource> Catalog() {
  return {{"Exec", "restart-app", {{"command", "service app restart"}}},
          {"Exec", "report", {{"command", "/usr/local/bin/report"}}},
          {"Service", "app"}};
}

TEST(RestartRelayRuleTest, TheRelaysWritesAreTheServicesRestart) {
  AnalysisBuilder run;
  run.Block("Exec[restart-app]").Writes("/var/lib/app/state");
  run.Block("Exec[report]").Writes("/var/lib/app/report");
  run.Block("Service[app]").Reads("/var/lib/app/state").Reads("/var/lib/app/report");
  RuleHarness h(Catalog(), run);
  EXPECT_EQ(
      h.Pair("restart-relay", checker::kNotificationPair, "Exec[restart-app]", "Service[app]"),
      PairVerdict::kGuaranteed);
  EXPECT_EQ(h.Pair("restart-relay", checker::kNotificationPair, "Exec[report]", "Service[app]"),
            PairVerdict::kKeep);
}

TEST(RestartRelayRuleTest, NoOrderingBetweenARelayAndItsServiceEitherWay) {
  AnalysisBuilder run;
  run.Block("Service[app]").Writes("/var/lib/app/data");
  run.Block("Exec[restart-app]").Reads("/var/lib/app/data");
  run.Block("Exec[report]").Reads("/var/lib/app/data");
  RuleHarness h(Catalog(), run);
  EXPECT_EQ(h.MaxStrength("restart-relay", checker::kOrderingEvidence, "Service[app]",
                          "Exec[restart-app]", "/var/lib/app/data"),
            0);
  EXPECT_EQ(h.MaxStrength("restart-relay", checker::kOrderingEvidence, "Service[app]",
                          "Exec[report]", "/var/lib/app/data"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
