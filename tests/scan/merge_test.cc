#include "fsmove/scan/merge.h"

#include <filesystem>
#include <fstream>

#include "fsmove/scan/module_list.h"
#include "fsmove/scan/results_dir.h"
#include "gtest/gtest.h"
#include "scan_test_dir.h"

namespace fsmove::scan {
namespace {

MergeInput Input(const std::string& dir,
                 const std::vector<std::pair<std::string, ModuleStatus>>& mods,
                 std::optional<Shard> shard = std::nullopt,
                 const std::vector<std::string>& list = {}) {
  MergeInput in;
  in.dir = dir;
  for (const auto& [m, s] : mods) {
    ModuleRecord rec;
    rec.result.module = m;
    rec.result.status = s;
    in.contents.modules[m] = rec;
    in.contents.dir_of[m] = ModuleDirName(m);
  }
  if (shard) {
    auto all = CanonicalModuleList(list);
    in.manifest = ScanManifest{*shard, ModuleListDigest(all), all.size(), SelectShard(all, *shard)};
  }
  return in;
}

TEST(Merge, DisjointShardsMergeCleanly) {
  std::vector<std::string> list = {"a", "b", "c"};
  auto plan = PlanMerge(
      {Input("s1", {{"a", ModuleStatus::kOk}, {"c", ModuleStatus::kTimeout}}, Shard{1, 2}, list),
       Input("s2", {{"b", ModuleStatus::kFindings}}, Shard{2, 2}, list)});
  EXPECT_TRUE(plan.duplicates.empty());
  EXPECT_TRUE(plan.conflicts.empty());
  EXPECT_TRUE(plan.problems.empty());
  ASSERT_EQ(plan.results.size(), 3u);
  EXPECT_EQ(plan.results[1].module, "b");
  EXPECT_EQ(plan.sources[1].input_dir, "s2");
}

TEST(Merge, DuplicatesAndConflicts) {
  auto plan = PlanMerge({Input("x", {{"a", ModuleStatus::kOk}, {"b", ModuleStatus::kOk}}),
                         Input("y", {{"a", ModuleStatus::kOk}, {"b", ModuleStatus::kFindings}})});
  ASSERT_EQ(plan.duplicates.size(), 1u);
  EXPECT_NE(plan.duplicates[0].find("a is in both x and y"), std::string::npos);
  ASSERT_EQ(plan.conflicts.size(), 1u);
  EXPECT_NE(plan.conflicts[0].find("b: x says ok"), std::string::npos) << plan.conflicts[0];
  EXPECT_EQ(plan.results.size(), 2u);
  EXPECT_TRUE(plan.problems.empty());  // no scan.json: no shard checks
}

TEST(Merge, MissingRepeatedAndForeignShards) {
  std::vector<std::string> list = {"a", "b", "c", "d"};
  auto plan =
      PlanMerge({Input("s1", {{"a", ModuleStatus::kOk}}, Shard{1, 3}, list),
                 Input("s1again", {}, Shard{1, 3}, list), Input("other", {}, Shard{2, 3}, {"q"})});
  std::string all;
  for (const auto& p : plan.problems) all += p + "\n";
  EXPECT_NE(all.find("shard 1/3 was given 2 times"), std::string::npos) << all;
  EXPECT_NE(all.find("shard 2/3 is missing"), std::string::npos) << all;
  EXPECT_NE(all.find("shard 3/3 is missing"), std::string::npos) << all;
  EXPECT_NE(all.find("different list"), std::string::npos) << all;
  EXPECT_NE(all.find("s1: module d of shard 1/3 has no finished result"), std::string::npos) << all;
}

TEST(Merge, EveryStatusAndSourceCrossesStatusJson) {
  // The statuses a scan decides without a check and a class run, as a shard's folder holds
  // them: read back, merged, summarised.
  ScanTestDir tmp;
  const std::string shard = (tmp.path() / "s1").string();
  std::vector<std::pair<std::string, ModuleStatus>> runs = {
      {"mods/defs", ModuleStatus::kNothingToApply},
      {"mods/os/spec/acceptance/a_spec.rb:3", ModuleStatus::kMissingDependency},
      {"mods/os#os::api", ModuleStatus::kOk}};
  for (const auto& [m, s] : runs) {
    ModuleResult r;
    r.module = m;
    r.status = s;
    r.error = s == ModuleStatus::kOk ? "" : "why";
    const std::string dir = (tmp.path() / "s1" / ModuleDirName(m)).string();
    std::filesystem::create_directories(dir);
    std::ofstream(std::filesystem::path(dir) / kCheckLogFile) << "fsmove scan: why\n";
    if (s == ModuleStatus::kOk) std::ofstream(std::filesystem::path(dir) / kReportFile) << "{}\n";
    ASSERT_TRUE(WriteStatus(dir, r).ok());
  }
  auto contents = ReadResultsDir(shard);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_TRUE(contents->invalid.empty()) << contents->invalid.front();
  MergeInput in;
  in.dir = shard;
  in.contents = *contents;
  MergePlan plan = PlanMerge({in});
  ASSERT_EQ(plan.results.size(), 3u);
  EXPECT_EQ(plan.results[0].module, "mods/defs");
  EXPECT_EQ(plan.results[0].status, ModuleStatus::kNothingToApply);
  EXPECT_EQ(plan.results[1].status, ModuleStatus::kOk);
  EXPECT_EQ(plan.results[2].status, ModuleStatus::kMissingDependency);
  const ScanCoverage cov = Coverage(plan.results);
  EXPECT_EQ(cov.modules, 2u);  // mods/defs and mods/os
  EXPECT_EQ(cov.modules_applied, 1u);
}

}  // namespace
}  // namespace fsmove::scan
