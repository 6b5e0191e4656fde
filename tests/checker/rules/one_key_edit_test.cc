// The one-key-edit rule (src/checker/rules/one_key_edit.cc): a one-key edit read by what is not a
// service is weak.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(OneKeyEditRuleTest, WeakForAReaderStrongForAService) {
  AnalysisBuilder run;
  run.Block("File_line[key]").Writes("/etc/app.conf");
  run.Block("File[/etc/other.conf]").Writes("/etc/other.conf");
  run.Block("Exec[use]").Reads("/etc/app.conf").Reads("/etc/other.conf");
  run.Block("Service[app]").Reads("/etc/app.conf");
  RuleHarness h(
      {{"File_line", "key"}, {"File", "/etc/other.conf"}, {"Exec", "use"}, {"Service", "app"}},
      run);
  EXPECT_EQ(h.MaxStrength("one-key-edit", checker::kOrderingEvidence, "File_line[key]", "Exec[use]",
                          "/etc/app.conf"),
            1);
  EXPECT_EQ(h.MaxStrength("one-key-edit", checker::kOrderingEvidence, "File_line[key]",
                          "Service[app]", "/etc/app.conf"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength("one-key-edit", checker::kOrderingEvidence, "File[/etc/other.conf]",
                          "Exec[use]", "/etc/other.conf"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
