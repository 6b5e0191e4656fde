#include "fsmove/exec/fixture_repositories.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fsmove/exec/process.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(FixtureRepositoriesTest, ScalarAndNestedEntriesWithTheirRefs) {
  const auto repos = FixtureRepositories(
      "fixtures:\n"
      "  forge_modules:\n"
      "    apt: 'puppetlabs-apt'\n"
      "  repositories:\n"
      "    stdlib: \"https://github.com/puppetlabs/puppetlabs-stdlib.git\"  # the tip\n"
      "    concat:\n"
      "      repo: 'https://github.com/puppetlabs/puppetlabs-concat.git'\n"
      "      ref: 'v9.0.0'\n"
      "    'translate':\n"
      "      repo: git://example.org/translate.git\n"
      "      branch: main\n"
      "    Bad-Name:\n"
      "      repo: https://example.org/bad.git\n"
      "    noturl:\n"
      "      ref: v1\n"
      "  symlinks:\n"
      "    mymod: \"#{source_dir}\"\n");
  EXPECT_THAT(
      repos,
      ElementsAre(
          FixtureRepository{"stdlib", "https://github.com/puppetlabs/puppetlabs-stdlib.git", "", 5},
          FixtureRepository{"concat", "https://github.com/puppetlabs/puppetlabs-concat.git",
                            "v9.0.0", 6},
          FixtureRepository{"translate", "git://example.org/translate.git", "main", 9}));
}

TEST(FixtureRepositoriesTest, NoRepositoriesSectionNamesNone) {
  EXPECT_THAT(FixtureRepositories("fixtures:\n  symlinks:\n    x: y\n"), IsEmpty());
  EXPECT_THAT(FixtureRepositories("repositories: {stdlib: x}\n"), IsEmpty());
  EXPECT_THAT(FixtureRepositories(""), IsEmpty());
}

class FetchFixturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fsmove-fixtures-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "module");
    fs::create_directories(dir_ / "sources");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A git repository of a module `name` at `dir`, its commit tagged `tag`.
  void MakeRepo(const fs::path& dir, const std::string& name, const std::string& version,
                const std::string& tag) {
    fs::create_directories(dir / "manifests");
    std::ofstream(dir / "metadata.json")
        << R"({"name": "fsmovetest-)" << name << R"(", "version": ")" << version
        << R"(", "dependencies": []})";
    std::ofstream(dir / "manifests" / "init.pp") << "class " << name << " {}\n";
    const std::string q = "'" + dir.string() + "'";
    const std::string git =
        "git -c user.name=t -c user.email=t@example.org -c init.defaultBranch=main -C " + q;
    ASSERT_EQ(std::system((git + " init -q && " + git + " add -A && " + git + " commit -qm v && " +
                           git + " tag " + tag)
                              .c_str()),
              0);
  }
  fs::path dir_;
};

TEST_F(FetchFixturesTest, AFileRepositoryInAModuleSourceIsFetchedAtItsTagAndReused) {
  if (!FindExecutable("git", kSafePath)) GTEST_SKIP() << "no git here";
  MakeRepo(dir_ / "sources" / "depmod.git", "depmod", "1.2.0", "v1.2.0");
  const std::vector<FixtureRepository> repos = {
      {"depmod", "file://" + (dir_ / "sources" / "depmod.git").string(), "v1.2.0", 4}};
  for (int round = 0; round < 2; ++round) {
    FetchedFixtures f =
        FetchFixtureRepositories(repos, (dir_ / "module").string(), {(dir_ / "sources").string()},
                                 (dir_ / "cache").string(), "m/.fixtures.yml");
    EXPECT_THAT(f.notes, IsEmpty());
    ASSERT_EQ(f.modules.size(), 1u);
    EXPECT_EQ(f.modules[0].name, "fsmovetest-depmod");
    EXPECT_EQ(f.modules[0].version, "1.2.0");
    EXPECT_THAT(f.modules[0].source, HasSubstr("m/.fixtures.yml's file://"));
    EXPECT_TRUE(fs::is_regular_file(fs::path(f.modules[0].dir) / "manifests" / "init.pp"));
    EXPECT_FALSE(fs::exists(fs::path(f.modules[0].dir) / ".git")) << "a checkout, no history";
    // The tag names one tree: the second round takes the cache even with the origin gone.
    fs::remove_all(dir_ / "sources" / "depmod.git");
  }
}

TEST_F(FetchFixturesTest, WhatWouldUseTheUsersCredentialsOrShowTheirFilesIsNotFetched) {
  fs::create_directories(dir_ / "private.git");
  const std::vector<FixtureRepository> repos = {
      {"a", "git@github.com:org/private.git", "", 3},
      {"b", "ssh://git@example.org/b.git", "", 4},
      {"c", "file://" + (dir_ / "private.git").string(), "", 5},
      {"d", "https://example.org/d.git", "--upload-pack=touch /tmp/x", 6},
      {"e", "ext::sh -c touch% /tmp/pwned", "", 7},
  };
  FetchedFixtures f =
      FetchFixtureRepositories(repos, (dir_ / "module").string(), {(dir_ / "sources").string()},
                               (dir_ / "cache").string(), "m/.fixtures.yml");
  EXPECT_THAT(f.modules, IsEmpty());
  ASSERT_EQ(f.notes.size(), 5u);
  EXPECT_THAT(f.notes[0],
              HasSubstr("m/.fixtures.yml:3: a (git@github.com:org/private.git): not "
                        "fetched: fsmove fetches public https, http and git URLs only"));
  EXPECT_THAT(f.notes[1], HasSubstr("an SSH URL would use your credentials"));
  EXPECT_THAT(f.notes[2], HasSubstr("outside the module and the --module-source directories"));
  EXPECT_THAT(f.notes[3], HasSubstr("would read as an option of git"));
  EXPECT_THAT(f.notes[4], HasSubstr("public https, http and git URLs only"));
  EXPECT_FALSE(fs::exists(dir_ / "cache")) << "nothing fetched";
}

TEST_F(FetchFixturesTest, ARepositoryThatCannotBeFetchedIsANoteOnce) {
  if (!FindExecutable("git", kSafePath)) GTEST_SKIP() << "no git here";
  const std::vector<FixtureRepository> repos = {
      {"gone", "file://" + (dir_ / "sources" / "gone.git").string(), "main", 2}};
  for (int round = 0; round < 2; ++round) {
    FetchedFixtures f =
        FetchFixtureRepositories(repos, (dir_ / "module").string(), {(dir_ / "sources").string()},
                                 (dir_ / "cache").string(), "m/.fixtures.yml");
    EXPECT_THAT(f.modules, IsEmpty());
    ASSERT_EQ(f.notes.size(), 1u);
    EXPECT_THAT(f.notes[0], HasSubstr("m/.fixtures.yml:2: gone ("));
    EXPECT_THAT(f.notes[0], HasSubstr("not fetched: git fetch: "));
  }
}

}  // namespace
}  // namespace fsmove::exec
