// Module sources: the modules of source directories, and the one a dependency's name and
// range pick.
#include "fsmove/exec/module_sources.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

class ModuleSourcesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fsmove-sources-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    dir_ = fs::canonical(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& text) {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  fs::path dir_;
};

// A module directory is one with a module's name and metadata.json, manifests/ or
// lib/puppet/; a link root made is the directory it leads to; anything else is passed over.
TEST_F(ModuleSourcesTest, ASourceListsItsModuleDirectories) {
  Write("src/stdlib/metadata.json", R"({"name": "PuppetLabs/stdlib", "version": "8.5.0"})");
  Write("src/bare/manifests/init.pp", "class bare {}\n");
  Write("src/notes/README", "not a module\n");
  Write("src/Bad-Name/manifests/init.pp", "class x {}\n");
  Write("elsewhere/concat/metadata.json", R"({"name": "puppetlabs-concat", "version": "7.3.1"})");
  fs::create_directory_symlink(dir_ / "elsewhere/concat", dir_ / "src/concat");
  if (geteuid() != 0) GTEST_SKIP() << "root-owned links need root";
  // Another user's link to a module is passed over: module code would see where it leads.
  Write("elsewhere/util/metadata.json", R"({"name": "acme-util", "version": "1.0.0"})");
  fs::create_directory_symlink(dir_ / "elsewhere/util", dir_ / "src/util");
  ASSERT_EQ(lchown((dir_ / "src/util").c_str(), 1000, 1000), 0);
  const std::vector<SourceModule> m =
      ListSourceModules({(dir_ / "src").string(), (dir_ / "absent").string()});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].name, "bare");
  EXPECT_EQ(m[0].version, "");
  EXPECT_EQ(m[1].name, "puppetlabs-concat");
  EXPECT_EQ(m[1].dir, (dir_ / "elsewhere/concat").string());
  EXPECT_EQ(m[2].name, "puppetlabs-stdlib");
  EXPECT_EQ(m[2].short_name, "stdlib");
  EXPECT_EQ(m[2].source, (dir_ / "src").string());
}

// A Forge release's tarball (author-name-1.2.3.tar.gz) in a source is its module, unpacked
// once into the cache; one holding a device, FIFO or hard link, or no single module directory,
// is passed over.
TEST_F(ModuleSourcesTest, AForgeTarballIsItsModuleUnpackedIntoTheCache) {
  Write("build/fsmovetest-tarmod-1.4.0/metadata.json",
        R"({"name": "fsmovetest-tarmod", "version": "1.4.0"})");
  Write("build/fsmovetest-tarmod-1.4.0/manifests/init.pp", "class tarmod {}\n");
  Write("build/fsmovetest-fifomod-1.0.0/manifests/init.pp", "class fifomod {}\n");
  ASSERT_EQ(mkfifo((dir_ / "build/fsmovetest-fifomod-1.0.0/pipe").c_str(), 0600), 0);
  Write("build/one/manifests/init.pp", "class one {}\n");
  Write("build/two/manifests/init.pp", "class two {}\n");
  fs::create_directories(dir_ / "src");
  auto pack = [&](const std::string& tarball, const std::string& members) {
    return std::system(("tar -czf '" + (dir_ / "src" / tarball).string() + "' -C '" +
                        (dir_ / "build").string() + "' " + members)
                           .c_str());
  };
  ASSERT_EQ(pack("fsmovetest-tarmod-1.4.0.tar.gz", "fsmovetest-tarmod-1.4.0"), 0);
  ASSERT_EQ(pack("fsmovetest-fifomod-1.0.0.tar.gz", "fsmovetest-fifomod-1.0.0"), 0);
  ASSERT_EQ(pack("fsmovetest-two-1.0.0.tar.gz", "one two"), 0);
  // A path given twice is stored the second time as a hard link.
  ASSERT_EQ(pack("fsmovetest-one-1.0.0.tar.gz", "one/manifests/init.pp one"), 0);
  Write("src/notes-1.0.0.tar.gz", "not a tarball of a Forge name\n");
  setenv("FSMOVE_PUPPETFILE_CACHE", (dir_ / "cache").c_str(), 1);
  for (int round = 0; round < 2; ++round) {
    const std::vector<SourceModule> m = ListSourceModules({(dir_ / "src").string()});
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m[0].name, "fsmovetest-tarmod");
    EXPECT_EQ(m[0].short_name, "tarmod");
    EXPECT_EQ(m[0].version, "1.4.0");
    EXPECT_EQ(m[0].source, (dir_ / "src/fsmovetest-tarmod-1.4.0.tar.gz").string());
    EXPECT_TRUE(m[0].dir.starts_with((dir_ / "cache/tarballs/").string())) << m[0].dir;
    EXPECT_TRUE(fs::is_regular_file(fs::path(m[0].dir) / "manifests/init.pp"));
    EXPECT_EQ(fs::path(m[0].dir).filename(), "tarmod");
  }
  unsetenv("FSMOVE_PUPPETFILE_CACHE");
}

// By full name in either spelling, the highest version the range admits; another author's
// module of the same short name is not it; a module of no version only without a range.
TEST_F(ModuleSourcesTest, ANameAndARangePickTheHighestVersionAdmitted) {
  std::vector<SourceModule> m = {
      {"puppetlabs-stdlib", "stdlib", "8.5.0", "/a/stdlib", "/a", ""},
      {"puppetlabs-stdlib", "stdlib", "9.4.1", "/b/stdlib", "/b", ""},
      {"other-stdlib", "stdlib", "10.0.0", "/c/stdlib", "/c", ""},
      {"bare", "bare", "", "/a/bare", "/a", ""},
  };
  auto pick = [&](std::string_view name, std::string_view range) {
    absl::StatusOr<const SourceModule*> p = PickSourceModule(m, name, range, "metadata.json");
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() && *p != nullptr ? (*p)->dir : std::string("none");
  };
  EXPECT_EQ(pick("puppetlabs/stdlib", ""), "/b/stdlib");
  EXPECT_EQ(pick("puppetlabs-stdlib", ">= 4.13.1 < 9.0.0"), "/a/stdlib");
  EXPECT_EQ(pick("other/stdlib", ""), "/c/stdlib");
  EXPECT_EQ(pick("acme-bare", ""), "/a/bare");
  EXPECT_EQ(pick("puppetlabs-concat", ""), "none");
  absl::StatusOr<const SourceModule*> none =
      PickSourceModule(m, "puppetlabs-stdlib", ">= 10.0.0", "mods/web/metadata.json");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "mods/web/metadata.json asks for puppetlabs-stdlib >= 10.0.0, which no module source "
            "has (puppetlabs-stdlib 8.5.0 in /a; puppetlabs-stdlib 9.4.1 in /b); give a version "
            "that fits with --module-source DIR or --modulepath DIR");
  EXPECT_FALSE(PickSourceModule(m, "acme-bare", ">= 1.0.0", "metadata.json").ok());
  EXPECT_FALSE(PickSourceModule(m, "puppetlabs-stdlib", "nine", "metadata.json").ok());
}

}  // namespace
}  // namespace fsmove::exec
