// The commuting-edits rule (src/checker/rules/commuting_edits.cc): edits of distinct entries of one
// file commute.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::PairVerdict;

TEST(CommutingEditsRuleTest, EntryEditsAndAFileThatOnlyExistsCommute) {
  AnalysisBuilder run;
  run.Block("File_line[a]").Writes("/etc/app.conf").Block("File_line[b]").Writes("/etc/app.conf");
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("File[/etc/other.conf]").Writes("/etc/app.conf");
  RuleHarness h({{"File_line", "a"},
                 {"File_line", "b"},
                 {"File", "/etc/app.conf", {{"ensure", "file"}}},
                 {"File", "/etc/other.conf", {{"content", "x"}}}},
                run);
  EXPECT_EQ(h.Pair("commuting-edits", checker::kWriteWritePair, "File_line[a]", "File_line[b]"),
            PairVerdict::kCommutes);
  EXPECT_EQ(
      h.Pair("commuting-edits", checker::kOrderingPair, "File[/etc/app.conf]", "File_line[a]"),
      PairVerdict::kCommutes);
  // A File that sets the whole content does not commute with an edit of one line of it.
  EXPECT_EQ(
      h.Pair("commuting-edits", checker::kWriteWritePair, "File[/etc/other.conf]", "File_line[a]"),
      PairVerdict::kKeep);
}

}  // namespace
}  // namespace fsmove::testing
