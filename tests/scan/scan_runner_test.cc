#include "fsmove/scan/scan_runner.h"

#include "fsmove/scan/results_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scan_test_dir.h"

namespace fsmove::scan {
namespace {

using ::testing::ElementsAre;

TEST(ScanRunner, CheckArgumentsAreTheWholeContract) {
  ScanOptions o;
  o.timeout_seconds = 20;
  o.save_traces = true;
  o.check_options = {"--modulepath", "/deps", "--package-notify"};
  EXPECT_THAT(
      CheckArguments(o, "-odd/mod", "out/mod-12345678", "/tmp/w/mod-12345678"),
      ElementsAre("/proc/self/exe", "check", "-q", "--format", "json", "-o",
                  "out/mod-12345678/report.json", "--save-catalog", "out/mod-12345678/catalog.json",
                  "--save-graph", "out/mod-12345678/expanded_relationships.dot", "--puppet-log",
                  "out/mod-12345678/puppet.log", "--timeout", "20", "--work-dir",
                  "/tmp/w/mod-12345678", "--discard-work", "--save-trace",
                  "out/mod-12345678/trace.zst", "--modulepath", "/deps", "--package-notify", "--",
                  "-odd/mod"));
}

TEST(ScanRunner, MissingModuleIsRecordedAndRetried) {
  ScanTestDir tmp;
  ScanOptions o;
  o.modules = {(tmp.path() / "gone").string()};
  o.out_dir = (tmp.path() / "out").string();
  o.work_parent = (tmp.path() / "work").string();
  o.fsmove_binary = "/bin/false";  // never started: nothing to check
  const volatile std::sig_atomic_t stop = 0;
  auto first = RunScan(o, &stop);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->results.size(), 1u);
  EXPECT_EQ(first->results[0].status, ModuleStatus::kMissing);
  EXPECT_THAT(first->results[0].error, ::testing::HasSubstr("no module directory"));
  // Recorded (the summary lists it) but not final: the next run tries it again.
  auto second = RunScan(o, &stop);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->skipped, 0u);
  EXPECT_EQ(second->redone, 1u);
  ASSERT_EQ(second->results.size(), 1u);
  EXPECT_EQ(second->results[0].status, ModuleStatus::kMissing);
  EXPECT_THAT(second->notes, ElementsAre(::testing::HasSubstr("it was missing last time")));
}

}  // namespace
}  // namespace fsmove::scan
