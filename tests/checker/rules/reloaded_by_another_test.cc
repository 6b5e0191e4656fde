// The reloaded-by-another rule (src/checker/rules/reloaded_by_another.cc): a unit file needs only a
// daemon-reload after it, not every one.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(ReloadedByAnotherRuleTest, AnotherReloadAfterTheUnit) {
  const std::string unit = "/etc/systemd/system/app.service";
  AnalysisBuilder run;
  run.Block("File[" + unit + "]").Writes(unit);
  run.Block("Exec[reload-a]").Reads(unit);
  run.Block("Exec[reload-b]").Reads(unit);
  auto reload = [](nlohmann::json params) {
    params["command"] = "systemctl daemon-reload";
    return params;
  };
  const std::string file = "File[" + unit + "]";
  RuleHarness notified({{"File", unit, {{"notify", "Exec[reload-a]"}}},
                        {"Exec", "reload-a", reload({{"refreshonly", true}})},
                        {"Exec", "reload-b", reload({})}},
                       run);
  EXPECT_EQ(notified.MaxStrength("reloaded-by-another", checker::kOrderingEvidence, file,
                                 "Exec[reload-b]", unit),
            0);
  EXPECT_EQ(notified.cited(), "unit.etc");
  // No other reload after the unit file: this one is the one it needs.
  RuleHarness alone({{"File", unit},
                     {"Exec", "reload-a", reload({{"refreshonly", true}})},
                     {"Exec", "reload-b", reload({})}},
                    run);
  EXPECT_EQ(alone.MaxStrength("reloaded-by-another", checker::kOrderingEvidence, file,
                              "Exec[reload-b]", unit),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
