// What --confirm and --idempotence add to the reports, on a real recorded run: a confirmed
// finding (text CONFIRMED, JSON confirmation, SARIF error), an unconfirmed one (SARIF
// warning), and resources that are not idempotent (text, JSON, SARIF, JUnit, exit count).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "fsmove/report/junit.h"
#include "fsmove/report/sarif.h"
#include "recorded_check.h"

namespace fsmove::testing {
namespace {

using ::testing::HasSubstr;

report::RunSummary WithIdempotence() {
  report::RunSummary run;
  run.target = "bad.pp";
  run.confirm = true;
  run.idempotence.checked = true;
  run.idempotence.exit_codes = {0, 0};
  run.idempotence.resources = {
      {"Exec[use config]",
       "changes-every-apply",
       {"returns: executed successfully"},
       {"returns: executed successfully"}},
      {"File[/generated/by/a/define]", "converged-on-third-apply", {"content: changed"}, {}}};
  return run;
}

TEST(ReplayReports, ConfirmedFindingAndNotIdempotentResources) {
  RecordedCheck rec = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(rec.catalog);
  ASSERT_EQ(rec.result.findings.size(), 1u);
  checker::Confirmation& c = rec.result.findings[0].confirmation;
  c.attempted = c.confirmed = true;
  c.forced = "Exec[use config] before File[/etc/app/app.conf]";
  c.differences = {"Exec[use config] failed: cat: /etc/app/app.conf: No such file or directory"};
  report::RunSummary run = WithIdempotence();
  report::FindingsContext ctx = rec.Context();
  ctx.run = &run;
  EXPECT_EQ(ctx.ReportedCount(), 3u);
  EXPECT_EQ(ctx.ReportedCount(/*confirmed_only=*/true), 3u);

  std::ostringstream text;
  report::WriteFindingsText(text, ctx);
  EXPECT_THAT(text.str(), HasSubstr("Missing ordering relationship (MOR) CONFIRMED\n"));
  EXPECT_THAT(text.str(), HasSubstr("confirmed: a replay forcing Exec[use config] before "
                                    "File[/etc/app/app.conf] did otherwise:\n    - Exec[use "
                                    "config] failed: cat:"));
  EXPECT_THAT(text.str(), HasSubstr("Not idempotent (NI)\n  Exec[use config] ("));
  EXPECT_THAT(text.str(), HasSubstr("): changes on every apply\n    second apply: returns: "
                                    "executed successfully\n    third apply: returns:"));
  EXPECT_THAT(text.str(), HasSubstr("File[/generated/by/a/define]: changed again on the second "
                                    "apply, converged on the third"));
  EXPECT_THAT(text.str(), HasSubstr("(1 confirmed by a replay), 2 not idempotent\n"));

  nlohmann::json j = report::FindingsToJson(ctx);
  ASSERT_EQ(j["faults"].size(), 3u);
  EXPECT_EQ(j["faults"][0]["confirmed"], true);
  EXPECT_EQ(j["faults"][0]["confirmation"]["forced"], c.forced);
  EXPECT_EQ(j["faults"][1]["kind"], "NI");
  EXPECT_EQ(j["faults"][1]["rule"], "not-idempotent");
  EXPECT_EQ(j["faults"][1]["source"]["resource"], "Exec[use config]");
  EXPECT_TRUE(j["faults"][1]["source"]["line"].is_number());  // from the catalog
  EXPECT_TRUE(j["faults"][2]["source"]["line"].is_null());    // not in the catalog
  EXPECT_EQ(j["faults"][1]["fingerprint"].get<std::string>().size(), 32u);
  EXPECT_EQ(j["summary"]["NI"], 2);
  EXPECT_EQ(j["summary"]["confirmed"], 1);

  nlohmann::json sarif = report::FindingsToSarif(ctx, {});
  const nlohmann::json& results = sarif["runs"][0]["results"];
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["level"], "error");
  EXPECT_THAT(results[0]["message"]["text"].get<std::string>(),
              HasSubstr("Confirmed: a replay forcing"));
  EXPECT_EQ(results[1]["ruleId"], "not-idempotent");
  EXPECT_EQ(results[1]["ruleIndex"], 2);
  EXPECT_EQ(results[1]["level"], "error");
  EXPECT_EQ(sarif["runs"][0]["properties"]["summary"]["NI"], 2);

  std::ostringstream xml;
  report::WriteFindingsJunit(xml, ctx, {});
  // The exec fails for the MOR; its NI is in the same failure. The generated file is a case.
  EXPECT_THAT(
      xml.str(),
      HasSubstr("Not idempotent (not-idempotent): Exec[use config] changes on every apply"));
  EXPECT_THAT(xml.str(), HasSubstr("name=\"File[/generated/by/a/define]\" time=\"0\">\n      "
                                   "<failure type=\"not-idempotent\""));
}

TEST(ReplayReports, AnUnconfirmedFindingIsAWarningAndFailsOnlyOnAny) {
  RecordedCheck rec = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(rec.catalog);
  checker::Confirmation& c = rec.result.findings[0].confirmation;
  c.attempted = true;
  c.forced = "Exec[use config] before File[/etc/app/app.conf]";
  c.reason = "here the order makes no visible difference";
  report::RunSummary run;
  run.confirm = true;
  report::FindingsContext ctx = rec.Context();
  ctx.run = &run;
  EXPECT_EQ(ctx.ReportedCount(), 1u);
  EXPECT_EQ(ctx.ReportedCount(/*confirmed_only=*/true), 0u);
  std::ostringstream text;
  report::WriteFindingsText(text, ctx);
  EXPECT_THAT(text.str(), HasSubstr("(MOR) (not confirmed)\n"));
  EXPECT_THAT(text.str(), HasSubstr("not confirmed: a replay forcing Exec[use config] before "
                                    "File[/etc/app/app.conf]: here the order makes no visible "
                                    "difference\n"));
  nlohmann::json sarif = report::FindingsToSarif(ctx, {});
  EXPECT_EQ(sarif["runs"][0]["results"][0]["level"], "warning");
  EXPECT_EQ(report::FindingsToJson(ctx)["faults"][0]["confirmed"], false);
}

}  // namespace
}  // namespace fsmove::testing
