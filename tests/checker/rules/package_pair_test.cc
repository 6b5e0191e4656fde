// The package-pair rule (src/checker/rules/package_pair.cc): apt and dpkg order two Packages
// themselves.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::PairVerdict;

TEST(PackagePairRuleTest, DropsTwoPackagesOnly) {
  AnalysisBuilder run;
  run.Block("Package[a]").Writes("/usr/bin/a").Block("Package[b]").Reads("/usr/bin/a");
  run.Block("Exec[use]").Reads("/usr/bin/a");
  RuleHarness h({{"Package", "a"}, {"Package", "b"}, {"Exec", "use"}}, run);
  EXPECT_EQ(h.Pair("package-pair", checker::kOrderingPair, "Package[a]", "Package[b]"),
            PairVerdict::kPackageManagerPair);
  EXPECT_EQ(h.Pair("package-pair", checker::kWriteWritePair, "Package[a]", "Package[b]"),
            PairVerdict::kPackageManagerPair);
  EXPECT_EQ(h.Pair("package-pair", checker::kOrderingPair, "Package[a]", "Exec[use]"),
            PairVerdict::kKeep);
}

}  // namespace
}  // namespace fsmove::testing
