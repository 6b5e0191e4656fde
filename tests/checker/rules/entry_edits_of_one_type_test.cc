// The entry-edits-of-one-type rule (src/checker/rules/entry_edits_of_one_type.cc): resources of one
// editing type edit the entries they name.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(EntryEditsOfOneTypeRuleTest, AnEditThatReadsFirst) {
  AnalysisBuilder run;
  run.Block("Neutron_agent_ovs[DEFAULT/a]").Reads("/etc/ovs.ini").Writes("/etc/ovs.ini");
  run.Block("Neutron_agent_ovs[DEFAULT/b]").Reads("/etc/ovs.ini");
  run.Block("Exec[use]").Reads("/etc/ovs.ini");
  RuleHarness h(
      {{"Neutron_agent_ovs", "DEFAULT/a"}, {"Neutron_agent_ovs", "DEFAULT/b"}, {"Exec", "use"}},
      run);
  EXPECT_EQ(
      h.MaxStrength("entry-edits-of-one-type", checker::kOrderingEvidence,
                    "Neutron_agent_ovs[DEFAULT/a]", "Neutron_agent_ovs[DEFAULT/b]", "/etc/ovs.ini"),
      0);
  // Another type reads the whole file.
  EXPECT_EQ(h.MaxStrength("entry-edits-of-one-type", checker::kOrderingEvidence,
                          "Neutron_agent_ovs[DEFAULT/a]", "Exec[use]", "/etc/ovs.ini"),
            kStrongest);
}

TEST(EntryEditsOfOneTypeRuleTest, TwoWritersThatBothReadFirst) {
  AnalysisBuilder run;
  run.Block("Neutron_agent_ovs[a]").Reads("/etc/ovs.ini").Writes("/etc/ovs.ini");
  run.Block("Neutron_agent_ovs[b]").Reads("/etc/ovs.ini").Writes("/etc/ovs.ini");
  run.Block("Neutron_agent_ovs[c]").Writes("/etc/ovs.ini");
  RuleHarness h(
      {{"Neutron_agent_ovs", "a"}, {"Neutron_agent_ovs", "b"}, {"Neutron_agent_ovs", "c"}}, run);
  EXPECT_EQ(h.MaxStrength("entry-edits-of-one-type", checker::kWriteWriteEvidence,
                          "Neutron_agent_ovs[a]", "Neutron_agent_ovs[b]", "/etc/ovs.ini"),
            0);
  // c writes the file without looking at it: the whole of it.
  EXPECT_EQ(h.MaxStrength("entry-edits-of-one-type", checker::kWriteWriteEvidence,
                          "Neutron_agent_ovs[b]", "Neutron_agent_ovs[c]", "/etc/ovs.ini"),
            kStrongest);
}

// Two Augeas resources of one file that each read it first: their own entries, unless one makes
// the node the other's path selects below (a share's section and one of its options, as
// fixtures/faults/augeas-node/bad.pp: in the other order the option fails).
TEST(EntryEditsOfOneTypeRuleTest, NotAnAugeasEditBelowTheNodeAnotherMakes) {
  AnalysisBuilder run;
  for (const char* block :
       {"Augeas[pictures-section]", "Augeas[pictures-comment]", "Augeas[global-workgroup]"}) {
    run.Block(block).Reads("/etc/samba/smb.conf").Writes("/etc/samba/smb.conf");
  }
  const nlohmann::json incl = "/etc/samba/smb.conf";
  RuleHarness h({{"Augeas",
                  "pictures-section",
                  {{"incl", incl}, {"changes", "set target[. = 'pictures'] 'pictures'"}}},
                 {"Augeas",
                  "pictures-comment",
                  {{"incl", incl}, {"changes", "set target[. = 'pictures']/comment 'Pictures'"}}},
                 {"Augeas",
                  "global-workgroup",
                  {{"incl", incl}, {"changes", "set target[. = 'global']/workgroup EXAMPLE"}}}},
                run);
  // Each reads the file before it writes it: the pairs are write-write ones.
  EXPECT_EQ(
      h.MaxStrength("entry-edits-of-one-type", checker::kWriteWriteEvidence,
                    "Augeas[pictures-section]", "Augeas[pictures-comment]", "/etc/samba/smb.conf"),
      kStrongest);
  // The global section's option and the pictures share: entries of their own.
  EXPECT_EQ(
      h.MaxStrength("entry-edits-of-one-type", checker::kWriteWriteEvidence,
                    "Augeas[pictures-comment]", "Augeas[global-workgroup]", "/etc/samba/smb.conf"),
      0);
}

}  // namespace
}  // namespace fsmove::testing
