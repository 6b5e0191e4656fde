#include "fsmove/scan/module_list.h"

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

TEST(ModuleList, SaysWhereARunComesFrom) {
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
