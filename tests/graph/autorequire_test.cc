// Tests for each autorequire rule: core types on a catalog compiled by Puppet (whose own
// graph is checked in puppet_oracle_test.cc), module types on a hand-written catalog.
#include "fsmove/graph/autorequire.h"

#include <string>
#include <vector>

#include "../catalog/catalog_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::graph {
namespace {

using ::fsmove::testing::Id;
using ::fsmove::testing::LoadTestCatalog;
using ::fsmove::testing::MakeCatalog;
using ::fsmove::testing::Res;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class GraphAutorequireRuleTest : public ::testing::Test {
 protected:
  // "Source -> Target (rule)" for every relation `rule` gives for `ref`.
  static std::vector<std::string> Relations(const catalog::Catalog& catalog, AutorelationRule rule,
                                            std::string_view ref) {
    const catalog::ManagedPaths paths(catalog);
    const AutorelationContext context{catalog, paths};
    std::vector<std::string> described;
    for (const AutoRelation& relation : rule(Id(catalog, ref), context)) {
      described.push_back(catalog.resource(relation.source).ref + " -> " +
                          catalog.resource(relation.target).ref + " (" +
                          std::string(relation.rule) + ")");
    }
    return described;
  }
};

class GraphCoreAutorequireTest : public GraphAutorequireRuleTest {
 protected:
  static void SetUpTestSuite() {
    catalog_ = new catalog::Catalog(LoadTestCatalog("autorequire.json"));
  }
  static void TearDownTestSuite() { delete catalog_; }
  static std::vector<std::string> Of(AutorelationRule rule, std::string_view ref) {
    return Relations(*catalog_, rule, ref);
  }
  static catalog::Catalog* catalog_;
};
catalog::Catalog* GraphCoreAutorequireTest::catalog_ = nullptr;

class GraphModuleAutorequireTest : public GraphAutorequireRuleTest {
 protected:
  static void SetUpTestSuite() {
    catalog_ = new catalog::Catalog(LoadTestCatalog("handwritten/module_types.json"));
  }
  static void TearDownTestSuite() { delete catalog_; }
  static std::vector<std::string> Of(AutorelationRule rule, std::string_view ref) {
    return Relations(*catalog_, rule, ref);
  }
  static catalog::Catalog* catalog_;
};
catalog::Catalog* GraphModuleAutorequireTest::catalog_ = nullptr;

TEST_F(GraphCoreAutorequireTest, FileRequiresOnlyTheNearestManagedAncestor) {
  // /tmp/fsmove-ar/a is not managed: the next one up is.
  EXPECT_THAT(
      Of(&FileAutorequires, "File[/tmp/fsmove-ar/a/b]"),
      ElementsAre("File[/tmp/fsmove-ar] -> File[/tmp/fsmove-ar/a/b] (file:parent-directory)"));
  // A parent with a trailing-slash title is found through its canonical path.
  EXPECT_THAT(
      Of(&FileAutorequires, "File[/tmp/fsmove-ar/d/e/f]"),
      ElementsAre(
          "File[/tmp/fsmove-ar/d/e/] -> File[/tmp/fsmove-ar/d/e/f] (file:parent-directory)"));
  EXPECT_THAT(Of(&FileAutorequires, "File[/tmp/fsmove-ar]"), IsEmpty());
}

TEST_F(GraphCoreAutorequireTest, FileRequiresItsLinkTarget) {
  EXPECT_THAT(
      Of(&FileAutorequires, "File[/tmp/fsmove-ar/link]"),
      ElementsAre("File[/tmp/fsmove-ar] -> File[/tmp/fsmove-ar/link] (file:parent-directory)",
                  "File[/tmp/fsmove-ar/d/e/f] -> File[/tmp/fsmove-ar/link] (file:link-target)"));
}

TEST_F(GraphCoreAutorequireTest, FileRequiresNamedOwnerAndGroupOnly) {
  EXPECT_THAT(
      Of(&FileAutorequires, "File[/tmp/fsmove-ar/owned]"),
      ElementsAre("File[/tmp/fsmove-ar] -> File[/tmp/fsmove-ar/owned] (file:parent-directory)",
                  "User[fsmove-user] -> File[/tmp/fsmove-ar/owned] (file:owner)",
                  "Group[fsmove-group] -> File[/tmp/fsmove-ar/owned] (file:group)"));
  // owner => '4242', group => 4243: numeric, nothing to require.
  EXPECT_THAT(
      Of(&FileAutorequires, "File[/tmp/fsmove-ar/numeric]"),
      ElementsAre("File[/tmp/fsmove-ar] -> File[/tmp/fsmove-ar/numeric] (file:parent-directory)"));
}

TEST_F(GraphCoreAutorequireTest, ExecRequiresCwdLineStartPathsChecksAndUser) {
  EXPECT_THAT(Of(&ExecAutorequires, "Exec[cmd-path]"),
              ElementsAre("File[/tmp/fsmove-ar/d] -> Exec[cmd-path] (exec:cwd)",
                          "File[/tmp/fsmove-ar/bin/tool] -> Exec[cmd-path] (exec:command)",
                          "File[/tmp/fsmove-ar/bin/second-line] -> Exec[cmd-path] (exec:command)",
                          "File[/tmp/fsmove-ar/bin/onlyif-check] -> Exec[cmd-path] (exec:onlyif)",
                          "File[/tmp/fsmove-ar/bin/unless-check] -> Exec[cmd-path] (exec:unless)",
                          "User[fsmove-user] -> Exec[cmd-path] (exec:user)"));
}

TEST_F(GraphCoreAutorequireTest, ExecQuotedCommandAndNumericUser) {
  EXPECT_THAT(
      Of(&ExecAutorequires, "Exec[cmd-quoted]"),
      ElementsAre("File[/tmp/fsmove-ar/bin/quoted tool] -> Exec[cmd-quoted] (exec:command)"));
}

TEST_F(GraphCoreAutorequireTest, ExecIgnoresUnqualifiedCommandsAndLaterArrayElements) {
  EXPECT_THAT(Of(&ExecAutorequires, "Exec[cmd-unqualified]"), IsEmpty());
  EXPECT_THAT(Of(&ExecAutorequires, "Exec[cmd-array]"),
              ElementsAre("File[/tmp/fsmove-ar/bin/tool] -> Exec[cmd-array] (exec:command)"));
}

TEST_F(GraphCoreAutorequireTest, PackageRequiresResponseAdminAndLocalSource) {
  EXPECT_THAT(
      Of(&PackageAutorequires, "Package[fsmove-fake-package]"),
      ElementsAre(
          "File[/tmp/fsmove-ar/pkg/response] -> Package[fsmove-fake-package] "
          "(package:responsefile)",
          "File[/tmp/fsmove-ar/pkg/admin] -> Package[fsmove-fake-package] (package:adminfile)",
          "File[/tmp/fsmove-ar/pkg/local.deb] -> Package[fsmove-fake-package] (package:source)"));
}

TEST_F(GraphCoreAutorequireTest, UserRequiresGroupsByNameAndByGid) {
  EXPECT_THAT(Of(&UserAutorequires, "User[fsmove-user]"),
              ElementsAre("Group[fsmove-group] -> User[fsmove-user] (user:gid)",
                          "Group[fsmove-other] -> User[fsmove-user] (user:groups)"));
  // gid => 4300 finds the Group whose gid is 4300.
  EXPECT_THAT(Of(&UserAutorequires, "User[fsmove-numeric]"),
              ElementsAre("Group[fsmove-group] -> User[fsmove-numeric] (user:gid)"));
}

TEST_F(GraphAutorequireRuleTest, UserRolesAndCommaSeparatedLists) {
  // roles only validate on Solaris, so this one is written by hand.
  const catalog::Catalog catalog = MakeCatalog({
      Res("Group", "a"),
      Res("Group", "b", {{"gid", "501"}}),
      Res("User", "role1"),
      Res("User", "role2"),
      Res("User", "alice",
          {{"gid", 501}, {"groups", "a,b"}, {"roles", nlohmann::json::array({"role1,role2"})}}),
      Res("User", "bob", {{"gid", "999"}, {"groups", nlohmann::json::array({"missing"})}}),
  });
  EXPECT_THAT(
      Relations(catalog, &UserAutorequires, "User[alice]"),
      ElementsAre("Group[b] -> User[alice] (user:gid)", "Group[a] -> User[alice] (user:groups)",
                  "Group[b] -> User[alice] (user:groups)",
                  "User[role1] -> User[alice] (user:roles)",
                  "User[role2] -> User[alice] (user:roles)"));
  EXPECT_THAT(Relations(catalog, &UserAutorequires, "User[bob]"), IsEmpty());
}

TEST_F(GraphAutorequireRuleTest, GeneratorsRequireWhatTheirGeneratedFilesAutorequire) {
  // The File a Concat_file generates (and whose block, the write, is charged to it) comes after
  // the File of its directory, its owner and its group; a Tidy's Files after the File of
  // the directory they are in. A recursive File's children add nothing: they autorequire the
  // File itself.
  const catalog::Catalog catalog = MakeCatalog({
      Res("File", "/etc/app", {{"ensure", "directory"}}),
      Res("User", "app"),
      Res("Group", "app"),
      Res("Concat_file", "/etc/app/app.conf", {{"owner", "app"}, {"group", "app"}}),
      Res("Concat_file", "numeric", {{"path", "/etc/app/sub/x.conf"}, {"owner", "0"}}),
      Res("Tidy", "/etc/app"),
      Res("Tidy", "/etc/app/logs"),
      Res("Tidy", "relative"),
  });
  EXPECT_THAT(Relations(catalog, &ConcatFileAutorequires, "Concat_file[/etc/app/app.conf]"),
              ElementsAre("File[/etc/app] -> Concat_file[/etc/app/app.conf] "
                          "(generated-file:parent-directory)",
                          "User[app] -> Concat_file[/etc/app/app.conf] (generated-file:owner)",
                          "Group[app] -> Concat_file[/etc/app/app.conf] (generated-file:group)"));
  EXPECT_THAT(Relations(catalog, &ConcatFileAutorequires, "Concat_file[numeric]"),
              ElementsAre("File[/etc/app] -> Concat_file[numeric] "
                          "(generated-file:parent-directory)"));
  EXPECT_THAT(Relations(catalog, &TidyAutorequires, "Tidy[/etc/app]"),
              ElementsAre("File[/etc/app] -> Tidy[/etc/app] (generated-file:parent-directory)"));
  EXPECT_THAT(Relations(catalog, &TidyAutorequires, "Tidy[/etc/app/logs]"),
              ElementsAre("File[/etc/app] -> Tidy[/etc/app/logs] "
                          "(generated-file:parent-directory)"));
  EXPECT_THAT(Relations(catalog, &TidyAutorequires, "Tidy[relative]"), IsEmpty());
  EXPECT_EQ(AutorelationRuleFor("Tidy"), &TidyAutorequires);
}

TEST_F(GraphAutorequireRuleTest, MultilineScansFollowRubyLineAnchors) {
  const catalog::Catalog catalog = MakeCatalog({
      Res("File", "/opt/a"),
      Res("File", "/opt/b"),
      Res("File", "/opt/c d"),
      Res("File", "/opt/e"),
      Res("Exec", "multi",
          {{"command", "echo /opt/a\n/opt/b --x\n\"/opt/c d\" x\n  /opt/e"},
           {"unless",
            nlohmann::json::array({nlohmann::json::array({"/opt/a", "/opt/b"}), "/opt/e"})}}),
  });
  EXPECT_THAT(Relations(catalog, &ExecAutorequires, "Exec[multi]"),
              ElementsAre("File[/opt/b] -> Exec[multi] (exec:command)",
                          "File[/opt/c d] -> Exec[multi] (exec:command)",
                          "File[/opt/a] -> Exec[multi] (exec:unless)",
                          "File[/opt/e] -> Exec[multi] (exec:unless)"));
}

TEST_F(GraphModuleAutorequireTest, CronRequiresItsUser) {
  EXPECT_THAT(Of(&CronAutorequires, "Cron[backup]"),
              ElementsAre("User[deploy] -> Cron[backup] (cron:user)"));
  EXPECT_THAT(Of(&CronAutorequires, "Cron[no-user]"), IsEmpty());
}

TEST_F(GraphModuleAutorequireTest, MountRequiresEveryAncestorMountAndPrecedesFilesBelowIt) {
  EXPECT_THAT(
      Of(&MountAutorelations, "Mount[/mnt/data/cache]"),
      UnorderedElementsAre("Mount[/mnt/data/] -> Mount[/mnt/data/cache] (mount:parent-mount)",
                           "Mount[/mnt] -> Mount[/mnt/data/cache] (mount:parent-mount)",
                           "Mount[/] -> Mount[/mnt/data/cache] (mount:parent-mount)"));
  // Files strictly under /mnt/data, not /mnt/datax nor the mount point itself.
  EXPECT_THAT(Of(&MountAutorelations, "Mount[/mnt/data/]"),
              UnorderedElementsAre(
                  "Mount[/mnt] -> Mount[/mnt/data/] (mount:parent-mount)",
                  "Mount[/] -> Mount[/mnt/data/] (mount:parent-mount)",
                  "Mount[/mnt/data/] -> File[/mnt/data/file] (mount:file-under-mount-point)"));
  // Puppet's pattern for "/" is ^//. which no expanded path matches.
  EXPECT_THAT(Of(&MountAutorelations, "Mount[/]"), IsEmpty());
}

TEST_F(GraphModuleAutorequireTest, SshAuthorizedKeyRequiresItsUser) {
  EXPECT_THAT(
      Of(&SshAuthorizedKeyAutorequires, "Ssh_authorized_key[deploy@laptop]"),
      ElementsAre("User[deploy] -> Ssh_authorized_key[deploy@laptop] (ssh_authorized_key:user)"));
}

TEST_F(GraphModuleAutorequireTest, FileLineRequiresItsFile) {
  EXPECT_THAT(Of(&FileLineAutorequires, "File_line[hosts-entry]"),
              ElementsAre("File[/etc/hosts] -> File_line[hosts-entry] (file_line:path)"));
}

TEST_F(GraphModuleAutorequireTest, ConcatFileRequiresItsFile) {
  EXPECT_THAT(Of(&ConcatFileAutorequires, "Concat_file[motd]"),
              ElementsAre("File[/etc/motd] -> Concat_file[motd] (concat_file:path)"));
  EXPECT_EQ(AutorelationRuleFor("Concat_fragment"), nullptr);
}

TEST_F(GraphModuleAutorequireTest, IniSettingRequiresTheDirectoryNotTheFile) {
  EXPECT_THAT(
      Of(&IniSettingAutorequires, "Ini_setting[php memory_limit]"),
      ElementsAre(
          "File[/etc/php/8.2] -> Ini_setting[php memory_limit] (ini_setting:parent-directory)"));
}

TEST_F(GraphModuleAutorequireTest, MysqlTypesRequireMyCnfAndGrantsTheirUser) {
  for (const char* ref :
       {"Mysql_user[app@localhost]", "Mysql_database[app]", "Mysql_plugin[auth_socket]"}) {
    EXPECT_THAT(Of(&MysqlAutorequires, ref),
                ElementsAre("File[/root/.my.cnf] -> " + std::string(ref) + " (mysql:my.cnf)"));
  }
  EXPECT_THAT(
      Of(&MysqlAutorequires, "Mysql_grant[app@localhost/app.*]"),
      ElementsAre(
          "File[/root/.my.cnf] -> Mysql_grant[app@localhost/app.*] (mysql:my.cnf)",
          "Mysql_user[app@localhost] -> Mysql_grant[app@localhost/app.*] (mysql_grant:user)"));
  EXPECT_THAT(
      Of(&MysqlDatadirAutorequires, "Mysql_datadir[/var/lib/mysql2]"),
      ElementsAre(
          "Package[mysql-server] -> Mysql_datadir[/var/lib/mysql2] (mysql_datadir:package)"));
}

TEST_F(GraphModuleAutorequireTest, PostgresqlPsqlRequiresItsInstanceEndAnchor) {
  EXPECT_THAT(
      Of(&PostgresqlPsqlAutorequires, "Postgresql_psql[create role]"),
      ElementsAre("Anchor[postgresql::server::service::end::main] -> Postgresql_psql[create role] "
                  "(postgresql_psql:service-anchor)"));
  EXPECT_THAT(Of(&PostgresqlPsqlAutorequires, "Postgresql_psql[on second instance]"), IsEmpty());
}

TEST_F(GraphModuleAutorequireTest, AptKeyRequiresALocalSourceOnly) {
  EXPECT_THAT(Of(&AptKeyAutorequires, "Apt_key[repo]"),
              ElementsAre("File[/etc/apt/keys/repo.asc] -> Apt_key[repo] (apt_key:source)"));
  EXPECT_THAT(Of(&AptKeyAutorequires, "Apt_key[remote]"), IsEmpty());
}

TEST_F(GraphModuleAutorequireTest, JavaKsRequiresKeyMaterialAndTargetDirectory) {
  EXPECT_THAT(
      Of(&JavaKsAutorequires, "Java_ks[tomcat]"),
      ElementsAre("File[/etc/ssl/private/tomcat.key] -> Java_ks[tomcat] (java_ks:key-material)",
                  "File[/etc/ssl/certs/tomcat.pem] -> Java_ks[tomcat] (java_ks:key-material)",
                  "File[/etc/ssl/certs/chain.pem] -> Java_ks[tomcat] (java_ks:key-material)",
                  "File[/etc/tomcat] -> Java_ks[tomcat] (java_ks:target-directory)"));
}

TEST_F(GraphModuleAutorequireTest, VcsrepoRequiresManagedVcsPackages) {
  EXPECT_THAT(Of(&VcsrepoAutorequires, "Vcsrepo[/srv/app]"),
              ElementsAre("Package[git] -> Vcsrepo[/srv/app] (vcsrepo:package)"));
}

TEST_F(GraphModuleAutorequireTest, SelmoduleRequiresItsModuleFile) {
  EXPECT_THAT(Of(&SelmoduleAutorequires, "Selmodule[mymodule]"),
              ElementsAre("File[/usr/share/selinux/targeted/mymodule.pp] -> Selmodule[mymodule] "
                          "(selmodule:module-file)"));
  EXPECT_THAT(
      Of(&SelmoduleAutorequires, "Selmodule[other]"),
      ElementsAre("File[/opt/selinux/other.pp] -> Selmodule[other] (selmodule:module-file)"));
}

TEST(GraphAutorequireTableTest, TypesWithoutAutorelations) {
  for (const char* type : {"Group", "Service", "Notify", "Anchor", "Augeas", "Class", "Whatever"}) {
    EXPECT_EQ(AutorelationRuleFor(type), nullptr) << type;
  }
  EXPECT_EQ(AutorelationRuleFor("File"), &FileAutorequires);
  EXPECT_EQ(AutorelationRuleFor("Mount"), &MountAutorelations);
}

}  // namespace
}  // namespace fsmove::graph
