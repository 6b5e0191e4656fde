// The empty-file rule (src/checker/rules/empty_file.cc): a File that makes only an empty file sets
// no setting a service reads, and a consumer that read it read nothing.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(EmptyFileRuleTest, WeakForAnEmptyFileStrongForContent) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.flag]").Writes("/etc/app.flag");
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("Service[app]").Reads("/etc/app.flag").Reads("/etc/app.conf");
  RuleHarness h({{"File", "/etc/app.flag", {{"ensure", "file"}}},
                 {"File", "/etc/app.conf", {{"content", "x"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.MaxStrength("empty-file", checker::kNotificationEvidence, "File[/etc/app.flag]",
                          "Service[app]", "/etc/app.flag"),
            1);
  EXPECT_EQ(h.MaxStrength("empty-file", checker::kNotificationEvidence, "File[/etc/app.conf]",
                          "Service[app]", "/etc/app.conf"),
            kStrongest);
}

// MOR: apt reading an empty /etc/apt/preferences pins nothing, as without one (weak); a lookup
// asks whether the path exists, which the File decides (strong); a File with content is strong.
TEST(EmptyFileRuleTest, AnOrderingIsWeakOnlyWhenTheConsumerReadTheContent) {
  AnalysisBuilder run;
  run.Block("File[preferences]").Writes("/etc/apt/preferences");
  run.Block("File[/etc/app/enabled]").Writes("/etc/app/enabled");
  run.Block("File[/etc/apt/sources.list]").Writes("/etc/apt/sources.list");
  run.Block("Package[gnupg]").Reads("/etc/apt/preferences").Reads("/etc/apt/sources.list");
  run.Block("Exec[start app]").LooksUp("/etc/app/enabled");
  RuleHarness h({{"File", "preferences", {{"ensure", "file"}, {"path", "/etc/apt/preferences"}}},
                 {"File", "/etc/app/enabled", {{"ensure", "file"}}},
                 {"File", "/etc/apt/sources.list", {{"content", "deb http://deb.debian.org/x"}}},
                 {"Package", "gnupg"},
                 {"Exec", "start app"}},
                run);
  EXPECT_EQ(h.MaxStrength("empty-file", checker::kOrderingEvidence, "File[preferences]",
                          "Package[gnupg]", "/etc/apt/preferences"),
            1);
  EXPECT_EQ(h.MaxStrength("empty-file", checker::kOrderingEvidence, "File[/etc/app/enabled]",
                          "Exec[start app]", "/etc/app/enabled"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength("empty-file", checker::kOrderingEvidence, "File[/etc/apt/sources.list]",
                          "Package[gnupg]", "/etc/apt/sources.list"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
