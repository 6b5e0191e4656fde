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

// rehanone-samba: a share's section and its options, each an Augeas resource of smb.conf. The
// options' paths select below the node the section's `set` makes: not commuting.
TEST(CommutingEditsRuleTest, AnAugeasEditBelowTheNodeAnotherMakes) {
  AnalysisBuilder run;
  for (const char* block : {"Augeas[pictures-section]", "Augeas[pictures-comment]",
                            "Augeas[pictures-path]", "Augeas[global-workgroup]"}) {
    run.Block(block).Writes("/etc/samba/smb.conf");
  }
  const nlohmann::json context = "/files/etc/samba/smb.conf";
  RuleHarness h(
      {{"Augeas",
        "pictures-section",
        {{"context", context}, {"changes", "set target[. = 'pictures'] 'pictures'"}}},
       {"Augeas",
        "pictures-comment",
        {{"context", "/files/etc/samba/smb.conf/"},
         {"changes", nlohmann::json::array({"set target[. = 'pictures']/comment \"Pictures\""})}}},
       {"Augeas",
        "pictures-path",
        {{"changes", "set /files/etc/samba/smb.conf/target[. = 'pictures']/path /srv/pics"}}},
       {"Augeas",
        "global-workgroup",
        {{"context", context}, {"changes", "set target[. = 'global']/workgroup WORKGROUP"}}}},
      run);
  EXPECT_EQ(h.Pair("commuting-edits", checker::kOrderingPair, "Augeas[pictures-section]",
                   "Augeas[pictures-comment]"),
            PairVerdict::kKeep);
  EXPECT_EQ(h.Pair("commuting-edits", checker::kOrderingPair, "Augeas[pictures-path]",
                   "Augeas[pictures-section]"),
            PairVerdict::kKeep);
  // As rehanone-samba writes them: `incl` for the context, the path in quotes with quotes inside.
  RuleHarness samba(
      {{"Augeas",
        "global-section",
        {{"incl", "/etc/samba/smb.conf"}, {"changes", "set target[. = \"global\"] global"}}},
       {"Augeas",
        "workgroup",
        {{"incl", "/etc/samba/smb.conf"},
         {"changes", "set \"target[. = \"global\"]/workgroup\" \"EXAMPLE\""}}},
       {"Augeas",
        "server string",
        {{"incl", "/etc/samba/smb.conf"},
         {"changes", "set \"target[. = \"global\"]/server string\" \"File Server\""}}}},
      run);
  EXPECT_EQ(samba.Pair("commuting-edits", checker::kOrderingPair, "Augeas[global-section]",
                       "Augeas[workgroup]"),
            PairVerdict::kKeep);
  EXPECT_EQ(samba.Pair("commuting-edits", checker::kWriteWritePair, "Augeas[workgroup]",
                       "Augeas[server string]"),
            PairVerdict::kCommutes);
  // Entries of distinct nodes still commute.
  EXPECT_EQ(h.Pair("commuting-edits", checker::kWriteWritePair, "Augeas[pictures-comment]",
                   "Augeas[pictures-path]"),
            PairVerdict::kCommutes);
  EXPECT_EQ(h.Pair("commuting-edits", checker::kWriteWritePair, "Augeas[pictures-section]",
                   "Augeas[global-workgroup]"),
            PairVerdict::kCommutes);
}

}  // namespace
}  // namespace fsmove::testing
