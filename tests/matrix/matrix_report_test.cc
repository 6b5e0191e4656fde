#include "fsmove/matrix/matrix_report.h"

#include "absl/strings/str_split.h"
#include "fsmove/base/diagnostic.h"
#include "fsmove/report/markdown_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::matrix {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

Json Report(int mor, int mn) {
  return {{"summary", {{"MOR", mor}, {"MN", mn}}},
          {"run",
           {{"timed_out", false},
            {"trace_complete", true},
            {"puppet_exit_code", 0},
            {"apply_seconds", 7.5},
            {"failed_resources", Json::array()}}}};
}

// A row whose check ended with `exit_code`, with its JSON report (none for a row not checked)
// and documents.
RowResult Row(int line, std::string node, int exit_code, std::optional<Json> report,
              std::vector<std::pair<std::string, std::string>> documents = {},
              std::string log = "") {
  RowResult r;
  r.row = {line, std::move(node), "", ""};
  r.exit_code = exit_code;
  r.report = std::move(report);
  r.check_log = std::move(log);
  r.documents = std::move(documents);
  r.result = ClassifyRow(r.row, r.exit_code, r.check_log, r.report);
  return r;
}

RowResult NotChecked(int line, std::string node) {
  return Row(line, std::move(node), 2, std::nullopt, {},
             "fsmove: error: --facts f.json: os.family is RedHat, but ...\n");
}

TEST(MatrixReportTest, ARowsStatusComesFromItsCheck) {
  EXPECT_EQ(Row(1, "a", 0, Report(0, 0)).result.status, scan::ModuleStatus::kOk);
  RowResult findings = Row(1, "a", 1, Report(2, 1));
  EXPECT_EQ(findings.result.status, scan::ModuleStatus::kFindings);
  EXPECT_EQ(findings.result.mor, 2);
  EXPECT_EQ(findings.result.mn, 1);
  RowResult refused = NotChecked(1, "a");
  EXPECT_EQ(refused.result.status, scan::ModuleStatus::kCompileFailed);
  EXPECT_THAT(refused.result.error, HasSubstr("os.family is RedHat"));
}

TEST(MatrixReportTest, TheExitCodeIsTheWorstRows) {
  EXPECT_EQ(MatrixExitCode({Row(1, "a", 0, Report(0, 0))}), base::kExitOk);
  EXPECT_EQ(MatrixExitCode({Row(1, "a", 0, Report(0, 0)), Row(2, "b", 1, Report(1, 0))}),
            base::kExitFindings);
  EXPECT_EQ(MatrixExitCode({Row(1, "a", 3, Report(0, 0)), Row(2, "b", 1, Report(1, 0))}),
            base::kExitIncomplete);
  EXPECT_EQ(MatrixExitCode({Row(1, "a", 3, Report(0, 0)), NotChecked(2, "b")}), base::kExitError);
  EXPECT_EQ(MatrixExitCode({NotChecked(1, "a"), Row(2, "b", 130, std::nullopt)}), 130);
}

TEST(MatrixReportTest, JsonHasARowPerNodeWithItsReport) {
  RowResult a = Row(2, "web01", 1, Report(1, 0));
  a.row.klass = "role::web";
  a.row.facts = "facts/web01.json";
  const Json doc =
      Json::parse(MergeReports("json", {a, NotChecked(3, "lab01")}, "repo", "repo/matrix.txt"));
  EXPECT_EQ(doc["matrix"], "repo/matrix.txt");
  EXPECT_EQ(doc["target"], "repo");
  EXPECT_EQ(doc["exit_code"], base::kExitError);
  ASSERT_EQ(doc["rows"].size(), 2u);
  const Json& r0 = doc["rows"][0];
  EXPECT_EQ(r0["line"], 2);
  EXPECT_EQ(r0["node"], "web01");
  EXPECT_EQ(r0["class"], "role::web");
  EXPECT_EQ(r0["facts"], "facts/web01.json");
  EXPECT_EQ(r0["status"], "findings");
  EXPECT_EQ(r0["mor"], 1);
  EXPECT_TRUE(r0["error"].is_null());
  EXPECT_EQ(r0["report"]["summary"]["MOR"], 1);
  const Json& r1 = doc["rows"][1];
  EXPECT_TRUE(r1["class"].is_null());
  EXPECT_EQ(r1["status"], "compile-failed");
  EXPECT_THAT(r1["error"].get<std::string>(), HasSubstr("os.family is RedHat"));
  EXPECT_TRUE(r1["report"].is_null());
}

TEST(MatrixReportTest, SarifHasARunPerNodeEachItsOwnCategory) {
  const Json run = {{"tool", {{"driver", {{"name", "fsmove"}, {"version", "9"}}}}},
                    {"results", Json::array({{{"ruleId", "missing-ordering"}}})}};
  const Json sarif = {{"$schema", "s"}, {"version", "2.1.0"}, {"runs", Json::array({run})}};
  const Json doc = Json::parse(MergeReports(
      "sarif",
      {Row(1, "web01", 1, Report(1, 0), {{"sarif", sarif.dump()}}), NotChecked(2, "lab01")}, "repo",
      "m.txt"));
  EXPECT_EQ(doc["$schema"], "s");
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][0]["automationDetails"]["id"], "fsmove-matrix/web01/");
  EXPECT_EQ(doc["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(doc["runs"][0]["properties"]["node"], "web01");
  const Json& failed = doc["runs"][1];
  EXPECT_EQ(failed["automationDetails"]["id"], "fsmove-matrix/lab01/");
  EXPECT_EQ(failed["tool"]["driver"]["name"], "fsmove");
  EXPECT_EQ(failed["invocations"][0]["executionSuccessful"], false);
  EXPECT_THAT(failed["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
                  .get<std::string>(),
              HasSubstr("os.family is RedHat"));
  EXPECT_TRUE(failed["results"].empty());
}

TEST(MatrixReportTest, JunitSumsTheSuitesAndAddsAnErrorForANodeNotChecked) {
  const std::string junit =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"fsmove\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
      "time=\"0.500\">\n"
      "  <testsuite name=\"fsmove trace\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
      "time=\"0.500\">\n    <testcase classname=\"fsmove\" name=\"x\"/>\n  </testsuite>\n"
      "</testsuites>\n";
  const std::string doc =
      MergeReports("junit",
                   {Row(1, "web01", 1, Report(1, 0), {{"junit", junit}}),
                    Row(2, "web02", 1, Report(1, 0), {{"junit", junit}}), NotChecked(3, "lab<01>")},
                   "repo", "m.txt");
  EXPECT_THAT(doc, HasSubstr("<testsuites name=\"fsmove matrix\" tests=\"7\" failures=\"2\" "
                             "errors=\"1\" skipped=\"2\" time=\"1.000\">"));
  EXPECT_THAT(doc, HasSubstr("<testsuite name=\"web01: fsmove trace\""));
  EXPECT_THAT(doc, HasSubstr("<testsuite name=\"web02: fsmove trace\""));
  EXPECT_THAT(doc, HasSubstr("<testsuite name=\"fsmove lab&lt;01&gt;\" tests=\"1\""));
  EXPECT_THAT(doc, HasSubstr("<error message=\"--facts f.json: os.family is RedHat"));
  EXPECT_THAT(doc, Not(HasSubstr("<testsuites name=\"fsmove\"")));
}

TEST(MatrixReportTest, AFindingSeveralNodesShareIsOneCommentNamingThem) {
  auto rd = [](const std::vector<std::string>& messages) {
    Json d = Json::array();
    for (const std::string& m : messages) {
      d.push_back({{"message", m}, {"location", {{"path", "site/profile/manifests/app.pp"}}}});
    }
    return Json{{"source", {{"name", "fsmove"}}}, {"diagnostics", d}}.dump();
  };
  const Json doc = Json::parse(
      MergeReports("rdjson",
                   {Row(1, "web01", 1, Report(1, 0), {{"rdjson", rd({"order", "only web01"})}}),
                    Row(2, "web02", 1, Report(1, 0), {{"rdjson", rd({"order"})}})},
                   "repo", "m.txt"));
  ASSERT_EQ(doc["diagnostics"].size(), 2u);
  EXPECT_EQ(doc["diagnostics"][0]["message"], "On web01, web02: order");
  EXPECT_EQ(doc["diagnostics"][1]["message"], "On web01: only web01");
  EXPECT_EQ(doc["source"]["name"], "fsmove");

  auto cq = [](const std::string& fingerprint) {
    return Json::array({{{"fingerprint", fingerprint}, {"description", "d " + fingerprint}}})
        .dump();
  };
  const Json issues =
      Json::parse(MergeReports("codequality",
                               {Row(1, "web01", 1, Report(1, 0), {{"codequality", cq("f1")}}),
                                Row(2, "web02", 1, Report(1, 0), {{"codequality", cq("f1")}}),
                                Row(3, "web03", 1, Report(1, 0), {{"codequality", cq("f2")}})},
                               "repo", "m.txt"));
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0]["description"], "On web01, web02: d f1");
  EXPECT_EQ(issues[1]["description"], "On web03: d f2");
}

TEST(MatrixReportTest, MarkdownIsOneCommentWithinGitHubsLimit) {
  const std::string body = std::string(report::kMarkdownMarker) + "## fsmove: 1 finding\n";
  const std::string big = std::string(report::kMarkdownMarker) +
                          std::string(report::kMarkdownMaxChars - 100, 'x') + "\n";
  const std::string doc =
      MergeReports("markdown",
                   {Row(1, "web01", 1, Report(1, 0), {{"markdown", body}}), NotChecked(2, "lab01"),
                    Row(3, "web03", 1, Report(4, 2), {{"markdown", big}})},
                   "repo", "m.txt");
  EXPECT_TRUE(doc.starts_with(report::kMarkdownMarker));
  EXPECT_EQ(doc.find("fsmove-report", 10), std::string::npos);  // the marker once
  EXPECT_THAT(doc, HasSubstr("## Node `web01`\n\n## fsmove: 1 finding\n"));
  EXPECT_THAT(doc, HasSubstr("## Node `lab01`\n\nNot checked: --facts f.json"));
  EXPECT_THAT(doc, HasSubstr("## Node `web03`\n\n4 missing ordering relationships, 2 missing "
                             "notifiers: too long for this comment"));
  EXPECT_LE(doc.size(), report::kMarkdownMaxChars);
}

TEST(MatrixReportTest, TextShowsEachNodeThenATable) {
  RowResult a = Row(1, "web01.example.com", 0, Report(0, 0), {{"text", "No findings.\n"}});
  a.row.facts = "facts/web01.json";
  RowResult b = Row(2, "web02", 1, Report(1, 0), {{"text", "1 missing ordering relationship\n"}});
  b.row.klass = "role::app";
  const std::string doc = MergeReports("text", {a, b, NotChecked(3, "lab01")}, "repo", "m.txt");
  EXPECT_THAT(doc, HasSubstr("=== Node web01.example.com (facts facts/web01.json) ===\n"
                             "No findings.\n"));
  EXPECT_THAT(doc, HasSubstr("=== Node web02 (role::app) ===\n1 missing ordering"));
  EXPECT_THAT(doc, HasSubstr("=== Node lab01 ===\nNot checked: --facts f.json"));
  std::vector<std::string> lines =
      absl::StrSplit(MatrixTable({a, b, NotChecked(3, "lab01")}), '\n');
  ASSERT_GE(lines.size(), 5u);
  EXPECT_THAT(lines[0], HasSubstr("node"));
  EXPECT_THAT(lines[1], HasSubstr("web01.example.com  -"));
  EXPECT_THAT(lines[1], HasSubstr("facts/web01.json"));
  EXPECT_THAT(lines[2], HasSubstr("role::app"));
  EXPECT_THAT(lines[2], HasSubstr("findings"));
  EXPECT_THAT(lines[3], HasSubstr("compile-failed"));
  EXPECT_EQ(lines[4], "3 nodes: 2 checked, 1 with findings");
}

TEST(MatrixReportTest, ModuleCodesWordsReachTheTerminalSafe) {
  RowResult r = NotChecked(1, "web01");
  r.result.error = "bad \x1b[2J cleared";
  EXPECT_THAT(MergeReports("text", {r}, "repo", "m.txt"), Not(HasSubstr("\x1b[2J")));
}

}  // namespace
}  // namespace fsmove::matrix
