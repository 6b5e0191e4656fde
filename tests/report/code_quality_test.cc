// GitLab Code Quality on real recorded runs: the fields GitLab requires, paths relative to the
// source root, severities, and what is left out (suppressed findings).
#include "fsmove/report/code_quality.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fsmove/gating/suppressions.h"
#include "recorded_check.h"

namespace fsmove::testing {
namespace {

using ::testing::HasSubstr;

std::string RootOf(const catalog::Resource& r, const std::string& suffix) {
  return r.file.substr(0, r.file.size() - suffix.size() - 1);
}

TEST(CodeQualityTest, MissingOrderingAndNotifier) {
  RecordedCheck mor = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(mor.catalog);
  const checker::Finding& f = mor.result.findings.at(0);
  const catalog::Resource& target = mor.catalog->resource(f.target);
  report::SourceRoot root =
      report::SourceRoot::FromDirectory(RootOf(target, "fixtures/faults/configure-use/bad.pp"));
  nlohmann::json issues = report::FindingsToCodeQuality(mor.Context(), root);
  ASSERT_TRUE(issues.is_array());
  ASSERT_EQ(issues.size(), 1u);
  const nlohmann::json& i = issues[0];
  EXPECT_EQ(i["type"], "issue");
  EXPECT_EQ(i["check_name"], "missing-ordering");
  EXPECT_EQ(i["fingerprint"], f.fingerprint);
  EXPECT_EQ(i["severity"], "major");
  EXPECT_EQ(i["location"]["path"], "fixtures/faults/configure-use/bad.pp");
  EXPECT_EQ(i["location"]["lines"]["begin"], 15);
  EXPECT_THAT(i["description"].get<std::string>(),
              HasSubstr("Exec[use config] must be applied after File[/etc/app/app.conf] "
                        "(/etc/app/app.conf). Fix: add `require"));

  RecordedCheck mn = CheckRecorded("faults-config-service-bad");
  ASSERT_TRUE(mn.catalog);
  nlohmann::json mn_issues = report::FindingsToCodeQuality(mn.Context(), {});
  ASSERT_EQ(mn_issues.size(), 1u);
  EXPECT_EQ(mn_issues[0]["check_name"], "missing-notifier");
  EXPECT_EQ(mn_issues[0]["severity"], "minor");
  // Outside the root: the manifest's absolute path.
  EXPECT_EQ(mn_issues[0]["location"]["path"].get<std::string>().front(), '/');
}

TEST(CodeQualityTest, Severities) {
  checker::Finding f;
  EXPECT_EQ(report::CodeQualitySeverity(f), "major");
  f.kind = checker::FaultKind::kMissingNotifier;
  EXPECT_EQ(report::CodeQualitySeverity(f), "minor");
  f.confirmation.attempted = f.confirmation.confirmed = true;
  EXPECT_EQ(report::CodeQualitySeverity(f), "critical");
  f.confirmation = {};
  f.confidence = checker::Confidence::kLow;
  EXPECT_EQ(report::CodeQualitySeverity(f), "info");
}

TEST(CodeQualityTest, SuppressedFindingsAreLeftOut) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  gating::Suppressions s;
  s.findings.resize(1);
  s.findings[0].kind = gating::SuppressionKind::kBaseline;
  s.findings[0].justification = "in baseline b.json";
  s.by_baseline = 1;
  EXPECT_TRUE(report::FindingsToCodeQuality(run.Context(&s), {}).empty());
}

}  // namespace
}  // namespace fsmove::testing
