// The runtime-directory-of-another rule (src/checker/rules/runtime_directory_of_another.cc): a
// daemon makes the directories it needs in /run itself, so another daemon's start that made one
// first is weak evidence of an order.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

constexpr auto kRule = "runtime-directory-of-another";

TEST(RuntimeDirectoryOfAnotherRuleTest, AnotherDaemonsStartMadeTheDirectory) {
  AnalysisBuilder run;
  run.Block("Service[clamd]").MakesDirectory("/run/clamav").Writes("/run/clamav/clamd.ctl");
  run.Block("Service[freshclam]").Writes("/run/clamav/freshclam.pid");
  RuleHarness h({{"Service", "clamd"}, {"Service", "freshclam"}}, run);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kOrderingEvidence, "Service[clamd]", "Service[freshclam]",
                          "/run/clamav"),
            1);
  EXPECT_EQ(h.cited(), "runtime.run");
}

TEST(RuntimeDirectoryOfAnotherRuleTest, TheOtherDaemonsSocketIsANeed) {
  AnalysisBuilder run;
  run.Block("Service[db]").MakesDirectory("/run/db").Writes("/run/db/db.sock");
  run.Block("Service[app]").Reads("/run/db/db.sock");
  RuleHarness h({{"Service", "db"}, {"Service", "app"}}, run);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kOrderingEvidence, "Service[db]", "Service[app]",
                          "/run/db/db.sock"),
            kStrongest);
}

TEST(RuntimeDirectoryOfAnotherRuleTest, AModulesOwnDirectoryIsMadeForTheDaemon) {
  AnalysisBuilder run;
  run.Block("File[/run/app]").MakesDirectory("/run/app");
  run.Block("Exec[mkdir /run/tool]").MakesDirectory("/run/tool");
  run.Block("Service[app]").Writes("/run/app/app.pid").Writes("/run/tool/app.lock");
  RuleHarness h({{"File", "/run/app", {{"ensure", "directory"}}},
                 {"Exec", "mkdir /run/tool", {{"command", "/bin/mkdir /run/tool"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kOrderingEvidence, "File[/run/app]", "Service[app]",
                          "/run/app"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kOrderingEvidence, "Exec[mkdir /run/tool]",
                          "Service[app]", "/run/tool"),
            kStrongest);
}

TEST(RuntimeDirectoryOfAnotherRuleTest, OnlyRuntimeDirectoriesAndOnlyDaemons) {
  AnalysisBuilder run;
  run.Block("Service[a]").MakesDirectory("/var/log/shared").MakesDirectory("/run/shared");
  run.Block("Service[b]").Writes("/var/log/shared/b.log");
  run.Block("Exec[report]").Writes("/run/shared/report.lock");
  RuleHarness h(
      {{"Service", "a"}, {"Service", "b"}, {"Exec", "report", {{"command", "/usr/bin/report"}}}},
      run);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kOrderingEvidence, "Service[a]", "Service[b]",
                          "/var/log/shared"),
            kStrongest);
  EXPECT_EQ(
      h.MaxStrength(kRule, checker::kOrderingEvidence, "Service[a]", "Exec[report]", "/run/shared"),
      kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
