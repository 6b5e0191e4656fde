// The sources-list-install rule (src/checker/rules/sources_list_install.cc): a source list read
// by a Package's install is weak; read by the update that downloads its index, strong.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(SourcesListInstallRuleTest, WeakForAnInstallStrongForTheUpdate) {
  AnalysisBuilder run;
  run.Block("File[/etc/apt/sources.list.d/lldpd.list]")
      .Writes("/etc/apt/sources.list.d/lldpd.list");
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("Package[gnupg]").Reads("/etc/apt/sources.list.d/lldpd.list").Reads("/etc/app.conf");
  run.Block("Exec[apt_update]").Reads("/etc/apt/sources.list.d/lldpd.list");
  RuleHarness h(
      {{"File", "/etc/apt/sources.list.d/lldpd.list", {{"content", "deb http://x y main"}}},
       {"File", "/etc/app.conf", {{"content", "x"}}},
       {"Package", "gnupg"},
       {"Exec", "apt_update", {{"command", "/usr/bin/apt-get update"}}}},
      run);
  EXPECT_EQ(h.MaxStrength("sources-list-install", checker::kOrderingEvidence,
                          "File[/etc/apt/sources.list.d/lldpd.list]", "Package[gnupg]",
                          "/etc/apt/sources.list.d/lldpd.list"),
            1);
  EXPECT_EQ(h.MaxStrength("sources-list-install", checker::kOrderingEvidence,
                          "File[/etc/apt/sources.list.d/lldpd.list]", "Exec[apt_update]",
                          "/etc/apt/sources.list.d/lldpd.list"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength("sources-list-install", checker::kOrderingEvidence, "File[/etc/app.conf]",
                          "Package[gnupg]", "/etc/app.conf"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
