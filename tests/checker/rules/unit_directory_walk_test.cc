// The unit-directory-walk rule (src/checker/rules/unit_directory_walk.cc): a Package's scripts
// walking the unit directories need no unit.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(UnitDirectoryWalkRuleTest, APackageLookingAtAUnitNeedsNone) {
  const std::string unit = "/etc/systemd/system/app.service";
  AnalysisBuilder run;
  run.Block("File[" + unit + "]").Writes(unit);
  run.Block("Package[helper]").LooksUp(unit);
  run.Block("Package[app]").Reads(unit);
  run.Block("Exec[check]").LooksUp(unit);
  RuleHarness h({{"File", unit}, {"Package", "helper"}, {"Package", "app"}, {"Exec", "check"}},
                run);
  const std::string file = "File[" + unit + "]";
  EXPECT_EQ(h.MaxStrength("unit-directory-walk", checker::kOrderingEvidence, file,
                          "Package[helper]", unit),
            0);
  EXPECT_EQ(h.cited(), "unit.etc");
  // What a package reads of a unit is content; an Exec's look is not a package's walk.
  EXPECT_EQ(
      h.MaxStrength("unit-directory-walk", checker::kOrderingEvidence, file, "Package[app]", unit),
      kStrongest);
  EXPECT_EQ(
      h.MaxStrength("unit-directory-walk", checker::kOrderingEvidence, file, "Exec[check]", unit),
      kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
