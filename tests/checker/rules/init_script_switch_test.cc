// The init-script-switch rule (src/checker/rules/init_script_switch.cc): a change that sets only
// an init script's switch in an environment file changes nothing of what systemd starts.
#include <gtest/gtest.h>

#include "fsmove/checker/resource_semantics.h"
#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

constexpr auto kRule = "init-script-switch";

TEST(InitScriptSwitchRuleTest, SystemdLoadsTheFileButTheUnitUsesNoSwitch) {
  AnalysisBuilder run;
  run.Block("File[/etc/default/knockd]").Writes("/etc/default/knockd");
  run.Block("Augeas[enable corosync]").Writes("/etc/default/corosync");
  run.Block("Service[knockd]").By(1).Reads("/etc/default/knockd").Reads("/etc/default/corosync");
  RuleHarness h({{"File",
                  "/etc/default/knockd",
                  {{"ensure", "file"}, {"content", "# from Puppet\nSTART_KNOCKD=1\n\n"}}},
                 {"Augeas",
                  "enable corosync",
                  {{"incl", "/etc/default/corosync"}, {"changes", "set START \"yes\""}}},
                 {"Service", "knockd"}},
                run);
  for (checker::Judged kind : {checker::kNotificationEvidence, checker::kOrderingEvidence}) {
    EXPECT_EQ(h.MaxStrength(kRule, kind, "File[/etc/default/knockd]", "Service[knockd]",
                            "/etc/default/knockd"),
              1);
    EXPECT_EQ(h.cited(), "switch.start-name");
  }
  EXPECT_EQ(h.MaxStrength(kRule, checker::kNotificationEvidence, "Augeas[enable corosync]",
                          "Service[knockd]", "/etc/default/corosync"),
            1);
  EXPECT_EQ(h.cited(), "switch.start");
}

// Without systemd the init script reads the file itself, and the switch decides.
TEST(InitScriptSwitchRuleTest, TheInitScriptsOwnReadKeepsItsEvidence) {
  AnalysisBuilder run;
  run.Block("File[/etc/default/knockd]").Writes("/etc/default/knockd");
  run.Block("Service[knockd]").By(812).Reads("/etc/default/knockd");
  RuleHarness h(
      {{"File", "/etc/default/knockd", {{"content", "START_KNOCKD=1\n"}}}, {"Service", "knockd"}},
      run);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kNotificationEvidence, "File[/etc/default/knockd]",
                          "Service[knockd]", "/etc/default/knockd"),
            kStrongest);
}

// Options the unit's command line names, a switch set to something else, a file whose content
// is not known: the evidence stays.
TEST(InitScriptSwitchRuleTest, OptionsAndUnknownContentKeepTheirEvidence) {
  AnalysisBuilder run;
  run.Block("File[opts]").Writes("/etc/default/a");
  run.Block("File[mixed]").Writes("/etc/default/b");
  run.Block("File[sourced]").Writes("/etc/default/c");
  run.Block("File_line[odd]").Writes("/etc/default/d");
  run.Block("Service[a]").By(1).Reads("/etc/default/a").Reads("/etc/default/b");
  run.Reads("/etc/default/c").Reads("/etc/default/d");
  RuleHarness h(
      {{"File", "opts", {{"path", "/etc/default/a"}, {"content", "KNOCKD_OPTS=\"-i eth1\"\n"}}},
       {"File",
        "mixed",
        {{"path", "/etc/default/b"}, {"content", "START_KNOCKD=1\nKNOCKD_OPTS=-i eth1\n"}}},
       {"File", "sourced", {{"path", "/etc/default/c"}, {"source", "puppet:///modules/a/c"}}},
       {"File_line", "odd", {{"path", "/etc/default/d"}, {"line", "START_DAEMON=/usr/bin/x"}}},
       {"Service", "a"}},
      run);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kNotificationEvidence, "File[opts]", "Service[a]",
                          "/etc/default/a"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kNotificationEvidence, "File[mixed]", "Service[a]",
                          "/etc/default/b"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kNotificationEvidence, "File[sourced]", "Service[a]",
                          "/etc/default/c"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength(kRule, checker::kNotificationEvidence, "File_line[odd]", "Service[a]",
                          "/etc/default/d"),
            kStrongest);
}

TEST(ShellAssignmentsTest, TheShapesModulesWriteAnEnvironmentFileIn) {
  auto resource = [](std::string type, nlohmann::json parameters) {
    catalog::Resource r;
    r.type = std::move(type);
    r.title = "t";
    r.parameters = std::move(parameters);
    return r;
  };
  using Assignments = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(checker::ShellAssignments(
                resource("File", {{"content", "# c\nexport A='x y'\n  B=\"1\"\n"}})),
            (Assignments{{"A", "x y"}, {"B", "1"}}));
  EXPECT_EQ(checker::ShellAssignments(resource("Augeas", {{"changes", {"set A yes", "set B 0"}}})),
            (Assignments{{"A", "yes"}, {"B", "0"}}));
  EXPECT_EQ(checker::ShellAssignments(resource("Shellvar", {{"variable", "A"}, {"value", "no"}})),
            (Assignments{{"A", "no"}}));
  EXPECT_EQ(checker::ShellAssignments(resource("File_line", {{"line", "A=1"}})),
            (Assignments{{"A", "1"}}));
  for (const catalog::Resource& r :
       {resource("File", {{"content", "if true; then A=1; fi\n"}}),
        resource("File", {{"content", ""}}), resource("File", {{"ensure", "absent"}}),
        resource("Augeas", {{"changes", {"set A yes", "rm B"}}}),
        resource("Augeas", {{"changes", "set Service/ExecStart x"}}),
        resource("Shellvar", {{"variable", "A"}, {"value", "no"}, {"ensure", "absent"}}),
        resource("Exec", {{"command", "A=1 x"}})}) {
    EXPECT_EQ(checker::ShellAssignments(r), std::nullopt) << r.type << " " << r.parameters;
  }
}

}  // namespace
}  // namespace fsmove::testing
