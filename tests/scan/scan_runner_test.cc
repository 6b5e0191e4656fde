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
  o.modulepath = {"/deps"};
  o.check_options = {"--package-notify"};
  EXPECT_THAT(
      CheckArguments(o, "-odd/mod", "out/mod-12345678", "/tmp/w/mod-12345678"),
      ElementsAre("/proc/self/exe", "check", "-q", "--format", "json", "-o",
                  "out/mod-12345678/report.json", "--save-catalog", "out/mod-12345678/catalog.json",
                  "--save-graph", "out/mod-12345678/expanded_relationships.dot", "--puppet-log",
                  "out/mod-12345678/puppet.log", "--timeout", "20", "--work-dir",
                  "/tmp/w/mod-12345678", "--discard-work", "--save-trace",
                  "out/mod-12345678/trace.zst", "--modulepath", "/deps", "--package-notify",
                  "--init", "none", "--", "-odd/mod"));
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

// Debian's packages ship more and more a systemd unit only: a run whose only failures are
// Services with no init script, without systemd as PID 1, is made again under --init systemd;
// any other failure, a run under systemd, or an init system the user chose, is not.
TEST(ScanRunner, ServicesWithoutAnInitScriptAreRetriedUnderSystemd) {
  ScanOptions o;
  CheckOutcome outcome;
  outcome.exit_code = 3;
  outcome.report = nlohmann::json::parse(R"({"run": {"init": "none", "failed_resources": [
      {"resource": "Service[pdns]", "message":
       "change from 'stopped' to 'running' failed: Could not find init script for 'pdns'"}]}})");
  EXPECT_THAT(RedoUnderSystemd(o, outcome), ElementsAre("Service[pdns]"));
  const std::vector<std::string> argv = CheckArguments(o, "mods/pdns", "out/d", "/w/d", true);
  EXPECT_THAT(std::vector<std::string>(argv.end() - 4, argv.end()),
              ElementsAre("--init", "systemd", "--", "mods/pdns"));

  CheckOutcome other = outcome;
  (*other.report)["run"]["failed_resources"].push_back(
      {{"resource", "Exec[x]"}, {"message", "returned 1 instead of one of [0]"}});
  EXPECT_TRUE(RedoUnderSystemd(o, other).empty());
  other = outcome;
  (*other.report)["run"]["init"] = "systemd";
  EXPECT_TRUE(RedoUnderSystemd(o, other).empty());
  o.check_options = {"--init", "none"};
  EXPECT_TRUE(RedoUnderSystemd(o, outcome).empty());
}

TEST(ScanRunner, AControlReposRoleIsCheckedAsTheRepoWithItsClass) {
  ScanTestDir d;
  d.Write("control/environment.conf", "modulepath = site:modules\n");
  const std::string repo = (d.path() / "control").string();
  const std::vector<std::string> argv =
      CheckArguments(ScanOptions{}, repo + "#role::web", "out/d", "/w/d");
  EXPECT_THAT(std::vector<std::string>(argv.end() - 4, argv.end()),
              ElementsAre("--class", "role::web", "--", repo));
}

TEST(ScanRunner, AClassRunIncludesItsClassWithItsModule) {
  ScanOptions o;
  o.modulepath = {"/deps", "/more"};
  const std::vector<std::string> argv = CheckArguments(o, "mods/m#m::server", "out/d", "/w/d");
  EXPECT_THAT(std::vector<std::string>(argv.end() - 10, argv.end()),
              ElementsAre("--modulepath", "/deps", "--modulepath", "/more", "--init", "none",
                          "--with-module", "mods/m", "--", "out/d/manifest.pp"));
}

TEST(ScanRunner, NothingToApplyIsRecordedWithoutACheck) {
  ScanTestDir tmp;
  tmp.Write("defs/manifests/init.pp", "define defs ($target) {}\n");
  ScanOptions o;
  o.modules = {(tmp.path() / "defs").string()};
  o.out_dir = (tmp.path() / "out").string();
  o.work_parent = (tmp.path() / "work").string();
  o.fsmove_binary = "/bin/false";  // a check would be crashed, never nothing-to-apply
  const volatile std::sig_atomic_t stop = 0;
  auto first = RunScan(o, &stop);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->results.size(), 1u);
  EXPECT_EQ(first->results[0].status, ModuleStatus::kNothingToApply);
  EXPECT_THAT(first->results[0].error, ::testing::HasSubstr("has no class 'defs' to include"));
  // Decided again by the next run, without a note: the module may have changed.
  tmp.Write("defs/examples/site.pp", "defs { '/x': target => 'y' }\n");
  auto second = RunScan(o, &stop);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->skipped, 0u);
  EXPECT_TRUE(second->notes.empty());
  EXPECT_THAT(second->results[0].error, ::testing::HasSubstr("left out by --no-examples"));
}

TEST(ScanRunner, AMissingDependencyIsLookedUpOnTheModulepath) {
  ScanTestDir tmp;
  tmp.Write("mods/app/metadata.json",
            R"({"name": "me-app", "dependencies": [{"name": "puppetlabs/stdlib"}]})");
  tmp.Write("mods/app/.fixtures.yml", "fixtures:\n  repositories:\n    integration: x\n");
  tmp.Write("mods/app/manifests/init.pp", "class app { include integration }\n");
  tmp.Write("mods/stdlib/manifests/init.pp", "class stdlib {}\n");
  // A check that fails the compile as Puppet does, without a catalog.
  const auto fake = tmp.Write(
      "fake-check",
      "#!/bin/sh\necho 'Error: Evaluation Error: Error while evaluating a Function Call, Could "
      "not find class ::integration for h' >&2\nexit 2\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  ScanOptions o;
  o.modules = {(tmp.path() / "mods/app").string()};
  o.modulepath = {(tmp.path() / "mods").string()};
  o.out_dir = (tmp.path() / "out").string();
  o.work_parent = (tmp.path() / "work").string();
  o.fsmove_binary = fake.string();
  const volatile std::sig_atomic_t stop = 0;
  auto out = RunScan(o, &stop);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->results.size(), 1u);
  EXPECT_EQ(out->results[0].status, ModuleStatus::kMissingDependency);
  EXPECT_THAT(out->results[0].error, ::testing::StartsWith("needs module integration "));
  // A module that does not name it: missing all the same, and said so.
  tmp.Write("mods/solo/manifests/init.pp", "class solo { include integration }\n");
  o.modules = {(tmp.path() / "mods/solo").string()};
  out = RunScan(o, &stop);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->results[0].status, ModuleStatus::kMissingDependency);
  EXPECT_THAT(out->results[0].error, ::testing::HasSubstr("does not name it"));
  o.modules = {(tmp.path() / "mods/app").string()};
  // With the module on the modulepath, the same failure is the code's own.
  tmp.Write("more/integration/manifests/init.pp", "class integration {}\n");
  o.modulepath.push_back((tmp.path() / "more").string());
  o.force = true;
  out = RunScan(o, &stop);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->results[0].status, ModuleStatus::kCompileFailed);
}

}  // namespace
}  // namespace fsmove::scan
