// The made-at-another-start rule (src/checker/rules/made_at_another_start.cc): what a daemon's
// start made when it was missing, its restart does not change, so another daemon needs no
// notify from it (the eleventh sample's samba: smbd and nmbd).
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

constexpr auto kMadeAtAnotherStart = "made-at-another-start";

TEST(MadeAtAnotherStartRuleTest, EntriesInADirectoryAnotherDaemonsStartMade) {
  AnalysisBuilder run;
  run.Block("Service[smbd]")
      .MakesDirectory("/var/log/samba/cores")
      .MakesDirectory("/var/log/samba/cores/smbd");
  run.Block("Service[nmbd]").MakesDirectory("/var/log/samba/cores/nmbd");
  RuleHarness h({{"Service", "smbd"}, {"Service", "nmbd"}}, run);
  EXPECT_EQ(h.MaxStrength(kMadeAtAnotherStart, checker::kNotificationEvidence, "Service[smbd]",
                          "Service[nmbd]", "/var/log/samba/cores"),
            1);
  EXPECT_EQ(h.cited(), "");
}

TEST(MadeAtAnotherStartRuleTest, RuntimeStateBothDaemonsWrite) {
  AnalysisBuilder run;
  run.Block("Service[smbd]").Writes("/run/samba/names.tdb");
  run.Block("Service[nmbd]").Writes("/run/samba/names.tdb").Reads("/run/samba/gencache.tdb");
  run.Block("Service[winbind]").Writes("/run/samba/gencache.tdb");
  RuleHarness h({{"Service", "smbd"}, {"Service", "nmbd"}, {"Service", "winbind"}}, run);
  EXPECT_EQ(h.MaxStrength(kMadeAtAnotherStart, checker::kWriteWriteEvidence, "Service[smbd]",
                          "Service[nmbd]", "/run/samba/names.tdb"),
            0);  // both write it: no write-write evidence
  EXPECT_EQ(h.cited(), "runtime.run");
  EXPECT_EQ(h.MaxStrength(kMadeAtAnotherStart, checker::kNotificationEvidence, "Service[winbind]",
                          "Service[nmbd]", "/run/samba/gencache.tdb"),
            1);
}

TEST(MadeAtAnotherStartRuleTest, ConfigurationAndTheModulesOwnResourcesStay) {
  AnalysisBuilder run;
  run.Block("Service[keygen]").Writes("/etc/app/key.pem");
  run.Block("File[/var/log/app]").MakesDirectory("/var/log/app");
  run.Block("File[/run/app]").MakesDirectory("/run/app");
  run.Block("Service[app]")
      .Reads("/etc/app/key.pem")
      .Writes("/var/log/app/app.log")
      .Writes("/run/app/app.pid");
  RuleHarness h({{"Service", "keygen"},
                 {"File", "/var/log/app", {{"ensure", "directory"}}},
                 {"File", "/run/app", {{"ensure", "directory"}}},
                 {"Service", "app"}},
                run);
  // A file another daemon's start wrote, read by this one: not runtime state.
  EXPECT_EQ(h.MaxStrength(kMadeAtAnotherStart, checker::kNotificationEvidence, "Service[keygen]",
                          "Service[app]", "/etc/app/key.pem"),
            kStrongest);
  // The module's own directories: a File's change is the paper's log-directory case.
  EXPECT_EQ(h.MaxStrength(kMadeAtAnotherStart, checker::kNotificationEvidence, "File[/var/log/app]",
                          "Service[app]", "/var/log/app"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength(kMadeAtAnotherStart, checker::kNotificationEvidence, "File[/run/app]",
                          "Service[app]", "/run/app"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
