#include "fsmove/scan/module_list.h"

#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scan_test_dir.h"

namespace fsmove::scan {
namespace {

using ::testing::ElementsAre;

TEST(ModuleList, NormalizesSpellingsOfOnePath) {
  EXPECT_EQ(NormalizeModulePath("./mods/nginx/"), "mods/nginx");
  EXPECT_EQ(NormalizeModulePath("mods//nginx"), "mods/nginx");
  EXPECT_EQ(NormalizeModulePath("/a/b/../c/"), "/a/c");
  EXPECT_EQ(NormalizeModulePath("/"), "/");
}

TEST(ModuleList, ReadsListFilesWithComments) {
  ScanTestDir d;
  auto list =
      d.Write("list.txt", "# modules\n  a/b  \n\nc # not a comment\n\t# indented comment\nd\r\n");
  auto m = ReadModuleList(list.string());
  ASSERT_TRUE(m.ok());
  EXPECT_THAT(*m, ElementsAre("a/b", "c # not a comment", "d"));
  EXPECT_FALSE(ReadModuleList((d.path() / "missing").string()).ok());
}

TEST(ModuleList, DiscoversModulesWithManifestsOrMetadata) {
  ScanTestDir d;
  d.Write("mods/b/manifests/init.pp", "class b {}\n");
  d.Write("mods/a/manifests/init.pp", "class a {}\n");
  // Defined types only (concat): no init.pp, still a module, used through its examples.
  d.Write("mods/defines/manifests/thing.pp", "define defines::thing {}\n");
  d.Write("mods/meta/metadata.json", "{}");
  d.Write("mods/notamodule/README", "");
  d.Write("mods/file.pp", "");
  auto m = DiscoverModules((d.path() / "mods").string());
  ASSERT_TRUE(m.ok());
  EXPECT_THAT(*m,
              ElementsAre((d.path() / "mods/a").string(), (d.path() / "mods/b").string(),
                          (d.path() / "mods/defines").string(), (d.path() / "mods/meta").string()));
  EXPECT_FALSE(DiscoverModules((d.path() / "nope").string()).ok());
}

// A link in the modules directory is not a module of it, and a metadata.json that is a link
// does not make one; an example that is a link is listed, so that its run can say it is
// refused (the scan opens each beneath its module).
TEST(ModuleList, LinksAreNeitherModulesNorMadeInto) {
  ScanTestDir d;
  d.Write("private/manifests/init.pp", "class private {}\n");
  d.Write("private/metadata.json", "{}");
  d.Write("mods/real/manifests/init.pp", "class real {}\n");
  d.Write("mods/metalink/README", "");
  d.Write("mods/real/examples/z.pp", "include real\n");
  std::filesystem::create_directory_symlink(d.path() / "private", d.path() / "mods/linked");
  // Made by a user, not root (a link root made, as Debian's modules directory has, counts).
  if (geteuid() == 0) {
    ASSERT_EQ(lchown((d.path() / "mods/linked").c_str(), 65534, 65534), 0);
  }
  std::filesystem::create_symlink(d.path() / "private/metadata.json",
                                  d.path() / "mods/metalink/metadata.json");
  std::filesystem::create_symlink(d.path() / "private/manifests/init.pp",
                                  d.path() / "mods/real/examples/init.pp");
  auto m = DiscoverModules((d.path() / "mods").string());
  ASSERT_TRUE(m.ok());
  EXPECT_THAT(*m, ElementsAre((d.path() / "mods/real").string()));
  if (geteuid() == 0) {
    std::filesystem::create_directory_symlink(d.path() / "private", d.path() / "mods/debian");
    auto with_root_link = DiscoverModules((d.path() / "mods").string());
    ASSERT_TRUE(with_root_link.ok());
    EXPECT_THAT(*with_root_link, ElementsAre((d.path() / "mods/debian").string(),
                                             (d.path() / "mods/real").string()));
  }
  const std::string real = (d.path() / "mods/real").string();
  EXPECT_THAT(ExpandModuleRuns(real),
              ElementsAre(real, real + "/examples/init.pp", real + "/examples/z.pp"));
}

TEST(ModuleList, ExpandsAModuleIntoItsIncludeAndExamples) {
  ScanTestDir d;
  const std::string a = (d.path() / "mods/a").string();
  d.Write("mods/a/manifests/init.pp", "class a {}\n");
  d.Write("mods/a/examples/z.pp", "include a\n");
  d.Write("mods/a/examples/init.pp", "include a\n");
  d.Write("mods/a/examples/README.md", "");
  d.Write("mods/a/examples/.hidden.pp", "");
  d.Write("mods/a/examples/sub/deep.pp", "");
  d.Write("mods/a/tests/old.pp", "");  // tests/ only counts without examples/
  EXPECT_THAT(ExpandModuleRuns(a), ElementsAre(a, a + "/examples/init.pp", a + "/examples/z.pp"));
  // Before PDK: tests/ held the smoke manifests.
  const std::string old = (d.path() / "mods/old").string();
  d.Write("mods/old/manifests/init.pp", "class old {}\n");
  d.Write("mods/old/tests/init.pp", "include old\n");
  EXPECT_THAT(ExpandModuleRuns(old), ElementsAre(old, old + "/tests/init.pp"));
  // Defined types only: the examples; nothing at all: the include run, which says why.
  const std::string defines = (d.path() / "mods/defines").string();
  d.Write("mods/defines/manifests/thing.pp", "define defines::thing {}\n");
  d.Write("mods/defines/examples/thing.pp", "defines::thing { 'x': }\n");
  EXPECT_THAT(ExpandModuleRuns(defines), ElementsAre(defines + "/examples/thing.pp"));
  const std::string empty = (d.path() / "mods/empty").string();
  d.Write("mods/empty/metadata.json", "{}");
  EXPECT_THAT(ExpandModuleRuns(empty), ElementsAre(empty));
  // A manifest given as is stays one run.
  EXPECT_THAT(ExpandModuleRuns("site/x.pp"), ElementsAre("site/x.pp"));
}

// A control repo is scanned as onceover tests one: a run per role, with the repo's data.
TEST(ModuleList, AControlRepoIsARunPerRole) {
  ScanTestDir d;
  const std::string repo = (d.path() / "control").string();
  d.Write("control/environment.conf", "modulepath = site:modules:$basemodulepath\n");
  d.Write("control/Puppetfile", "mod 'puppetlabs/stdlib', '9.4.1'\n");
  d.Write("control/manifests/site.pp", "node default { include role::web }\n");
  d.Write("control/site/role/manifests/web.pp", "class role::web { include profile::nginx }\n");
  d.Write("control/site/role/manifests/db.pp", "class role::db {}\n");
  d.Write("control/site/role/manifests/needs.pp", "class role::needs (String $x) {}\n");
  d.Write("control/site/role/manifests/params.pp", "class role::params {}\n");
  d.Write("control/site/profile/manifests/nginx.pp", "class profile::nginx {}\n");
  // A role module in modules/ comes second on the modulepath: Puppet never loads it.
  d.Write("control/modules/role/manifests/other.pp", "class role::other {}\n");
  EXPECT_THAT(ExpandModuleRuns(repo), ElementsAre(repo + "#role::db", repo + "#role::web"));
  EXPECT_EQ(RunModule(repo + "#role::web"), repo);
  // No roles: the repo's site.pp, one run.
  const std::string bare = (d.path() / "bare").string();
  d.Write("bare/Puppetfile", "mod 'puppetlabs/stdlib'\n");
  d.Write("bare/manifests/site.pp", "node default { }\n");
  EXPECT_THAT(ExpandModuleRuns(bare), ElementsAre(bare));
  // Roles behind a link out of the repo are not read (the check refuses the link).
  const std::string linked = (d.path() / "linked").string();
  d.Write("linked/environment.conf", "modulepath = site\n");
  d.Write("elsewhere/role/manifests/secret.pp", "class role::secret {}\n");
  ASSERT_EQ(symlink((d.path() / "elsewhere").c_str(), (d.path() / "linked/site").c_str()), 0);
  EXPECT_THAT(ExpandModuleRuns(linked), ElementsAre(linked));
}

TEST(ModuleList, ClassRunsWhenIncludeAloneCannotCompile) {
  ScanTestDir d;
  // The module's class needs a parameter: its public classes that need nothing are run.
  const std::string m = (d.path() / "mods/svc").string();
  d.Write("mods/svc/manifests/init.pp", "class svc (String $password) {}\n");
  d.Write("mods/svc/manifests/params.pp", "class svc::params { $x = 1 }\n");
  d.Write("mods/svc/manifests/server.pp", "class svc::server (Integer $port = 80) {}\n");
  d.Write("mods/svc/manifests/client.pp", "class svc::client {}\n");
  d.Write("mods/svc/manifests/server/config.pp", "class svc::server::config { }\n");
  d.Write("mods/svc/manifests/server/tls.pp", "class svc::server::tls { }\n");
  d.Write("mods/svc/manifests/db.pp", "class svc::db ($name) {}\n");
  d.Write("mods/svc/manifests/install.pp", "class svc::install { assert_private() }\n");
  d.Write("mods/svc/manifests/agent.pp",
          "# @summary internal\n# @api private\nclass svc::agent {}\n");
  d.Write("mods/svc/manifests/thing.pp", "define svc::thing {}\n");
  EXPECT_THAT(ExpandModuleRuns(m),
              ElementsAre(m, m + "#svc::client", m + "#svc::server", m + "#svc::server::config"));
  // Its include compiles as it is: no class runs.
  const std::string ok = (d.path() / "mods/ok").string();
  d.Write("mods/ok/manifests/init.pp", "class ok ($a = 1) {}\n");
  d.Write("mods/ok/manifests/server.pp", "class ok::server {}\n");
  EXPECT_THAT(ExpandModuleRuns(ok), ElementsAre(ok));
  EXPECT_EQ(NothingToApply(ok), "");
  // Defined types only, in init.pp: no include; its public classes if any, else nothing.
  const std::string defines = (d.path() / "mods/defs").string();
  d.Write("mods/defs/manifests/init.pp", "define defs ($target) {}\n");
  EXPECT_THAT(ExpandModuleRuns(defines), ElementsAre(defines));
  EXPECT_THAT(NothingToApply(defines),
              ::testing::AllOf(::testing::HasSubstr("has no class 'defs' to include"),
                               ::testing::HasSubstr("defined types only"),
                               ::testing::HasSubstr("name a manifest for it in a list file")));
  d.Write("mods/defs/manifests/setup.pp", "class defs::setup {}\n");
  EXPECT_THAT(ExpandModuleRuns(defines), ElementsAre(defines + "#defs::setup"));
  EXPECT_THAT(NothingToApply(defines),
              ::testing::HasSubstr("1 other run left out by --no-examples"));
  // Named by metadata.json: a Forge checkout's directory is not the module's name.
  const std::string forge = (d.path() / "mods/puppetlabs-web").string();
  d.Write("mods/puppetlabs-web/metadata.json", R"({"name": "puppetlabs-web"})");
  d.Write("mods/puppetlabs-web/manifests/init.pp", "class web {}\n");
  EXPECT_THAT(ExpandModuleRuns(forge), ElementsAre(forge));
  // A class run given as is stays one run.
  EXPECT_THAT(ExpandModuleRuns("mods/x#x::y"), ElementsAre("mods/x#x::y"));
}

TEST(ModuleList, SaysWhereARunComesFrom) {
  EXPECT_EQ(RunSource("mods/a#a::server"), "class");
  EXPECT_EQ(RunModule("mods/a#a::server"), "mods/a");
  EXPECT_EQ(ClassRunClass("mods/a#a::server"), "a::server");
  EXPECT_FALSE(IsClassRun("mods/a#A::b"));
  EXPECT_FALSE(IsClassRun("mods/a#a::"));
  EXPECT_FALSE(IsClassRun("mods/a#b/c"));
  EXPECT_FALSE(IsClassRun("#a"));
  EXPECT_TRUE(ModuleDirName("mods/a#a::server").starts_with("a_class_a__server-"));
  EXPECT_EQ(RunSource("mods/a"), "include");
  EXPECT_EQ(RunSource("mods/a/examples/init.pp"), "example");
  EXPECT_EQ(RunSource("mods/a/tests/init.pp"), "example");
  EXPECT_EQ(RunSource("site/x.pp"), "manifest");
  EXPECT_EQ(RunSource("mods/a/examples/sub/deep.pp"), "manifest");
  EXPECT_EQ(RunModule("mods/a"), "mods/a");
  EXPECT_EQ(RunModule("mods/a/examples/init.pp"), "mods/a");
  EXPECT_EQ(RunModule("site/x.pp"), "");
  // An example's folder names its module and file.
  EXPECT_TRUE(
      ModuleDirName("mods/apache/examples/vhost.pp").starts_with("apache_examples_vhost.pp-"));
  EXPECT_NE(ModuleDirName("mods/apache/examples/vhost.pp"),
            ModuleDirName("other/apache/examples/vhost.pp"));
}

TEST(ModuleList, CanonicalListIsSortedAndUnique) {
  EXPECT_THAT(CanonicalModuleList({"b", "./a/", "a", "b/"}), ElementsAre("a", "b"));
}

TEST(ModuleList, DirNamesAreSafeStableAndUnique) {
  std::string a = ModuleDirName("vendor/x/nginx");
  std::string b = ModuleDirName("other/nginx");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind("nginx-", 0), 0u);
  EXPECT_EQ(a, ModuleDirName("./vendor/x/nginx/"));  // same module, same folder
  EXPECT_EQ(a.size(), std::string("nginx-").size() + 8);
  std::string odd = ModuleDirName("m/x; rm -rf $HOME");
  EXPECT_EQ(odd.find_first_of("/; $"), std::string::npos) << odd;
  EXPECT_NE(ModuleDirName("..")[0], '.');
  EXPECT_NE(ModuleDirName(".hidden")[0], '.');
}

}  // namespace
}  // namespace fsmove::scan
