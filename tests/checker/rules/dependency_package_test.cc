// The dependency-package rule (src/checker/rules/dependency_package.cc): a file of a dependency
// another Package installs first.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

AnalysisBuilder ClientRun() {
  AnalysisBuilder run;
  run.Block("Package[client]")
      .Writes("/usr/lib/libfoo.so.1")
      .UnpackedFrom("/usr/lib/libfoo.so.1", "libfoo1")
      .Writes("/usr/bin/client")
      .UnpackedFrom("/usr/bin/client", "client");
  run.Block("Exec[use]").Reads("/usr/lib/libfoo.so.1").Reads("/usr/bin/client");
  return run;
}

TEST(DependencyPackageRuleTest, ThePackageNamedBeforeTheConsumer) {
  RuleHarness h(
      {{"Package", "client"}, {"Package", "libfoo1", {{"before", "Exec[use]"}}}, {"Exec", "use"}},
      ClientRun());
  EXPECT_EQ(h.MaxStrength("dependency-package", checker::kOrderingEvidence, "Package[client]",
                          "Exec[use]", "/usr/lib/libfoo.so.1"),
            0);
  // The package's own file.
  EXPECT_EQ(h.MaxStrength("dependency-package", checker::kOrderingEvidence, "Package[client]",
                          "Exec[use]", "/usr/bin/client"),
            kStrongest);
}

TEST(DependencyPackageRuleTest, AnotherPackageBeforeIsWeakNoneIsStrong) {
  EXPECT_EQ(
      RuleHarness(
          {{"Package", "client"}, {"Package", "other", {{"before", "Exec[use]"}}}, {"Exec", "use"}},
          ClientRun())
          .MaxStrength("dependency-package", checker::kOrderingEvidence, "Package[client]",
                       "Exec[use]", "/usr/lib/libfoo.so.1"),
      1);
  EXPECT_EQ(RuleHarness({{"Package", "client"}, {"Exec", "use"}}, ClientRun())
                .MaxStrength("dependency-package", checker::kOrderingEvidence, "Package[client]",
                             "Exec[use]", "/usr/lib/libfoo.so.1"),
            kStrongest);
}

// Both wrote the file (ghoneycutt-ssh): apt-get install openssh-server unpacked
// openssh-client's ssh_config, and the File then wrote Puppet's. Package['openssh-client'] is
// ordered before the File, so the dependency's conffile is there before it in any order.
TEST(DependencyPackageRuleTest, AWriteOfADependencysConffile) {
  AnalysisBuilder run;
  run.Block("Package[openssh-server]")
      .Writes("/etc/ssh/ssh_config")
      .UnpackedFrom("/etc/ssh/ssh_config", "openssh-client");
  run.Block("Package[openssh-client]");
  run.Block("File[ssh_config]").Writes("/etc/ssh/ssh_config");
  RuleHarness ordered({{"Package", "openssh-server"},
                       {"Package", "openssh-client", {{"before", "File[ssh_config]"}}},
                       {"File", "ssh_config", {{"path", "/etc/ssh/ssh_config"}}}},
                      run);
  EXPECT_EQ(
      ordered.MaxStrength("dependency-package", checker::kWriteWriteEvidence,
                          "Package[openssh-server]", "File[ssh_config]", "/etc/ssh/ssh_config"),
      0);
  RuleHarness unordered({{"Package", "openssh-server"},
                         {"Package", "openssh-client"},
                         {"File", "ssh_config", {{"path", "/etc/ssh/ssh_config"}}}},
                        run);
  EXPECT_EQ(
      unordered.MaxStrength("dependency-package", checker::kWriteWriteEvidence,
                            "Package[openssh-server]", "File[ssh_config]", "/etc/ssh/ssh_config"),
      kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
