// The overwritten-before-read rule (src/checker/rules/overwritten_before_read.cc): another writer
// replaces the content before it is read.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

std::vector<TestResource> Writers(bool ordered) {
  nlohmann::json first = nlohmann::json::object(), second = nlohmann::json::object();
  if (ordered) {
    first["before"] = "Exec[rewrite]";
    second["before"] = nlohmann::json::array({"Exec[use]", "Service[app]"});
  }
  return {{"File", "/etc/app.conf", first},
          {"Exec", "rewrite", second},
          {"File_line", "tweak"},
          {"Exec", "use"},
          {"Service", "app"}};
}

AnalysisBuilder Rewritten(std::string_view between) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block(between).Writes("/etc/app.conf");
  run.Block("Exec[use]").Reads("/etc/app.conf");
  run.Block("Service[app]").Reads("/etc/app.conf");
  return run;
}

TEST(OverwrittenBeforeReadRuleTest, AWholeWriterBetween) {
  RuleHarness h(Writers(true), Rewritten("Exec[rewrite]"));
  EXPECT_EQ(h.MaxStrength("overwritten-before-read", checker::kOrderingEvidence,
                          "File[/etc/app.conf]", "Exec[use]", "/etc/app.conf"),
            0);
  EXPECT_EQ(h.MaxStrength("overwritten-before-read", checker::kNotificationEvidence,
                          "File[/etc/app.conf]", "Service[app]", "/etc/app.conf"),
            0);
  // Not ordered between them: the reader may get the first version.
  RuleHarness unordered(Writers(false), Rewritten("Exec[rewrite]"));
  EXPECT_EQ(unordered.MaxStrength("overwritten-before-read", checker::kOrderingEvidence,
                                  "File[/etc/app.conf]", "Exec[use]", "/etc/app.conf"),
            kStrongest);
}

TEST(OverwrittenBeforeReadRuleTest, AnEditOfOneLineKeepsTheRest) {
  std::vector<TestResource> resources = Writers(false);
  resources[0].params["before"] = "File_line[tweak]";
  resources[2].params["before"] = "Exec[use]";
  RuleHarness h(resources, Rewritten("File_line[tweak]"));
  EXPECT_EQ(h.MaxStrength("overwritten-before-read", checker::kOrderingEvidence,
                          "File[/etc/app.conf]", "Exec[use]", "/etc/app.conf"),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
