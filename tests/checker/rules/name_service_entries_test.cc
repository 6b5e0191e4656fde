// The name-service-entries rule (src/checker/rules/name_service_entries.cc): the name-service
// databases are needed only for the accounts one names.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(NameServiceEntriesRuleTest, OnlyTheAccountsTheConsumerNames) {
  AnalysisBuilder run;
  run.Block("Package[mysql]").Writes("/etc/passwd");
  run.Block("User[git]").Writes("/etc/group");
  run.Block("File[/var/lib/mysql]").Reads("/etc/passwd");
  run.Block("File[/srv/plain]").Reads("/etc/passwd");
  run.Block("File[/srv/git]").Reads("/etc/passwd").Reads("/etc/group");
  RuleHarness h({{"Package", "mysql"},
                 {"User", "git"},
                 {"File", "/var/lib/mysql", {{"owner", "mysql"}}},
                 {"File", "/srv/plain"},
                 {"File", "/srv/git", {{"owner", "git"}}}},
                run);
  // mysql is made by no resource of the catalog: the package that ran adduser may have.
  EXPECT_EQ(h.MaxStrength("name-service-entries", checker::kOrderingEvidence, "Package[mysql]",
                          "File[/var/lib/mysql]", "/etc/passwd"),
            kStrongest);
  // No account named: nothing in the databases is needed.
  EXPECT_EQ(h.MaxStrength("name-service-entries", checker::kOrderingEvidence, "Package[mysql]",
                          "File[/srv/plain]", "/etc/passwd"),
            0);
  EXPECT_EQ(h.cited(), "nss.passwd");
  // git is User[git]'s: the package's entries are not it, the User's are.
  EXPECT_EQ(h.MaxStrength("name-service-entries", checker::kOrderingEvidence, "Package[mysql]",
                          "File[/srv/git]", "/etc/passwd"),
            0);
  EXPECT_EQ(h.MaxStrength("name-service-entries", checker::kOrderingEvidence, "User[git]",
                          "File[/srv/git]", "/etc/group"),
            kStrongest);
}

TEST(NameServiceEntriesRuleTest, TwoWritersAddDifferentEntries) {
  AnalysisBuilder run;
  run.Block("Exec[a]").Writes("/etc/shadow").Writes("/etc/app.conf");
  run.Block("Exec[b]").Writes("/etc/shadow").Writes("/etc/app.conf");
  RuleHarness h({{"Exec", "a"}, {"Exec", "b"}}, run);
  EXPECT_EQ(h.MaxStrength("name-service-entries", checker::kWriteWriteEvidence, "Exec[a]",
                          "Exec[b]", "/etc/shadow"),
            0);
  EXPECT_EQ(h.MaxStrength("name-service-entries", checker::kWriteWriteEvidence, "Exec[a]",
                          "Exec[b]", "/etc/app.conf"),
            kStrongest);
}

// lvicainne-opendkim: Group['opendkim'] and User['opendkim'], neither with a gid, unordered.
// useradd makes the group when the user comes first (login.defs' USERGROUPS_ENAB), and Puppet's
// provider passes -g opendkim when the group exists: weak, citing the row. A gid on either
// (a group the user must join, a number the group must have) keeps the need.
TEST(NameServiceEntriesRuleTest, AUsersPrivateGroupIsWeak) {
  AnalysisBuilder run;
  run.Block("Group[opendkim]").Writes("/etc/group").Writes("/etc/gshadow");
  run.Block("User[opendkim]").Reads("/etc/group").Reads("/etc/gshadow");
  auto strength = [&](nlohmann::json user, nlohmann::json group, const char* path) {
    RuleHarness h({{"Group", "opendkim", group}, {"User", "opendkim", user}}, run);
    int s = h.MaxStrength("name-service-entries", checker::kOrderingEvidence, "Group[opendkim]",
                          "User[opendkim]", path);
    return std::make_pair(s, std::string(h.cited()));
  };
  const nlohmann::json none = nlohmann::json::object();
  EXPECT_EQ(strength(none, none, "/etc/group"),
            std::make_pair(1, std::string("useradd.private-group")));
  EXPECT_EQ(strength(none, none, "/etc/gshadow"),
            std::make_pair(1, std::string("useradd.private-gshadow")));
  EXPECT_EQ(strength({{"gid", "opendkim"}}, none, "/etc/group").first, kStrongest);
  EXPECT_EQ(strength(none, {{"gid", 120}}, "/etc/group").first, kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
