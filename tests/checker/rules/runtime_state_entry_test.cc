// The runtime-state-entry rule (src/checker/rules/runtime_state_entry.cc): a daemon's pid file or
// socket in /run is no configuration.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(RuntimeStateEntryRuleTest, APidFileInRunNotALogFile) {
  AnalysisBuilder run;
  run.Block("File[/run/app]").MakesDirectory("/run/app");
  run.Block("File[/var/log/app]").MakesDirectory("/var/log/app");
  run.Block("Service[app]").Writes("/run/app/app.pid").Writes("/var/log/app/app.log");
  RuleHarness h({{"File", "/run/app", {{"ensure", "directory"}}},
                 {"File", "/var/log/app", {{"ensure", "directory"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.MaxStrength("runtime-state-entry", checker::kNotificationEvidence, "File[/run/app]",
                          "Service[app]", "/run/app"),
            0);
  EXPECT_EQ(h.cited(), "runtime.run");
  EXPECT_EQ(h.MaxStrength("runtime-state-entry", checker::kNotificationEvidence,
                          "File[/var/log/app]", "Service[app]", "/var/log/app"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
