// The empty-file rule (src/checker/rules/empty_file.cc): a File that makes only an empty file sets
// no setting a service reads.
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

}  // namespace
}  // namespace fsmove::testing
