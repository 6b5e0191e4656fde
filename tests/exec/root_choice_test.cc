// --root auto: the pinned root a module's metadata.json asks for.
#include "fsmove/exec/root_choice.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

RootChoice Choose(const std::string& metadata) {
  absl::StatusOr<RootChoice> c = ChooseRoot(metadata, "metadata.json", "debian-12");
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : RootChoice{};
}

std::string Meta(const std::string& puppet, const std::string& releases) {
  std::string m = R"({"name": "acme-demo", "requirements": [)";
  if (!puppet.empty()) m += R"({"name": "puppet", "version_requirement": ")" + puppet + "\"}";
  m += R"(], "operatingsystem_support": [{"operatingsystem": "RedHat"})";
  if (!releases.empty()) {
    m += R"(, {"operatingsystem": "Debian", "operatingsystemrelease": [)" + releases + "]}";
  }
  return m + "]}";
}

TEST(RootChoiceTest, CodeForPuppet8GetsDebian13AndCodeForBothTheDefault) {
  RootChoice c = Choose(Meta(">= 8.0.0 < 9.0.0", R"("12", "13")"));
  EXPECT_EQ(c.name, "debian-13");
  EXPECT_EQ(c.why, "metadata.json asks for puppet >= 8.0.0 < 9.0.0; Debian 12, 13");
  EXPECT_TRUE(c.warning.empty()) << c.warning;
  EXPECT_EQ(Choose(Meta(">= 7.0.0 < 9.0.0", R"("12", "13")")).name, "debian-12");
  EXPECT_EQ(Choose(Meta(">= 6.0.0 < 8.0.0", R"("11", "12")")).name, "debian-12");
}

TEST(RootChoiceTest, TheDebianReleasesListedChooseToo) {
  EXPECT_EQ(Choose(Meta(">= 7.0.0 < 9.0.0", R"("13")")).name, "debian-13");
  EXPECT_EQ(Choose(Meta("", R"("13")")).name, "debian-13");
  EXPECT_EQ(Choose(Meta("", R"("12")")).name, "debian-12");
}

TEST(RootChoiceTest, NothingAskedIsTheDefault) {
  RootChoice none = Choose("");
  EXPECT_EQ(none.name, "debian-12");
  EXPECT_EQ(none.why, "the default (no metadata.json)");
  RootChoice bare = Choose(R"({"name": "acme-demo"})");
  EXPECT_EQ(bare.name, "debian-12");
  EXPECT_NE(bare.why.find("names no Puppet version"), std::string::npos) << bare.why;
  // openvox's range counts as Puppet's.
  EXPECT_EQ(
      Choose(R"({"requirements": [{"name": "openvox", "version_requirement": ">= 8.0.0"}]})").name,
      "debian-13");
}

// No root fits: the preferred one, with a warning that says what was asked and what there is;
// a module whose supported systems leave Debian out is checked with a warning too.
TEST(RootChoiceTest, WhatNoRootFitsIsSaid) {
  RootChoice c = Choose(Meta(">= 9.0.0 < 10.0.0", R"("12")"));
  EXPECT_EQ(c.name, "debian-12");
  EXPECT_NE(c.warning.find("puppet >= 9.0.0 < 10.0.0"), std::string::npos) << c.warning;
  EXPECT_NE(c.warning.find("debian-13: Debian 13, Puppet 8.10.0"), std::string::npos);
  // Puppet 8 fits, Debian 11 does not: the root with the right Puppet, said.
  RootChoice r = Choose(Meta(">= 8.0.0", R"("11")"));
  EXPECT_EQ(r.name, "debian-13");
  EXPECT_FALSE(r.warning.empty());
  RootChoice redhat = Choose(Meta(">= 7.0.0", ""));
  EXPECT_EQ(redhat.name, "debian-12");
  EXPECT_NE(redhat.warning.find("does not name Debian"), std::string::npos) << redhat.warning;
}

TEST(RootChoiceTest, ABadRangeIsAnErrorNamingTheFile) {
  absl::StatusOr<RootChoice> c =
      ChooseRoot(Meta(">= seven", ""), "mods/demo/metadata.json", "debian-12");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("mods/demo/metadata.json"), std::string::npos) << c.status();
  EXPECT_FALSE(ChooseRoot("[1, 2]", "metadata.json", "debian-12").ok());
}

}  // namespace
}  // namespace fsmove::exec

namespace fsmove::exec {
namespace {

// A control repo's modules: the root every one that asks admits, the default first; else the
// one the most admit, with the others named.
TEST(RootChoiceTest, AControlReposModulesChooseTogether) {
  RootChoice c = ChooseRootForModules(
      {{"acme-any 1.0.0", Meta("", "")}, {"acme-both 2.0.0", Meta(">= 7.0.0 < 9.0.0", "")}},
      "the control repo's modules", "debian-12");
  EXPECT_EQ(c.name, "debian-12");
  EXPECT_EQ(c.why, "every one of the control repo's modules that asks admits it (1 of them)");
  EXPECT_EQ(c.warning, "");
  c = ChooseRootForModules({{"acme-both 2.0.0", Meta(">= 7.0.0 < 9.0.0", "")},
                            {"acme-eight 3.0.0", Meta(">= 8.0.0 < 9.0.0", "")}},
                           "the control repo's modules", "debian-12");
  EXPECT_EQ(c.name, "debian-13");
  EXPECT_EQ(c.warning, "");
  // Old modules (Puppet < 7) beside one for Puppet 7 and 8: debian-12, the others named.
  c = ChooseRootForModules({{"puppetlabs-stdlib 6.2.0", Meta(">= 5.5.10 < 7.0.0", "")},
                            {"puppetlabs-concat 6.2.0", Meta(">= 5.5.10 < 7.0.0", "")},
                            {"acme-both 2.0.0", Meta(">= 7.0.0 < 9.0.0", "")}},
                           "the control repo's modules", "debian-12");
  EXPECT_EQ(c.name, "debian-12");
  EXPECT_EQ(c.why,
            "no pinned root is what all of the control repo's modules ask for: 1 of 3 "
            "admit debian-12");
  EXPECT_EQ(
      c.warning,
      "2 of the control repo's modules ask for what debian-12 is not: puppetlabs-stdlib 6.2.0 "
      "asks for puppet >= 5.5.10 < 7.0.0, puppetlabs-concat 6.2.0 asks for puppet >= 5.5.10 "
      "< 7.0.0; checked on it anyway, as no pinned root admits more of them (--root names "
      "another)");
  // A module for Puppet 7 whose metadata lists only older Debian releases misses the root by
  // its release alone: the warning names only that.
  c = ChooseRootForModules({{"treydock-conman 1.0.1", Meta(">= 6.0.0 < 8.0.0", R"("9", "10")")},
                            {"acme-both 2.0.0", Meta(">= 7.0.0 < 9.0.0", "")}},
                           "the --modulepath modules", "debian-12");
  EXPECT_EQ(c.name, "debian-12");
  EXPECT_EQ(c.warning,
            "1 of the --modulepath modules ask for what debian-12 is not: treydock-conman 1.0.1 "
            "asks for Debian 10, 9; checked on it anyway, as no pinned root admits more of them "
            "(--root names another)");
  // None asks, or what does not parse: the default.
  c = ChooseRootForModules({{"acme-bad 1.0.0", Meta("nonsense", "")}}, "the control repo's modules",
                           "debian-12");
  EXPECT_EQ(c.name, "debian-12");
  EXPECT_EQ(c.why,
            "the default (the control repo's modules ask for no Puppet version or Debian "
            "release)");
}

}  // namespace
}  // namespace fsmove::exec
