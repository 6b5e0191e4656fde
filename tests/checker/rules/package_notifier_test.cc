// The package-notifier rule (src/checker/rules/package_notifier.cc): a Package notifies a service
// only with --package-notify.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::PairVerdict;

TEST(PackageNotifierRuleTest, DropsAPackageNotifierUnlessAsked) {
  AnalysisBuilder run;
  run.Block("Package[app]").Writes("/etc/app.conf").Block("File[/etc/other]").Writes("/etc/other");
  run.Block("Service[app]").Reads("/etc/app.conf").Reads("/etc/other");
  std::vector<TestResource> resources = {
      {"Package", "app"}, {"File", "/etc/other"}, {"Service", "app"}};
  RuleHarness plain(resources, run);
  EXPECT_EQ(
      plain.Pair("package-notifier", checker::kNotificationPair, "Package[app]", "Service[app]"),
      PairVerdict::kDropped);
  // A File is a notifier whatever the options say.
  EXPECT_EQ(plain.Pair("package-notifier", checker::kNotificationPair, "File[/etc/other]",
                       "Service[app]"),
            PairVerdict::kKeep);
  RuleHarness asked(resources, run, {.package_notify = true});
  EXPECT_EQ(
      asked.Pair("package-notifier", checker::kNotificationPair, "Package[app]", "Service[app]"),
      PairVerdict::kKeep);
}

}  // namespace
}  // namespace fsmove::testing
