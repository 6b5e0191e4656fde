// The refresh-guaranteed rule (src/checker/rules/refresh_guaranteed.cc): a refresh after every
// change leaves no MN, and orders the pair.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::PairVerdict;

TEST(RefreshGuaranteedRuleTest, ANotifyRefreshesAndOrders) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("File[/etc/other.conf]").Writes("/etc/other.conf");
  run.Block("Service[app]").Reads("/etc/app.conf").Reads("/etc/other.conf");
  RuleHarness h({{"File", "/etc/app.conf", {{"notify", "Service[app]"}}},
                 {"File", "/etc/other.conf", {{"before", "Service[app]"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair, "File[/etc/app.conf]",
                   "Service[app]"),
            PairVerdict::kGuaranteed);
  // Ordered, not notified: the service may run the old content.
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair, "File[/etc/other.conf]",
                   "Service[app]"),
            PairVerdict::kKeep);
  // The MOR of a refreshed pair is ordered by the refresh; the other's is not this rule's.
  EXPECT_EQ(
      h.Pair("refresh-guaranteed", checker::kOrderingPair, "File[/etc/app.conf]", "Service[app]"),
      PairVerdict::kGuaranteed);
  EXPECT_EQ(
      h.Pair("refresh-guaranteed", checker::kOrderingPair, "File[/etc/other.conf]", "Service[app]"),
      PairVerdict::kKeep);
}

// A refreshonly Exec runs only when notified: when everything that notifies it also refreshes
// the service, the service is refreshed after whatever the Exec changes.
TEST(RefreshGuaranteedRuleTest, ARefreshOnlyExecWhoseTriggersRefreshTheService) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("Exec[rebuild]").Writes("/var/lib/app/index");
  run.Block("Exec[other]").Writes("/var/lib/app/other");
  run.Block("Service[app]").Reads("/var/lib/app/index").Reads("/var/lib/app/other");
  RuleHarness h({{"File",
                  "/etc/app.conf",
                  {{"notify", nlohmann::json::array({"Exec[rebuild]", "Service[app]"})}}},
                 {"Exec", "rebuild", {{"refreshonly", true}, {"command", "/bin/rebuild"}}},
                 {"Exec", "other", {{"command", "/bin/other"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(
      h.Pair("refresh-guaranteed", checker::kNotificationPair, "Exec[rebuild]", "Service[app]"),
      PairVerdict::kGuaranteed);
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair, "Exec[other]", "Service[app]"),
            PairVerdict::kKeep);
}

}  // namespace
}  // namespace fsmove::testing
