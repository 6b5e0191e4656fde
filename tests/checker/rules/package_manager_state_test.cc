// The package-manager-state rule (src/checker/rules/package_manager_state.cc): dpkg's and apt's
// state as a package install rewrites it.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(PackageManagerStateRuleTest, APackagesWritesOfItAreDropped) {
  AnalysisBuilder run;
  run.Block("Package[app]").Writes("/var/lib/dpkg/status").Writes("/etc/passwd");
  run.Block("Exec[apt-update]").Writes("/var/lib/apt/lists/x");
  run.Block("Exec[use]")
      .Reads("/var/lib/dpkg/status")
      .Reads("/etc/passwd")
      .Reads("/var/lib/apt/lists/x");
  RuleHarness h({{"Package", "app"}, {"Exec", "apt-update"}, {"Exec", "use"}}, run);
  EXPECT_EQ(h.MaxStrength("package-manager-state", checker::kOrderingEvidence, "Package[app]",
                          "Exec[use]", "/var/lib/dpkg/status"),
            0);
  EXPECT_EQ(h.cited(), "pkg.dpkg-admindir");
  // An apt update (an Exec) rewriting apt's lists is a real producer.
  EXPECT_EQ(h.MaxStrength("package-manager-state", checker::kOrderingEvidence, "Exec[apt-update]",
                          "Exec[use]", "/var/lib/apt/lists/x"),
            kStrongest);
  // The name-service databases are judged by entry (name-service-entries), not here.
  EXPECT_EQ(h.MaxStrength("package-manager-state", checker::kOrderingEvidence, "Package[app]",
                          "Exec[use]", "/etc/passwd"),
            kStrongest);
  EXPECT_EQ(h.cited(), "");
}

TEST(PackageManagerStateRuleTest, TwoWritersOfItRaceOnNothing) {
  AnalysisBuilder run;
  run.Block("Exec[a]").Writes("/var/cache/apt/pkgcache.bin").Writes("/etc/app.conf");
  run.Block("Exec[b]").Writes("/var/cache/apt/pkgcache.bin").Writes("/etc/app.conf");
  RuleHarness h({{"Exec", "a"}, {"Exec", "b"}}, run);
  EXPECT_EQ(h.MaxStrength("package-manager-state", checker::kWriteWriteEvidence, "Exec[a]",
                          "Exec[b]", "/var/cache/apt/pkgcache.bin"),
            0);
  EXPECT_EQ(h.MaxStrength("package-manager-state", checker::kWriteWriteEvidence, "Exec[a]",
                          "Exec[b]", "/etc/app.conf"),
            kStrongest);
}

// A package installed into a directory another resource made goes first; its own writes of
// the package manager's state are no reason to.
TEST(PackageManagerStateRuleTest, APackageTurnedRound) {
  AnalysisBuilder run;
  run.Block("File[/var/lib/dpkg/info]").MakesDirectory("/var/lib/dpkg/info");
  run.Block("Package[app]").Writes("/var/lib/dpkg/info/app.list");
  run.Block("File[/etc/app]").MakesDirectory("/etc/app");
  run.Block("Package[app]").Writes("/etc/app/app.conf");
  RuleHarness h({{"File", "/var/lib/dpkg/info", {{"ensure", "directory"}}},
                 {"File", "/etc/app", {{"ensure", "directory"}}},
                 {"Package", "app"}},
                run);
  EXPECT_EQ(h.MaxStrength("package-manager-state", checker::kInstallEvidence, "Package[app]",
                          "File[/var/lib/dpkg/info]", "/var/lib/dpkg/info"),
            0);
  EXPECT_EQ(h.MaxStrength("package-manager-state", checker::kInstallEvidence, "Package[app]",
                          "File[/etc/app]", "/etc/app"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
