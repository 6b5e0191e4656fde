// Planning the removal of the packages a catalog installs that the OS root already has
// (src/exec/preinstalled_packages.cc). tests/data/dpkg-query-debian-12.txt is the pinned
// debian-12 root's own `dpkg-query -W -f=kDpkgQueryFormat` output.
#include "fsmove/exec/preinstalled_packages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fsmove::exec {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

std::vector<InstalledPackage> DebianTwelveRoot() {
  std::ifstream in("tests/data/dpkg-query-debian-12.txt");
  std::stringstream text;
  text << in.rdbuf();
  return ParseDpkgQuery(text.str());
}

TEST(PreinstalledPackagesTest, TheRootsOwnDpkgQueryOutputParses) {
  std::vector<InstalledPackage> root = DebianTwelveRoot();
  ASSERT_EQ(root.size(), 203u);
  auto cron = std::find_if(root.begin(), root.end(), [](auto& p) { return p.name == "cron"; });
  ASSERT_NE(cron, root.end());
  EXPECT_EQ(cron->priority, "important");
  EXPECT_FALSE(cron->essential);
  EXPECT_THAT(cron->depends, Contains(ElementsAre("cron-daemon-common")));
  EXPECT_THAT(cron->depends, Contains(ElementsAre("usrmerge", "usr-is-merged")).Times(0));
  EXPECT_THAT(cron->provides, ElementsAre("cron-daemon"));
  auto logrotate =
      std::find_if(root.begin(), root.end(), [](auto& p) { return p.name == "logrotate"; });
  ASSERT_NE(logrotate, root.end());
  EXPECT_THAT(logrotate->depends,
              Contains(ElementsAre("cron", "anacron", "cron-daemon", "systemd-sysv")));
}

TEST(PreinstalledPackagesTest, TheCatalogsPackagesGoWithWhatOnlyTheyNeed) {
  RemovalPlan plan =
      PlanRemoval({"cron", "libc6", "memcached", "nftables", "passwd"}, DebianTwelveRoot());
  // cron-daemon-common ships /etc/crontab: only cron needs it. adduser stays (ifupdown needs
  // it), and so does libpam0g (passwd, required). memcached is not in the root.
  EXPECT_THAT(plan.remove, Contains("cron"));
  EXPECT_THAT(plan.remove, Contains("cron-daemon-common"));
  EXPECT_THAT(plan.remove, Contains("nftables"));
  EXPECT_THAT(plan.remove, Contains("libnftables1"));
  for (const char* stays : {"adduser", "libpam0g", "libc6", "passwd", "memcached", "logrotate"}) {
    EXPECT_THAT(plan.remove, Not(Contains(stays))) << stays;
  }
  EXPECT_THAT(plan.kept, ElementsAre("libc6: the sandbox needs it", "passwd: priority required"));
  EXPECT_TRUE(std::is_sorted(plan.remove.begin(), plan.remove.end()));
}

TEST(PreinstalledPackagesTest, NothingTheCatalogDoesNotInstallGoes) {
  EXPECT_TRUE(PlanRemoval({}, DebianTwelveRoot()).remove.empty());
  EXPECT_TRUE(PlanRemoval({"memcached"}, DebianTwelveRoot()).remove.empty());
}

TEST(PreinstalledPackagesTest, WhatACatalogInstalls) {
  auto installs = CatalogInstalls(R"({"resources": [
    {"type": "Package", "title": "cron", "parameters": {}},
    {"type": "Package", "title": "nft", "parameters": {"name": "nftables:amd64",
                                                        "ensure": "latest"}},
    {"type": "Package", "title": "lr", "parameters": {"name": "logrotate", "ensure": "3.21.0-1"}},
    {"type": "Package", "title": "gone", "parameters": {"ensure": "absent"}},
    {"type": "Package", "title": "purged", "parameters": {"ensure": "purged"}},
    {"type": "Package", "title": "gem", "parameters": {"provider": "gem"}},
    {"type": "Package", "title": "local", "parameters": {"source": "/tmp/x.deb"}},
    {"type": "Package", "title": "-oDebug::X=1", "parameters": {}},
    {"type": "File", "title": "/etc/crontab", "parameters": {}}]})");
  ASSERT_TRUE(installs.ok()) << installs.status();
  EXPECT_THAT(*installs, ElementsAre("cron", "logrotate", "nftables"));
  EXPECT_FALSE(CatalogInstalls("[1, 2]").ok());
  EXPECT_FALSE(CatalogInstalls("{not json").ok());
}

TEST(PreinstalledPackagesTest, AptsSimulationNamesWhatItRemoves) {
  // apt-get -s purge cron cron-daemon-common logrotate, in the debian-12 root.
  EXPECT_THAT(SimulatedRemovals("Reading package lists...\n"
                                "The following packages will be REMOVED:\n"
                                "  cron* cron-daemon-common*\n"
                                "Purg cron [3.0pl1-162]\n"
                                "Purg cron-daemon-common [3.0pl1-162]\n"
                                "Remv logrotate [3.21.0-1]\n"),
              ElementsAre("cron", "cron-daemon-common", "logrotate"));
}

TEST(PreinstalledPackagesTest, OnlyDebianPackageNamesReachApt) {
  EXPECT_TRUE(IsDebianPackageName("libstdc++6"));
  EXPECT_TRUE(IsDebianPackageName("cron-daemon-common"));
  for (const char* bad : {"-y", "x", "Cron", "a b", "../x", "--purge"}) {
    EXPECT_FALSE(IsDebianPackageName(bad)) << bad;
  }
}

}  // namespace
}  // namespace fsmove::exec
