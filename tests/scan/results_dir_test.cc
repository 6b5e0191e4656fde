#include "fsmove/scan/results_dir.h"

#include <fstream>

#include "fsmove/scan/module_list.h"
#include "gtest/gtest.h"
#include "scan_test_dir.h"

namespace fsmove::scan {
namespace {

namespace fs = std::filesystem;

ModuleResult StatusResult(const std::string& module, ModuleStatus s, int mor = 0) {
  ModuleResult r;
  r.module = module;
  r.status = s;
  r.mor = mor;
  if (s != ModuleStatus::kOk && s != ModuleStatus::kFindings) r.error = "why, \"quoted\"";
  return r;
}

// A finished module folder as the scan leaves it.
std::string Finished(const ScanTestDir& d, const std::string& module, ModuleStatus s) {
  std::string dir = (d.path() / ModuleDirName(module)).string();
  d.Write(ModuleDirName(module) + "/report.json", "{}\n");
  d.Write(ModuleDirName(module) + "/check.log", "log\n");
  EXPECT_TRUE(WriteStatus(dir, StatusResult(module, s)).ok());
  return dir;
}

TEST(ResultsDir, StatusRoundTripsAndListsFiles) {
  ScanTestDir d;
  std::string dir = Finished(d, "mods/a", ModuleStatus::kOk);
  auto rec = ReadStatus(dir, "mods/a");
  ASSERT_TRUE(rec.ok()) << rec.status();
  EXPECT_EQ(rec->result.status, ModuleStatus::kOk);
  EXPECT_EQ(rec->files.at("report.json"), 3u);
  EXPECT_EQ(rec->files.count("status.json"), 0u);
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos)
        << "temporary file left";
  }
}

TEST(ResultsDir, DetectsUnfinishedAndCorruptFolders) {
  ScanTestDir d;
  std::string dir = Finished(d, "m", ModuleStatus::kFindings);
  EXPECT_FALSE(ReadStatus(dir, "other").ok());  // someone else's folder
  // A report cut short after status.json was written.
  d.Write(ModuleDirName("m") + "/report.json", "{");
  EXPECT_FALSE(ReadStatus(dir, "m").ok());
  dir = Finished(d, "m", ModuleStatus::kFindings);
  ASSERT_TRUE(ReadStatus(dir, "m").ok());
  fs::remove(fs::path(dir) / "report.json");
  EXPECT_NE(std::string(ReadStatus(dir, "m").status().message()).find("missing"),
            std::string::npos);
  dir = Finished(d, "m", ModuleStatus::kFindings);
  d.Write(ModuleDirName("m") + "/status.json", "{\"module\": \"m\", \"stat");
  EXPECT_FALSE(ReadStatus(dir, "m").ok());
  fs::remove(fs::path(dir) / "status.json");
  EXPECT_FALSE(ReadStatus(dir, "m").ok());
  // ok/findings without a report never count as done, even if status.json says so.
  dir = Finished(d, "n", ModuleStatus::kOk);
  fs::remove(fs::path(dir) / "report.json");
  ASSERT_TRUE(WriteStatus(dir, StatusResult("n", ModuleStatus::kOk)).ok());
  EXPECT_FALSE(ReadStatus(dir, "n").ok());
}

TEST(ResultsDir, ReadsAllFinishedFoldersAndNamesTheBadOnes) {
  ScanTestDir d;
  Finished(d, "a", ModuleStatus::kOk);
  Finished(d, "b", ModuleStatus::kCompileFailed);
  d.Write("half-00000000/check.log", "x");
  auto c = ReadResultsDir(d.path().string());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->modules.size(), 2u);
  EXPECT_EQ(c->dir_of.at("a"), ModuleDirName("a"));
  ASSERT_EQ(c->invalid.size(), 1u);
  EXPECT_EQ(c->invalid[0].rfind("half-00000000: ", 0), 0u);
}

TEST(ResultsDir, SummaryJsonAndCsv) {
  ScanTestDir d;
  ASSERT_TRUE(WriteSummary(d.path().string(), {StatusResult("z", ModuleStatus::kTimeout),
                                               StatusResult("a,b", ModuleStatus::kFindings, 2)})
                  .ok());
  auto back = ReadSummaryJson((d.path() / "summary.json").string());
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].module, "a,b");  // sorted
  EXPECT_EQ((*back)[1].error, "why, \"quoted\"");
  std::ifstream in(d.path() / "summary.csv");
  std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(csv,
            "module,status,mor,mn,confirmed,ni,trace_bytes,apply_seconds,analysis_seconds,error\n"
            "\"a,b\",findings,2,0,0,0,0,0.000,0.000,\n"
            "z,timeout,0,0,0,0,0,0.000,0.000,\"why, \"\"quoted\"\"\"\n");
}

TEST(ResultsDir, CoverageCountsModulesWithAnAppliedRun) {
  const ScanCoverage c = Coverage({StatusResult("m/a", ModuleStatus::kCompileFailed),
                                   StatusResult("m/a/examples/init.pp", ModuleStatus::kOk),
                                   StatusResult("m/b", ModuleStatus::kResourcesFailed),
                                   StatusResult("m/c/examples/x.pp", ModuleStatus::kFindings),
                                   StatusResult("site.pp", ModuleStatus::kTimeout)});
  EXPECT_EQ(c.runs, 5u);
  EXPECT_EQ(c.modules, 4u);  // m/a, m/b, m/c, and the manifest of no module on its own
  EXPECT_EQ(c.modules_applied, 2u);
  ScanTestDir d;
  ASSERT_TRUE(
      WriteSummary(d.path().string(), {StatusResult("m/a/examples/init.pp", ModuleStatus::kOk)})
          .ok());
  std::ifstream in(d.path() / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["modules"][0]["source"], "example");
  EXPECT_EQ(j["modules"][0]["module_dir"], "m/a");
  EXPECT_EQ(j["coverage"]["modules_applied"], 1);
}

TEST(ResultsDir, ScanManifestRoundTrips) {
  ScanTestDir d;
  ScanManifest m{Shard{2, 3}, "abc", 7, {"x", "y"}};
  ASSERT_TRUE(WriteScanManifest(d.path().string(), m).ok());
  auto back = ReadScanManifest(d.path().string());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->shard.ToString(), "2/3");
  EXPECT_EQ(back->list_size, 7u);
  EXPECT_EQ(back->modules, m.modules);
}

}  // namespace
}  // namespace fsmove::scan
