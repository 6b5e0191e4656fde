// The package-indexes-unchanged rule (src/checker/rules/package_indexes_unchanged.cc): an apt
// update's caches read by an install are weak when the update wrote no package index and no
// resource changed a sources list or dpkg's architectures; strong otherwise.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kOrderingEvidence;
using checker::kStrongest;

constexpr std::string_view kCache = "/var/cache/apt/srcpkgcache.bin";
constexpr std::string_view kTranslation =
    "/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_i18n_Translation-en";
constexpr std::string_view kIndex =
    "/var/lib/apt/lists/repo.example_dists_stable_main_binary-amd64_Packages.lz4";

const std::vector<TestResource> kUpdateAndInstall = {
    {"Exec", "apt_update", {{"command", "/usr/bin/apt-get update"}, {"refreshonly", "true"}}},
    {"Package", "gnupg"},
    {"File",
     "/etc/apt/sources.list.d/repo.list",
     {{"content", "deb http://repo.example stable main"}}},
};

// The update renewed a translation and rebuilt the caches; nothing else changed (amavisd:
// puppetlabs-apt's update refreshed by its empty preferences file).
TEST(PackageIndexesUnchangedRuleTest, WeakWhenTheUpdateWroteNoIndexAndNoSourceChanged) {
  AnalysisBuilder run;
  run.Block("Exec[apt_update]").Writes(kTranslation).Writes(kCache);
  run.Block("Package[gnupg]").Reads(kTranslation).Reads(kCache);
  RuleHarness h(kUpdateAndInstall, run);
  EXPECT_EQ(h.MaxStrength("package-indexes-unchanged", kOrderingEvidence, "Exec[apt_update]",
                          "Package[gnupg]", std::string(kCache)),
            1);
  EXPECT_EQ(h.cited(), "apt.packages-index");
  EXPECT_EQ(h.MaxStrength("package-indexes-unchanged", kOrderingEvidence, "Exec[apt_update]",
                          "Package[gnupg]", std::string(kTranslation)),
            1);
}

// lldpd: the update downloaded the index of the source the module added.
TEST(PackageIndexesUnchangedRuleTest, StrongWhenTheUpdateWroteAPackageIndex) {
  AnalysisBuilder run;
  run.Block("Exec[apt_update]").Renames(std::string(kIndex) + ".partial", kIndex).Writes(kCache);
  run.Block("Package[gnupg]").Reads(kCache);
  RuleHarness h(kUpdateAndInstall, run);
  EXPECT_EQ(h.MaxStrength("package-indexes-unchanged", kOrderingEvidence, "Exec[apt_update]",
                          "Package[gnupg]", std::string(kCache)),
            kStrongest);
}

// influxdb: the catalog added a source whose index this run could not fetch; on a machine that
// reaches it the install needs the update.
TEST(PackageIndexesUnchangedRuleTest, StrongWhenAResourceChangedASourcesList) {
  AnalysisBuilder run;
  run.Block("File[/etc/apt/sources.list.d/repo.list]").Writes("/etc/apt/sources.list.d/repo.list");
  run.Block("Exec[apt_update]").Reads("/etc/apt/sources.list.d/repo.list").Writes(kCache);
  run.Block("Package[gnupg]").Reads(kCache);
  RuleHarness h(kUpdateAndInstall, run);
  EXPECT_EQ(h.MaxStrength("package-indexes-unchanged", kOrderingEvidence, "Exec[apt_update]",
                          "Package[gnupg]", std::string(kCache)),
            kStrongest);
}

// A foreign architecture added by an Exec (dpkg --add-architecture) makes the next update
// fetch new indexes.
TEST(PackageIndexesUnchangedRuleTest, StrongWhenDpkgArchitecturesChanged) {
  AnalysisBuilder run;
  run.Block("Exec[add-i386]").Writes("/var/lib/dpkg/arch");
  run.Block("Exec[apt_update]").Writes(kCache);
  run.Block("Package[gnupg]").Reads(kCache);
  RuleHarness h({{"Exec", "add-i386", {{"command", "/usr/bin/dpkg --add-architecture i386"}}},
                 {"Exec", "apt_update", {{"command", "/usr/bin/apt-get update"}}},
                 {"Package", "gnupg"}},
                run);
  EXPECT_EQ(h.MaxStrength("package-indexes-unchanged", kOrderingEvidence, "Exec[apt_update]",
                          "Package[gnupg]", std::string(kCache)),
            kStrongest);
}

// Only apt's caches and lists, only for an install: a file the update's Exec wrote elsewhere,
// and the update's caches read by another Exec, keep their strength.
TEST(PackageIndexesUnchangedRuleTest, OnlyAptStateReadByAPackage) {
  AnalysisBuilder run;
  run.Block("Exec[apt_update]").Writes(kCache).Writes("/etc/app.conf");
  run.Block("Package[gnupg]").Reads("/etc/app.conf");
  run.Block("Exec[apt-cache]").Reads(kCache);
  RuleHarness h({{"Exec", "apt_update", {{"command", "/usr/bin/apt-get update"}}},
                 {"Package", "gnupg"},
                 {"Exec", "apt-cache", {{"command", "/usr/bin/apt-cache policy"}}}},
                run);
  EXPECT_EQ(h.MaxStrength("package-indexes-unchanged", kOrderingEvidence, "Exec[apt_update]",
                          "Package[gnupg]", "/etc/app.conf"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength("package-indexes-unchanged", kOrderingEvidence, "Exec[apt_update]",
                          "Exec[apt-cache]", std::string(kCache)),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
