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

}  // namespace
}  // namespace fsmove::testing
