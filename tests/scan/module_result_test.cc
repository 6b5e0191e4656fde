#include "fsmove/scan/module_result.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::scan {
namespace {

nlohmann::json Report(int mor, int mn) {
  return {{"summary", {{"MOR", mor}, {"MN", mn}}},
          {"stats",
           {{"bytes", 1234},
            {"seconds", {{"parse_interpret", 0.5}, {"catalog_and_graph", 0.25}, {"check", 0.25}}}}},
          {"run",
           {{"timed_out", false},
            {"trace_complete", true},
            {"puppet_exit_code", 0},
            {"apply_seconds", 7.5},
            {"failed_resources", nlohmann::json::array()}}}};
}

CheckOutcome Exited(int code, std::optional<nlohmann::json> report, std::string log = "") {
  CheckOutcome o;
  o.exit_code = code;
  o.report = std::move(report);
  o.has_catalog = true;
  o.check_log = std::move(log);
  return o;
}

TEST(Classify, CleanAndFindings) {
  ModuleResult ok = Classify("m", Exited(0, Report(0, 0)));
  EXPECT_EQ(ok.status, ModuleStatus::kOk);
  EXPECT_EQ(ok.trace_bytes, 1234u);
  EXPECT_DOUBLE_EQ(ok.apply_seconds, 7.5);
  EXPECT_DOUBLE_EQ(ok.analysis_seconds, 1.0);
  EXPECT_TRUE(ok.error.empty());
  ModuleResult f = Classify("m", Exited(1, Report(2, 1)));
  EXPECT_EQ(f.status, ModuleStatus::kFindings);
  EXPECT_EQ(f.mor, 2);
  EXPECT_EQ(f.mn, 1);
}

TEST(Classify, Timeout) {
  auto r = Report(0, 0);
  r["run"]["timed_out"] = true;
  ModuleResult t = Classify(
      "m", Exited(2, r, "fsmove: error: puppet apply did not finish within 20 s (--timeout); x\n"));
  EXPECT_EQ(t.status, ModuleStatus::kTimeout);
  EXPECT_EQ(t.error, "puppet apply did not finish within 20 s (--timeout); x");
  // Stopped while compiling: no report, no catalog, but not a compile failure.
  CheckOutcome compiling =
      Exited(2, std::nullopt,
             "fsmove: error: Puppet was still compiling the catalog after 20 s "
             "(--timeout); everything was killed\n");
  compiling.has_catalog = false;
  EXPECT_EQ(Classify("m", compiling).status, ModuleStatus::kTimeout);
  CheckOutcome hard = Exited(137, std::nullopt);
  hard.killed_by_signal = true;
  hard.hard_killed = true;
  EXPECT_EQ(Classify("m", hard).status, ModuleStatus::kTimeout);
}

TEST(Classify, CompileFailed) {
  CheckOutcome o =
      Exited(2, std::nullopt,
             "fsmove: error: Puppet could not compile the catalog for m:\n"
             "Error: Could not parse for environment production: Syntax error at '}'\n");
  o.has_catalog = false;
  ModuleResult r = Classify("m", o);
  EXPECT_EQ(r.status, ModuleStatus::kCompileFailed);
  EXPECT_EQ(r.error, "Could not parse for environment production: Syntax error at '}'");
  // No catalog at all (e.g. a missing dependency caught before Puppet) is compile-failed too.
  CheckOutcome none = Exited(2, std::nullopt, "fsmove: error: something\n");
  none.has_catalog = false;
  EXPECT_EQ(Classify("m", none).status, ModuleStatus::kCompileFailed);
}

TEST(Classify, ACustomFactIsAWarningNotTheReason) {
  // What Puppet printed when a module's dependency was missing, after an unrelated module's
  // custom fact had failed: the fact is a warning, the evaluation error the reason.
  CheckOutcome o = Exited(
      2, std::nullopt,
      "fsmove: error: Puppet could not compile the catalog for m:\n"
      "\x1b[1;31mError: Facter: Error while resolving custom fact fact='ssh_client_version_full', "
      "resolution='<anonymous>': undefined method `[]' for nil\x1b[0m\n"
      "Error: Facter: error while resolving custom fact \"sudoversion\": boom\n"
      "Error: Evaluation Error: Unknown function: 'stdlib::ensure'. (file: /m/manifests/init.pp, "
      "line: 3, column: 5) on node h\n"
      "Error: Could not call 'find' on 'catalog': Evaluation Error: Unknown function: "
      "'stdlib::ensure'.\n"
      "Error: Try 'puppet help catalog find' for usage\n");
  o.has_catalog = false;
  ModuleResult r = Classify("m", o);
  EXPECT_EQ(r.status, ModuleStatus::kCompileFailed);
  EXPECT_EQ(r.error,
            "Evaluation Error: Unknown function: 'stdlib::ensure'. (file: /m/manifests/init.pp, "
            "line: 3, column: 5) on node h");
  EXPECT_EQ(r.warnings, (std::vector<std::string>{"custom fact 'ssh_client_version_full' failed",
                                                  "custom fact 'sudoversion' failed"}));
  // Only a wrapper line: it is the reason then.
  CheckOutcome wrapped =
      Exited(2, std::nullopt, "Error: Could not call 'find' on 'catalog': Syntax error\n");
  wrapped.has_catalog = false;
  EXPECT_EQ(Classify("m", wrapped).error, "Could not call 'find' on 'catalog': Syntax error");
}

TEST(Classify, AMissingDependencyIsTheReasonWhenPuppetLacksItsCode) {
  const std::string log =
      "fsmove: error: Puppet could not compile the catalog for m:\n"
      "Error: Evaluation Error: Error while evaluating a Function Call, Could not find class "
      "::openstack_integration for h (file: /w/manifest.pp, line: 1, column: 1) on node h\n"
      "fsmove: note: the module depends on openstack_integration, which no --modulepath "
      "directory holds; give the directories holding them with --modulepath DIR\n";
  CheckOutcome o = Exited(2, std::nullopt, log);
  o.has_catalog = false;
  o.missing_dependencies = {"puppetlabs/inifile", "openstack_integration"};
  ModuleResult r = Classify("m", o);
  EXPECT_EQ(r.status, ModuleStatus::kMissingDependency);
  EXPECT_THAT(r.error, ::testing::StartsWith("needs module openstack_integration "));
  EXPECT_THAT(r.error, ::testing::HasSubstr("Could not find class ::openstack_integration"));
  // A "user/name" dependency is matched by its short name, a data type by its first segment.
  CheckOutcome type = Exited(
      2, std::nullopt,
      "Error: Evaluation Error: Resource type not found: Stdlib::Ip_address (file: /m/init.pp, "
      "line: 9)\n");
  type.has_catalog = false;
  type.missing_dependencies = {"puppetlabs/stdlib"};
  EXPECT_EQ(Classify("m", type).status, ModuleStatus::kMissingDependency);
  EXPECT_THAT(Classify("m", type).error, ::testing::StartsWith("needs module puppetlabs/stdlib "));
  // The module is there (only an older one, say): not missing, an honest compile failure.
  type.missing_dependencies = {"puppetlabs/concat"};
  EXPECT_EQ(Classify("m", type).status, ModuleStatus::kCompileFailed);
  type.missing_dependencies.clear();
  EXPECT_EQ(Classify("m", type).status, ModuleStatus::kCompileFailed);
  // Not named by the module, and on no modulepath directory either: missing all the same.
  o.missing_dependencies.clear();
  o.absent_module = "openstack_integration";
  r = Classify("m", o);
  EXPECT_EQ(r.status, ModuleStatus::kMissingDependency);
  EXPECT_THAT(r.error, ::testing::HasSubstr("does not name it in metadata.json or .fixtures.yml"));
  // A plain type or function may come from any module: no module is blamed.
  CheckOutcome plain =
      Exited(2, std::nullopt, "Error: Evaluation Error: Unknown resource type: 'concat'\n");
  plain.has_catalog = false;
  plain.missing_dependencies = {"puppetlabs/concat"};
  plain.absent_module = "concat";
  EXPECT_EQ(Classify("m", plain).status, ModuleStatus::kCompileFailed);
  // A missing dependency is not why a compile failed on something else.
  CheckOutcome other =
      Exited(2, std::nullopt, "Error: Evaluation Error: Unsupported Kombu compression.\n");
  other.has_catalog = false;
  other.missing_dependencies = {"openstack_integration"};
  EXPECT_EQ(Classify("m", other).status, ModuleStatus::kCompileFailed);
}

TEST(Classify, ApplyFailed) {
  auto killed = Report(0, 0);
  killed["run"]["puppet_exit_code"] = 137;
  EXPECT_EQ(Classify("m", Exited(2, killed, "fsmove: error: puppet apply was killed by signal 9\n"))
                .status,
            ModuleStatus::kApplyFailed);
  auto incomplete = Report(0, 0);
  incomplete["run"]["trace_complete"] = false;
  EXPECT_EQ(Classify("m", Exited(2, incomplete)).status, ModuleStatus::kApplyFailed);
  auto failed = Report(0, 0);
  failed["run"]["failed_resources"] = {{{"resource", "Exec[x]"}, {"message", "failed"}}};
  EXPECT_EQ(Classify("m", Exited(2, failed)).status, ModuleStatus::kApplyFailed);
}

TEST(Classify, ResourcesFailed) {
  // check analysed the run (exit 0 or 1) but resources failed in it: not ok, counts kept.
  auto failed = Report(2, 1);
  failed["run"]["failed_resources"] = {
      {{"resource", "Service[x]"}, {"message", "Could not start"}}};
  ModuleResult one = Classify("m", Exited(0, failed));
  EXPECT_EQ(one.status, ModuleStatus::kResourcesFailed);
  EXPECT_EQ(one.error, "1 resource failed: Service[x]: Could not start");
  EXPECT_EQ(one.mor, 2);
  EXPECT_EQ(one.mn, 1);
  failed["run"]["failed_resources"].push_back({{"resource", "File[y]"}, {"message", "m"}});
  ModuleResult two = Classify("m", Exited(1, failed));
  EXPECT_EQ(two.status, ModuleStatus::kResourcesFailed);
  EXPECT_EQ(two.error, "2 resources failed, first Service[x]: Could not start");
  // 3: the check saw only part of the apply (resources skipped or never evaluated).
  nlohmann::json incomplete = Report(1, 0);
  incomplete["completeness"] = {{"summary", "1 resource never evaluated (3 of 4 evaluated)"}};
  ModuleResult three = Classify("m", Exited(3, incomplete));
  EXPECT_EQ(three.status, ModuleStatus::kResourcesFailed);
  EXPECT_EQ(three.mor, 1);
  EXPECT_EQ(
      three.error,
      "Puppet did not apply the whole catalog: 1 resource never evaluated (3 of 4 evaluated)");
  EXPECT_FALSE(IsFinal(ModuleStatus::kMissing));
  EXPECT_FALSE(IsFinal(ModuleStatus::kNothingToApply));
  EXPECT_TRUE(IsFinal(ModuleStatus::kResourcesFailed));
  EXPECT_TRUE(IsFinal(ModuleStatus::kMissingDependency));
}

TEST(Classify, Crashed) {
  CheckOutcome sig = Exited(139, std::nullopt, "partial output\n");
  sig.killed_by_signal = true;
  ModuleResult r = Classify("m", sig);
  EXPECT_EQ(r.status, ModuleStatus::kCrashed);
  EXPECT_EQ(r.error, "fsmove check was killed by signal 11: partial output");
  EXPECT_EQ(Classify("m", Exited(0, std::nullopt)).status, ModuleStatus::kCrashed);  // no report
  EXPECT_EQ(Classify("m", Exited(4, Report(0, 0))).status, ModuleStatus::kCrashed);
  EXPECT_EQ(Classify("m", Exited(2, Report(0, 0), "fsmove: error: odd\n")).status,
            ModuleStatus::kCrashed);
}

TEST(Classify, ErrorsAreOneLine) {
  EXPECT_EQ(ErrorLine("a\nfsmove: error: first\nfsmove: error: second\n"), "first");
  EXPECT_EQ(ErrorLine("one\ntwo\n\n"), "two");
  EXPECT_EQ(ErrorLine(std::string(1000, 'x')).size(), 300u);
}

TEST(ModuleResultJson, RoundTrips) {
  ModuleResult r;
  r.module = "a/b";
  r.status = ModuleStatus::kApplyFailed;
  r.mor = 3;
  r.error = "e";
  r.check_exit = 2;
  r.warnings = {"custom fact 'x' failed"};
  auto back = ModuleResultFromJson(ToJson(r));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->module, "a/b");
  EXPECT_EQ(back->status, ModuleStatus::kApplyFailed);
  EXPECT_EQ(back->mor, 3);
  EXPECT_EQ(back->check_exit, 2);
  EXPECT_EQ(back->warnings, r.warnings);
  auto j = ToJson(r);
  j["status"] = "exploded";
  EXPECT_FALSE(ModuleResultFromJson(j).has_value());
  EXPECT_FALSE(ModuleResultFromJson(nlohmann::json::array()).has_value());
  for (auto s : {ModuleStatus::kOk, ModuleStatus::kFindings, ModuleStatus::kResourcesFailed,
                 ModuleStatus::kCompileFailed, ModuleStatus::kApplyFailed, ModuleStatus::kTimeout,
                 ModuleStatus::kCrashed, ModuleStatus::kMissing, ModuleStatus::kMissingDependency,
                 ModuleStatus::kNothingToApply}) {
    EXPECT_EQ(ParseModuleStatus(ModuleStatusName(s)), s);
  }
}

}  // namespace
}  // namespace fsmove::scan
