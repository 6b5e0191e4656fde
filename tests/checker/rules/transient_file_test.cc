// The transient-file rule (src/checker/rules/transient_file.cc): a file its producer made and
// removed leaves nothing behind.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(TransientFileRuleTest, MadeAndRemovedByItsProducer) {
  AnalysisBuilder run;
  run.Block("Exec[a]").Writes("/srv/scratch").Writes("/srv/kept");
  run.Block("Exec[b]").Reads("/srv/scratch").Reads("/srv/kept");
  run.Block("Exec[a]").Removes("/srv/scratch");
  RuleHarness h({{"Exec", "a"}, {"Exec", "b"}}, run);
  EXPECT_EQ(h.MaxStrength("transient-file", checker::kOrderingEvidence, "Exec[a]", "Exec[b]",
                          "/srv/scratch"),
            0);
  EXPECT_EQ(h.cited(), "");  // its own removal: no row needed
  EXPECT_EQ(h.MaxStrength("transient-file", checker::kOrderingEvidence, "Exec[a]", "Exec[b]",
                          "/srv/kept"),
            kStrongest);
}

// Ruby's Tempfile is unlinked by its finalizer, in whatever block runs then.
TEST(TransientFileRuleTest, ARubyTempfileWhoeverRemovesIt) {
  const std::string tmp = "/tmp/app20261124-76-93q0su";
  AnalysisBuilder run;
  run.Block("Exec[a]").Writes(tmp).Writes("/tmp/app-kept");
  run.Block("Exec[b]").Reads(tmp).Reads("/tmp/app-kept");
  run.Block("Exec[c]").Removes(tmp).Removes("/tmp/app-kept");
  RuleHarness h({{"Exec", "a"}, {"Exec", "b"}, {"Exec", "c"}}, run);
  EXPECT_EQ(h.MaxStrength("transient-file", checker::kOrderingEvidence, "Exec[a]", "Exec[b]", tmp),
            0);
  EXPECT_EQ(h.cited(), "tempfile.tmp");  // removed by Exec[c]'s block: the row says why
  EXPECT_EQ(h.MaxStrength("transient-file", checker::kOrderingEvidence, "Exec[a]", "Exec[b]",
                          "/tmp/app-kept"),
            kStrongest);
}

TEST(TransientFileRuleTest, EitherWritersScratchFile) {
  AnalysisBuilder run;
  run.Block("Exec[a]").Writes("/srv/scratch").Writes("/srv/kept");
  run.Block("Exec[b]").Writes("/srv/scratch").Writes("/srv/kept").Removes("/srv/scratch");
  RuleHarness h({{"Exec", "a"}, {"Exec", "b"}}, run);
  EXPECT_EQ(h.MaxStrength("transient-file", checker::kWriteWriteEvidence, "Exec[a]", "Exec[b]",
                          "/srv/scratch"),
            0);
  EXPECT_EQ(h.MaxStrength("transient-file", checker::kWriteWriteEvidence, "Exec[a]", "Exec[b]",
                          "/srv/kept"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
