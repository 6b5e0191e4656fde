// SARIF output on real recorded runs: the fields GitHub code scanning needs, locations
// relative to the source root (or absolute file URIs outside it), the related location,
// fingerprints, and suppressions/baselineState. Schema validity is checked separately with a
// real validator (tests/ci/sarif_schema_test.sh).
#include "fsmove/report/sarif.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hand_made_patch.h"
#include "recorded_check.h"

namespace fsmove::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The directory the catalog's manifests were compiled in ("/work/main" for these traces),
// found from the catalog itself so the test holds wherever the traces were recorded.
std::string RecordedRoot(const catalog::Catalog& cat, const std::string& file_suffix) {
  for (const auto& r : cat.resources()) {
    if (r.file.size() > file_suffix.size() && r.file.ends_with(file_suffix)) {
      return r.file.substr(0, r.file.size() - file_suffix.size() - 1);
    }
  }
  ADD_FAILURE() << "no manifest ending in " << file_suffix;
  return "/";
}

TEST(SarifTest, ResultForARealMissingOrdering) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 1u);
  std::string root = RecordedRoot(*run.catalog, "fixtures/faults/configure-use/bad.pp");
  report::SarifOptions o{report::SourceRoot::FromDirectory(root)};
  nlohmann::json sarif = report::FindingsToSarif(run.Context(), o);

  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_THAT(sarif["$schema"].get<std::string>(), HasSubstr("sarif-schema-2.1.0.json"));
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const nlohmann::json& r = sarif["runs"][0];
  const nlohmann::json& driver = r["tool"]["driver"];
  EXPECT_EQ(driver["name"], "fsmove");
  EXPECT_EQ(driver["version"], FSMOVE_VERSION);
  EXPECT_THAT(driver["informationUri"].get<std::string>(), StartsWith("https://"));
  ASSERT_EQ(driver["rules"].size(), 3u);
  EXPECT_EQ(driver["rules"][0]["id"], "missing-ordering");
  EXPECT_EQ(driver["rules"][1]["id"], "missing-notifier");
  EXPECT_EQ(driver["rules"][2]["id"], "not-idempotent");
  for (const auto& rule : driver["rules"]) {
    EXPECT_FALSE(rule["help"]["text"].get<std::string>().empty());
    EXPECT_LE(rule["fullDescription"]["text"].get<std::string>().size(), 1000u);
  }
  EXPECT_THAT(driver["rules"][0]["help"]["text"].get<std::string>(), HasSubstr("require =>"));
  EXPECT_THAT(driver["rules"][1]["help"]["text"].get<std::string>(), HasSubstr("subscribe =>"));

  EXPECT_EQ(r["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file://" + root + "/");
  ASSERT_EQ(r["results"].size(), 1u);
  const nlohmann::json& res = r["results"][0];
  EXPECT_EQ(res["ruleId"], "missing-ordering");
  EXPECT_EQ(res["ruleIndex"], 0);
  EXPECT_EQ(res["level"], "error");
  std::string text = res["message"]["text"];
  EXPECT_THAT(text, StartsWith("Exec\\[use config\\] must be applied after "
                               "[File\\[/etc/app/app.conf\\]](1)"));
  EXPECT_THAT(text, HasSubstr("/etc/app/app.conf"));
  EXPECT_THAT(text, HasSubstr("Fix: add `require => File\\['/etc/app/app.conf'\\]`"));

  // The primary location is the target (where the fix goes), relative to the root.
  const nlohmann::json& loc = res["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "fixtures/faults/configure-use/bad.pp");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  const catalog::Resource& target = run.catalog->resource(run.result.findings[0].target);
  const catalog::Resource& source = run.catalog->resource(run.result.findings[0].source);
  EXPECT_EQ(loc["region"]["startLine"], *target.line);
  EXPECT_EQ(res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], "Exec[use config]");
  ASSERT_EQ(res["relatedLocations"].size(), 1u);
  EXPECT_EQ(res["relatedLocations"][0]["id"], 1);
  EXPECT_EQ(res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], *source.line);

  const std::string& fp = run.result.findings[0].fingerprint;
  EXPECT_EQ(res["partialFingerprints"]["fsmoveFinding/v1"], fp);
  EXPECT_EQ(res["partialFingerprints"]["primaryLocationLineHash"], fp);
  EXPECT_EQ(res["suppressions"], nlohmann::json::array());
  EXPECT_FALSE(res.contains("baselineState"));
  EXPECT_EQ(res["properties"]["paths"], nlohmann::json::array({"/etc/app/app.conf"}));
  EXPECT_EQ(r["properties"]["summary"]["MOR"], 1);
}

TEST(SarifTest, OutsideTheRootLocationsAreAbsoluteFileUris) {
  RecordedCheck run = CheckRecorded("faults-config-service-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 1u);
  nlohmann::json sarif = report::FindingsToSarif(
      run.Context(), {report::SourceRoot::FromDirectory("/somewhere/else")});
  const nlohmann::json& res = sarif["runs"][0]["results"][0];
  EXPECT_EQ(res["ruleId"], "missing-notifier");
  EXPECT_EQ(res["level"], "warning");
  const catalog::Resource& target = run.catalog->resource(run.result.findings[0].target);
  const nlohmann::json& artifact = res["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(artifact["uri"], "file://" + target.file);
  EXPECT_FALSE(artifact.contains("uriBaseId"));

  nlohmann::json no_root = report::FindingsToSarif(run.Context(), {});
  EXPECT_FALSE(no_root["runs"][0].contains("originalUriBaseIds"));
  EXPECT_EQ(no_root["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
                   ["uri"],
            "file://" + target.file);
}

TEST(SarifTest, SuppressedFindingsAndBaselineState) {
  RecordedCheck run = CheckRecorded("faults-generate-use-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 2u);
  auto baseline = gating::Baseline::Parse(
      gating::BaselineToJson({&run.result.findings[0]}, *run.catalog).dump(), "b.json");
  ASSERT_TRUE(baseline.ok());
  gating::Suppressions s = gating::Suppress(run.result, *run.catalog, {}, &*baseline);

  report::FindingsContext c = run.Context(&s);
  nlohmann::json hidden = report::FindingsToSarif(c, {});
  const nlohmann::json& results = hidden["runs"][0]["results"];
  ASSERT_EQ(results.size(), 1u);  // GitHub would open an alert for a suppressed result
  EXPECT_EQ(results[0]["baselineState"], "new");
  EXPECT_EQ(results[0]["partialFingerprints"]["fsmoveFinding/v1"],
            run.result.findings[1].fingerprint);
  EXPECT_EQ(hidden["runs"][0]["properties"]["summary"]["suppressed"], 1);
  EXPECT_EQ(hidden["runs"][0]["properties"]["baseline"]["suppressed"], 1);

  c.show_suppressed = true;
  nlohmann::json shown = report::FindingsToSarif(c, {});
  const nlohmann::json& all = shown["runs"][0]["results"];
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]["baselineState"], "unchanged");
  ASSERT_EQ(all[0]["suppressions"].size(), 1u);
  EXPECT_EQ(all[0]["suppressions"][0]["kind"], "external");
  EXPECT_EQ(all[0]["suppressions"][0]["status"], "accepted");
  EXPECT_EQ(all[0]["suppressions"][0]["justification"], "in baseline b.json");
  EXPECT_EQ(all[1]["suppressions"], nlohmann::json::array());
}

TEST(SarifTest, MessageEscaping) {
  EXPECT_EQ(report::SarifMessageEscape("File['/a'] {x} \\ y"), "File\\['/a'\\] {{x}} \\\\ y");
  EXPECT_EQ(report::SarifMessageEscape("plain"), "plain");
}

}  // namespace
}  // namespace fsmove::testing

namespace fsmove::testing {
namespace {

TEST(SarifTest, FixesFromThePatch) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 1u);
  checker::Finding& f = run.result.findings[0];
  f.patch = RequirePatch(run, f);
  // A second edit in the same file: a replacement of two lines.
  checker::FixEdit e2 = f.patch->edits[0];
  e2.line = 10;
  e2.end_line = 12;
  e2.text = "file { '/etc/app/app.conf':\n  ensure => file,\n";
  e2.old_text = "file { '/etc/app/app.conf':\n  ensure  => file,\n";
  f.patch->edits.insert(f.patch->edits.begin(), e2);
  std::string root = RecordedRoot(*run.catalog, "fixtures/faults/configure-use/bad.pp");
  report::SarifOptions o{report::SourceRoot::FromDirectory(root)};
  nlohmann::json result = report::FindingsToSarif(run.Context(), o)["runs"][0]["results"][0];
  ASSERT_EQ(result["fixes"].size(), 1u);
  const nlohmann::json& fix = result["fixes"][0];
  EXPECT_EQ(fix["description"]["text"],
            "require => File\\['/etc/app/app.conf'\\] on Exec\\['use config'\\] (bad.pp:15)");
  ASSERT_EQ(fix["artifactChanges"].size(), 1u);  // one file
  const nlohmann::json& change = fix["artifactChanges"][0];
  EXPECT_EQ(change["artifactLocation"]["uri"], "fixtures/faults/configure-use/bad.pp");
  EXPECT_EQ(change["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  ASSERT_EQ(change["replacements"].size(), 2u);
  EXPECT_EQ(
      change["replacements"][0]["deletedRegion"],
      nlohmann::json({{"startLine", 10}, {"startColumn", 1}, {"endLine", 12}, {"endColumn", 1}}));
  EXPECT_EQ(change["replacements"][0]["insertedContent"]["text"], e2.text);
  // The insertion: an empty region at the start of line 16.
  EXPECT_EQ(change["replacements"][1]["deletedRegion"],
            nlohmann::json({{"startLine", 16}, {"startColumn", 1}, {"endColumn", 1}}));
  EXPECT_EQ(change["replacements"][1]["insertedContent"]["text"],
            "  require => File['/etc/app/app.conf'],\n");

  // Outside the source root: an absolute file URI.
  nlohmann::json outside = report::FindingsToSarif(run.Context(), {})["runs"][0]["results"][0];
  EXPECT_THAT(
      outside["fixes"][0]["artifactChanges"][0]["artifactLocation"]["uri"].get<std::string>(),
      StartsWith("file:///"));

  // A patch that failed its verification is not offered; nor is a finding without one.
  f.patch->verdict = checker::FixVerdict::kFailed;
  EXPECT_FALSE(
      report::FindingsToSarif(run.Context(), o)["runs"][0]["results"][0].contains("fixes"));
  f.patch.reset();
  EXPECT_FALSE(
      report::FindingsToSarif(run.Context(), o)["runs"][0]["results"][0].contains("fixes"));
}

}  // namespace
}  // namespace fsmove::testing
