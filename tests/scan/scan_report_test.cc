// report.html: the page's data from results and report.json files, and a page that module
// code cannot break out of (its titles and messages are untrusted).
#include "fsmove/scan/scan_report.h"

#include <string>

#include "fsmove/base/read_file.h"
#include "fsmove/scan/module_list.h"
#include "gtest/gtest.h"
#include "scan_test_dir.h"

namespace fsmove::scan {
namespace {

ModuleResult Result(const std::string& module, ModuleStatus status, int mor = 0, int mn = 0) {
  ModuleResult r;
  r.module = module;
  r.status = status;
  r.mor = mor;
  r.mn = mn;
  return r;
}

nlohmann::json Finding(const std::string& kind, const std::string& source,
                       const std::string& target) {
  return {{"kind", kind},
          {"source", {{"resource", source}, {"file", "/m/manifests/init.pp"}, {"line", 7}}},
          {"target", {{"resource", target}, {"file", nullptr}, {"line", nullptr}}},
          {"confidence", "high"},
          {"write_write", false},
          {"fix", "add `before => " + target + "` to " + source},
          {"confirmed", nullptr},
          {"paths",
           {{{"path", "/etc/app.conf"},
             {"source",
              {{"effect", "produced"}, {"verb", "managed (looked at)"}, {"syscall", "openat"}}},
             // A report.json from before the verb: its effect stands in.
             {"target", {{"effect", "consumed"}, {"syscall", "execve"}}}}}},
          {"paths_total", 3}};
}

TEST(ScanReportData, CountsStatusesCoverageAndFindings) {
  nlohmann::json report = {{"faults",
                            {Finding("MOR", "File[/etc/app.conf]", "Service[app]"),
                             Finding("MN", "File[/etc/app.conf]", "Service[app]")}}};
  std::vector<ReportRun> runs = {
      {Result("/mods/web", ModuleStatus::kFindings, 1, 1), "web-1", report},
      {Result("/mods/web/examples/vhost.pp", ModuleStatus::kCompileFailed), "web_examples-2",
       nullptr},
      {Result("/mods/db", ModuleStatus::kOk), "db-3", nlohmann::json{{"faults", {}}}},
  };
  runs[1].result.error = "Evaluation Error: Unknown function";
  runs[1].result.warnings = {"custom fact 'x' failed"};
  nlohmann::json d = ScanReportData(runs, "my scan", /*max_findings=*/1);
  EXPECT_EQ(d["title"], "my scan");
  EXPECT_EQ(d["coverage"]["runs"], 3);
  EXPECT_EQ(d["coverage"]["modules"], 2);
  EXPECT_EQ(d["coverage"]["modules_applied"], 2);
  EXPECT_EQ(d["statuses"]["findings"], 1);
  EXPECT_EQ(d["statuses"]["compile-failed"], 1);
  EXPECT_EQ(d["statuses"]["ok"], 1);
  ASSERT_EQ(d["runs"].size(), 3u);
  // Sorted by run.
  EXPECT_EQ(d["runs"][0]["module"], "/mods/db");
  const nlohmann::json& web = d["runs"][1];
  EXPECT_EQ(web["module"], "/mods/web");
  EXPECT_EQ(web["folder"], "web-1");
  EXPECT_EQ(web["findings_total"], 2);
  ASSERT_EQ(web["findings"].size(), 1u);  // capped
  const nlohmann::json& f = web["findings"][0];
  EXPECT_EQ(f["source"], "File[/etc/app.conf]");
  EXPECT_EQ(f["source_at"], "/m/manifests/init.pp:7");
  EXPECT_EQ(f["target_at"], "");
  EXPECT_EQ(f["paths"][0]["path"], "/etc/app.conf");
  // The words of the check's reports (its JSON "verb"), never the bare effect.
  EXPECT_EQ(f["paths"][0]["source"], "managed (looked at) (openat)");
  EXPECT_EQ(f["paths"][0]["target"], "consumed (execve)");
  EXPECT_EQ(f["paths_total"], 3);
  const nlohmann::json& example = d["runs"][2];
  EXPECT_EQ(example["source"], "example");
  EXPECT_EQ(example["module_dir"], "/mods/web");
  EXPECT_EQ(example["has_report"], false);
  EXPECT_EQ(example["warnings"][0], "custom fact 'x' failed");
}

// A fault a module's run and its example's run both found is one finding on the page: each
// copy has the same key and names both runs; another module's same pair is its own.
TEST(ScanReportData, TheSameFaultOfTwoRunsOfAModuleNamesBoth) {
  const nlohmann::json shared = Finding("MOR", "File[/etc/app.conf]", "Exec[use]");
  nlohmann::json other_paths = shared;
  other_paths["paths"][0]["path"] = "/etc/other";  // an example touches more: the same fault
  std::vector<ReportRun> runs = {
      {Result("/mods/web", ModuleStatus::kFindings, 1),
       "web-1",
       {{"faults", {shared, Finding("MN", "File[/etc/app.conf]", "Service[app]")}}}},
      {Result("/mods/web/examples/init.pp", ModuleStatus::kFindings, 1),
       "web_examples-2",
       {{"faults", {other_paths}}}},
      {Result("/mods/db", ModuleStatus::kFindings, 1), "db-3", {{"faults", {shared}}}},
  };
  nlohmann::json d = ScanReportData(runs, "s");
  const nlohmann::json& db = d["runs"][0]["findings"][0];
  const nlohmann::json& web = d["runs"][1]["findings"][0];
  const nlohmann::json& web_mn = d["runs"][1]["findings"][1];
  const nlohmann::json& example = d["runs"][2]["findings"][0];
  EXPECT_EQ(web["key"], example["key"]);
  EXPECT_NE(web["key"], db["key"]);
  EXPECT_NE(web["key"], web_mn["key"]);
  const nlohmann::json both = {"/mods/web", "/mods/web/examples/init.pp"};
  EXPECT_EQ(web["runs"], both);
  EXPECT_EQ(example["runs"], both);
  EXPECT_EQ(db["runs"], nlohmann::json({"/mods/db"}));
  EXPECT_EQ(web_mn["runs"], nlohmann::json({"/mods/web"}));
  // The page shows a key once (its script keeps a set of the keys it drew).
  const std::string page = ScanReportHtml(d);
  EXPECT_NE(page.find("seen.has(f.key)"), std::string::npos);
}

TEST(ScanReportData, EveryStatusHasItsCountAndItsColour) {
  std::vector<ReportRun> runs = {
      {Result("/mods/concat", ModuleStatus::kNothingToApply), "concat-1", nullptr},
      {Result("/mods/aodh/spec/acceptance/a_spec.rb:4", ModuleStatus::kMissingDependency),
       "aodh_acceptance-2", nullptr},
      {Result("/mods/aodh#aodh::api", ModuleStatus::kOk), "aodh_class-3", nullptr},
  };
  nlohmann::json d = ScanReportData(runs, "s", 5);
  EXPECT_EQ(d["statuses"]["nothing-to-apply"], 1);
  EXPECT_EQ(d["statuses"]["missing-dependency"], 1);
  EXPECT_EQ(d["coverage"]["modules"], 2);
  EXPECT_EQ(d["coverage"]["modules_applied"], 1);
  EXPECT_EQ(d["runs"][0]["source"], "class");
  EXPECT_EQ(d["runs"][0]["module_dir"], "/mods/aodh");
  // The status buttons and badges are coloured by a class per status: none is left plain.
  const std::string page = ScanReportHtml(d);
  for (ModuleStatus s : {ModuleStatus::kOk, ModuleStatus::kFindings, ModuleStatus::kResourcesFailed,
                         ModuleStatus::kCompileFailed, ModuleStatus::kMissingDependency,
                         ModuleStatus::kApplyFailed, ModuleStatus::kTimeout, ModuleStatus::kCrashed,
                         ModuleStatus::kMissing, ModuleStatus::kNothingToApply}) {
    const std::string css = ".s-" + std::string(ModuleStatusName(s));
    bool styled = false;  // the selector itself, not a longer one it begins
    for (size_t at = page.find(css); at != std::string::npos; at = page.find(css, at + 1)) {
      const char next = at + css.size() < page.size() ? page[at + css.size()] : '\0';
      styled = styled || next == ' ' || next == ',';
    }
    EXPECT_TRUE(styled) << css;
  }
}

TEST(ScanReportData, MalformedReportsShowNoFindingsAndNeverThrow) {
  for (const nlohmann::json& report :
       {nlohmann::json::parse(R"({"faults": 3})"), nlohmann::json::parse(R"({"faults": [1, "x"]})"),
        nlohmann::json::parse(
            R"({"faults": [{"kind": 1, "source": [], "paths": [7, {"source": "s"}],
                "write_write": "yes", "paths_total": -1}]})")}) {
    std::vector<ReportRun> runs = {{Result("/m", ModuleStatus::kFindings), "m-1", report}};
    nlohmann::json d;
    ASSERT_NO_THROW(d = ScanReportData(runs, "t")) << report;
    EXPECT_LE(d["runs"][0]["findings"].size(), 1u);
  }
}

TEST(ScanReportHtml, UntrustedTextCannotLeaveTheDataElement) {
  const std::string evil = "</script><script>alert(1)</script><!--&";
  nlohmann::json report = {{"faults", {Finding("MN", "File[" + evil + "]", "Service[x]")}}};
  std::vector<ReportRun> runs = {{Result("/mods/" + evil, ModuleStatus::kFindings), "f", report}};
  runs[0].result.error = evil;
  const std::string page = ScanReportHtml(ScanReportData(runs, evil));
  // The page's own two script elements, and not one more.
  size_t scripts = 0;
  for (size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 2u);
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  // The data parses back to the same strings.
  const size_t open = page.find("id=\"scan-data\">") + 15;
  const size_t close = page.find("</script>", open);
  nlohmann::json back = nlohmann::json::parse(page.substr(open, close - open));
  EXPECT_EQ(back["runs"][0]["error"], evil);
  EXPECT_EQ(back["runs"][0]["findings"][0]["source"], "File[" + evil + "]");
}

// Control and bidirectional characters are escaped in the page's data, and the page shows
// every string from a module through `visible`, which spells them as escapes.
TEST(ScanReportHtml, ControlAndBidiCharactersAreNeitherRawNorObeyed) {
  const std::string evil =
      "x\x1b[2J\n\xe2\x80\xae"
      "evil\xc2\x9b";
  nlohmann::json report = {{"faults", {Finding("MOR", "File[" + evil + "]", "Service[x]")}}};
  std::vector<ReportRun> runs = {{Result("/mods/" + evil, ModuleStatus::kFindings), "f", report}};
  runs[0].result.error = evil;
  const std::string page = ScanReportHtml(ScanReportData(runs, evil));
  EXPECT_EQ(page.find('\x1b'), std::string::npos);
  EXPECT_EQ(page.find("\xe2\x80\xae"), std::string::npos);
  EXPECT_EQ(page.find("\xc2\x9b"), std::string::npos);
  EXPECT_NE(page.find("x\\u001b[2J\\n\\u202eevil\\u009b"), std::string::npos);
  EXPECT_NE(page.find("document.createTextNode(visible(c))"), std::string::npos);
  EXPECT_NE(page.find("e.textContent = visible(text)"), std::string::npos);
  const size_t open = page.find("id=\"scan-data\">") + 15;
  const size_t close = page.find("</script>", open);
  EXPECT_EQ(nlohmann::json::parse(page.substr(open, close - open))["runs"][0]["error"], evil);
}

TEST(WriteScanReport, ReadsEachRunsReportFromItsFolder) {
  ScanTestDir dir;
  ModuleResult web = Result("/mods/web", ModuleStatus::kFindings, 1, 0);
  ModuleResult db = Result("/mods/db", ModuleStatus::kCrashed);
  nlohmann::json report = {{"faults", {Finding("MOR", "Package[web]", "File[/etc/web]")}}};
  dir.Write(ModuleDirName(web.module) + "/report.json", report.dump());
  dir.Write(ModuleDirName(db.module) + "/report.json", "{not json");
  ASSERT_TRUE(WriteScanReport(dir.path().string(), {web, db}).ok());
  auto page = base::ReadFile((dir.path() / kReportHtml).string());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_NE(page->find("Package[web]"), std::string::npos);
  EXPECT_NE(page->find("\"has_report\":false"), std::string::npos);
  EXPECT_EQ(page->rfind("</html>\n"), page->size() - 8);
}

}  // namespace
}  // namespace fsmove::scan
