// The stop-edit-start rule (src/checker/rules/stop_edit_start.cc): a service stopped before its
// configuration changes runs nothing stale.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;
using checker::PairVerdict;

TEST(StopEditStartRuleTest, StoppedBeforeTheChangeAndStartedAfter) {
  AnalysisBuilder run;
  run.Block("Exec[stop-app]").Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("Service[app]").Reads("/etc/app.conf");
  std::vector<TestResource> stopped = {
      {"Exec", "stop-app", {{"command", "service app stop"}, {"before", "File[/etc/app.conf]"}}},
      {"File", "/etc/app.conf", {{"before", "Service[app]"}}},
      {"Service", "app"}};
  EXPECT_EQ(RuleHarness(stopped, run)
                .Pair("stop-edit-start", checker::kNotificationPair, "File[/etc/app.conf]",
                      "Service[app]"),
            PairVerdict::kGuaranteed);
  // Stopped, but not before the change: the daemon ran with the old content meanwhile.
  stopped[0].params.erase("before");
  EXPECT_EQ(RuleHarness(stopped, run)
                .Pair("stop-edit-start", checker::kNotificationPair, "File[/etc/app.conf]",
                      "Service[app]"),
            PairVerdict::kKeep);
}

TEST(StopEditStartRuleTest, AStopNeedsOnlyTheProgramsItRuns) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("File[/usr/local/bin/appctl]").Writes("/usr/local/bin/appctl");
  run.Block("Exec[stop-app]").Reads("/etc/app.conf").Runs("/usr/local/bin/appctl");
  RuleHarness h({{"File", "/etc/app.conf"},
                 {"File", "/usr/local/bin/appctl"},
                 {"Exec", "stop-app", {{"command", "appctl; service app stop"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.MaxStrength("stop-edit-start", checker::kOrderingEvidence, "File[/etc/app.conf]",
                          "Exec[stop-app]", "/etc/app.conf"),
            0);
  EXPECT_EQ(h.MaxStrength("stop-edit-start", checker::kOrderingEvidence,
                          "File[/usr/local/bin/appctl]", "Exec[stop-app]", "/usr/local/bin/appctl"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
