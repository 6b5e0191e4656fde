// Control repos (control_repo.h): environment.conf's settings, the Puppetfile statements fsmove
// lets r10k evaluate (and those it refuses, with their line), what looks like a control repo,
// and the local modules a Puppetfile may name. tests/e2e's case_control_repo deploys one with
// r10k and checks two nodes of it.
#include "fsmove/exec/control_repo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fsmove/exec/process.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(EnvironmentConfTest, ModulepathAndManifestAsWritten) {
  auto conf = ParseEnvironmentConf(
      "# roles and profiles first\n[main]\nmodulepath = site:modules:$basemodulepath\n"
      "manifest = manifests/site.pp\nconfig_version = 'scripts/config_version.sh'\n",
      "repo/environment.conf");
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_THAT(conf->modulepath, ElementsAre("site", "modules", "$basemodulepath"));
  EXPECT_EQ(conf->manifest, "manifests/site.pp");
  auto defaults = ParseEnvironmentConf("", "e");
  ASSERT_TRUE(defaults.ok());
  EXPECT_THAT(defaults->modulepath, ElementsAre("modules", "$basemodulepath"));
  EXPECT_EQ(defaults->manifest, "manifests");
}

TEST(EnvironmentConfTest, WhatLeadsOutOfTheRepoOrIsNoSettingIsRefusedWithItsLine) {
  EXPECT_THAT(
      std::string(ParseEnvironmentConf("modulepath = site:/etc/puppet/code/modules\n", "e.conf")
                      .status()
                      .message()),
      HasSubstr("e.conf:1: modulepath entry /etc/puppet/code/modules is outside"));
  EXPECT_THAT(
      std::string(ParseEnvironmentConf("\nmanifest = ../other\n", "e.conf").status().message()),
      HasSubstr("e.conf:2: manifest ../other is not a path in the control repo"));
  EXPECT_THAT(std::string(ParseEnvironmentConf("modulepath site\n", "e.conf").status().message()),
              HasSubstr("e.conf:1: not a `setting = value` line"));
  EXPECT_THAT(std::string(ParseEnvironmentConf("[agent]\n", "e.conf").status().message()),
              HasSubstr("e.conf:1: only settings of [main]"));
}

TEST(PuppetfileTest, TheDeclarativeStatementsAreRead) {
  auto pf = ParsePuppetfile(R"(forge 'https://forge.puppet.com'
moduledir 'modules'

# Forge modules
mod 'puppetlabs/stdlib', '9.4.1'
mod 'puppetlabs-concat', :latest
mod "ntp"

mod 'appconf',
  :git    => 'file:///srv/git/appconf',
  :branch => 'main'
mod('site_app', git: 'https://git.example.org/app.git', tag: 'v1.2.0')
)",
                            "Puppetfile");
  ASSERT_TRUE(pf.ok()) << pf.status();
  ASSERT_EQ(pf->modules.size(), 5u);
  EXPECT_EQ(pf->modules[0].name, "puppetlabs/stdlib");
  EXPECT_EQ(pf->modules[0].version, "9.4.1");
  EXPECT_EQ(pf->modules[3].git, "file:///srv/git/appconf");
  EXPECT_EQ(pf->modules[3].local, "/srv/git/appconf");
  EXPECT_EQ(pf->modules[3].line, 9);
  EXPECT_EQ(pf->modules[4].git, "https://git.example.org/app.git");
  EXPECT_TRUE(pf->modules[4].local.empty());
}

TEST(PuppetfileTest, AnythingThatWouldRunAsRubyIsRefusedWithItsLine) {
  for (const auto& [text, said] : std::vector<std::pair<std::string, std::string>>{
           {"system('id')\n", "Puppetfile:1: `system` is not a Puppetfile statement"},
           {"mod 'a'\nmod \"b#{`id`}\"\n", "Puppetfile:2: interpolation"},
           {"mod 'a', :git => ENV\n", "Puppetfile:1: git: expected a literal value"},
           {"mod 'a', `id`\n", "Puppetfile:1: '`'"},
           {"mod 'a'; system('id')\n", "Puppetfile:1: ';'"},
           {"mod 'a', :install_path => '/etc'\n", "install_path /etc leads out"},
           {"mod 'a', :type => 'tarball', :source => '/x'\n", "type tarball"},
           {"mod 'a', :local => true\n", "local is not a key fsmove passes"},
           {"moduledir '/tmp'\n", "moduledir other than 'modules'"},
           {"mod 'a', :git => '--upload-pack=touch /tmp/x'\n",
            "git --upload-pack=touch /tmp/x starts"},
           {"mod 'a', git: 'https://x.invalid/a', branch: '-b'\n", "branch -b starts with '-'"},
           {"mod 'a',\n  :git => 'unterminated\n", "Puppetfile:2: a string runs past"},
       }) {
    auto pf = ParsePuppetfile(text, "Puppetfile");
    ASSERT_FALSE(pf.ok()) << text;
    EXPECT_THAT(std::string(pf.status().message()), HasSubstr(said)) << text;
  }
}

class ControlRepoDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fsmove-control-repo-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "repo");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ControlRepoDirTest, AControlRepoHasEnvironmentConfOrAPuppetfileAndIsNoModule) {
  EXPECT_FALSE(LooksLikeControlRepo(dir_ / "repo"));
  std::ofstream(dir_ / "repo" / "Puppetfile") << "mod 'x'\n";
  EXPECT_TRUE(LooksLikeControlRepo(dir_ / "repo"));
  // A module without metadata.json that keeps a Puppetfile for its tests.
  fs::create_directories(dir_ / "repo" / "manifests");
  std::ofstream(dir_ / "repo" / "manifests" / "init.pp") << "class repo {}\n";
  EXPECT_FALSE(LooksLikeControlRepo(dir_ / "repo"));
  std::ofstream(dir_ / "repo" / "environment.conf") << "modulepath = site\n";
  EXPECT_TRUE(LooksLikeControlRepo(dir_ / "repo"));
  std::ofstream(dir_ / "repo" / "metadata.json") << "{}";
  EXPECT_FALSE(LooksLikeControlRepo(dir_ / "repo"));
}

TEST_F(ControlRepoDirTest, ALocalModuleOutsideTheRepoNeedsItsSourceGiven) {
  std::ofstream(dir_ / "repo" / "Puppetfile")
      << "# a module\nmod 'secret', :git => 'file://" << (dir_ / "private").string() << "'\n";
  auto deployed = DeployPuppetfile(dir_ / "repo", (dir_ / "cache").string(), {});
  ASSERT_FALSE(deployed.ok());
  EXPECT_THAT(std::string(deployed.status().message()),
              HasSubstr("Puppetfile:2: mod 'secret' comes from " + (dir_ / "private").string() +
                        " on this machine, outside the control repo"));
  EXPECT_FALSE(fs::exists(dir_ / "cache")) << "nothing deployed";
}

TEST_F(ControlRepoDirTest, APuppetfileOfNoModuleDeploysAnEmptyDirectoryOnceAndAgain) {
  // puppetlabs/control-repo's template: a forge line and commented-out modules.
  if (!FindExecutable("r10k", kSafePath)) GTEST_SKIP() << "no r10k here (tools/bootstrap)";
  std::ofstream(dir_ / "repo" / "Puppetfile")
      << "forge 'https://forge.puppet.com'\n\n#mod 'puppetlabs/stdlib',  '7.0.1'\n";
  for (int run = 0; run < 2; ++run) {
    auto deployed = DeployPuppetfile(dir_ / "repo", (dir_ / "cache").string(), {});
    ASSERT_TRUE(deployed.ok()) << deployed.status();
    EXPECT_TRUE(fs::is_directory(*deployed)) << *deployed;
    EXPECT_TRUE(fs::is_empty(*deployed));
  }
}

TEST_F(ControlRepoDirTest, AForgeModuleAModuleSourceHoldsIsCopiedFromThereWithoutTheNetwork) {
  const fs::path module = dir_ / "sources" / "localmod";
  fs::create_directories(module / "manifests");
  std::ofstream(module / "metadata.json")
      << R"({"name": "fsmovetest-localmod", "version": "1.2.0", "dependencies": []})";
  std::ofstream(module / "manifests" / "init.pp") << "class localmod {}\n";
  fs::create_symlink("/etc/shadow", module / "manifests" / "leak.pp");
  // A statement over two lines, pinned at the version the source has.
  std::ofstream(dir_ / "repo" / "Puppetfile")
      << "forge 'https://forge.puppet.com'\nmod 'fsmovetest/localmod',\n  '1.2.0'\n";
  auto deployed =
      DeployPuppetfile(dir_ / "repo", (dir_ / "cache").string(), {(dir_ / "sources").string()});
  ASSERT_TRUE(deployed.ok()) << deployed.status();
  const fs::path copy = fs::path(*deployed) / "localmod";
  EXPECT_TRUE(fs::is_regular_file(copy / "manifests" / "init.pp"));
  EXPECT_FALSE(fs::is_symlink(copy)) << "a copy, not a link out of the deployment";
  EXPECT_FALSE(fs::exists(fs::symlink_status(copy / "manifests" / "leak.pp")))
      << "a link in the source is not copied";
}

TEST_F(ControlRepoDirTest, AForgeModuleNoSourceHoldsAtItsVersionIsTheForgesAndItsErrorSaysSo) {
  if (!FindExecutable("r10k", kSafePath)) GTEST_SKIP() << "no r10k here (tools/bootstrap)";
  const fs::path module = dir_ / "sources" / "localmod";
  fs::create_directories(module / "manifests");
  std::ofstream(module / "metadata.json")
      << R"({"name": "fsmovetest-localmod", "version": "1.2.0", "dependencies": []})";
  std::ofstream(module / "manifests" / "init.pp") << "class localmod {}\n";
  // Another version than the source's: r10k asks the Forge (unreachable, or no such module).
  std::ofstream(dir_ / "repo" / "Puppetfile") << "mod 'fsmovetest/localmod', '9.9.9'\n";
  auto deployed =
      DeployPuppetfile(dir_ / "repo", (dir_ / "cache").string(), {(dir_ / "sources").string()});
  ASSERT_FALSE(deployed.ok());
  EXPECT_THAT(std::string(deployed.status().message()),
              AllOf(HasSubstr("r10k could not deploy it"),
                    HasSubstr("The Forge modules it was to fetch (fsmovetest/localmod 9.9.9) can "
                              "be given without the network in a --module-source DIR")));
}

TEST_F(ControlRepoDirTest, APuppetfileThatIsALinkIsNotRead) {
  std::ofstream(dir_ / "elsewhere") << "mod 'x'\n";
  fs::create_symlink(dir_ / "elsewhere", dir_ / "repo" / "Puppetfile");
  auto deployed = DeployPuppetfile(dir_ / "repo", (dir_ / "cache").string(), {});
  ASSERT_FALSE(deployed.ok());
  EXPECT_THAT(std::string(deployed.status().message()), HasSubstr("symbolic link"));
}

}  // namespace
}  // namespace fsmove::exec
