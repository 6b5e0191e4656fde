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

TEST(ModuleList, DiscoversOnlyDirectoriesWithInitPp) {
  ScanTestDir d;
  d.Write("mods/b/manifests/init.pp", "class b {}\n");
  d.Write("mods/a/manifests/init.pp", "class a {}\n");
  d.Write("mods/noinit/manifests/other.pp", "");
  d.Write("mods/file.pp", "");
  auto m = DiscoverModules((d.path() / "mods").string());
  ASSERT_TRUE(m.ok());
  EXPECT_THAT(*m, ElementsAre((d.path() / "mods/a").string(), (d.path() / "mods/b").string()));
  EXPECT_FALSE(DiscoverModules((d.path() / "nope").string()).ok());
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
