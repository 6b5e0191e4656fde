#include "fsmove/exec/puppet_log.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

// What Puppet printed when fail2ban's service did not start: the first line of the error is
// the daemon's WARNING, the cause (ERROR) is on the next line, and the error appears twice.
constexpr std::string_view kFail2banLog =
    "Notice: Compiled catalog for host in environment production in 0.01 seconds\n"
    "Debug: Executing: '/etc/init.d/fail2ban start'\n"
    "Error: Could not start Service[fail2ban]: Execution of '/etc/init.d/fail2ban start' "
    "returned 255: 2024-01-01 WARNING 'allowipv6' not defined in 'Definition'.\n"
    "2024-01-01 ERROR   Failed during configuration: Have not found any log file for sshd jail\n"
    "Error: /Stage[main]/Fail2ban::Service/Service[fail2ban]/ensure: change from 'stopped' to "
    "'running' failed: Could not start Service[fail2ban]: Execution of '/etc/init.d/fail2ban "
    "start' returned 255: 2024-01-01 WARNING 'allowipv6' not defined in 'Definition'.\n"
    "2024-01-01 ERROR   Failed during configuration: Have not found any log file for sshd jail\n"
    "Debug: /Stage[main]/Fail2ban::Service/Service[fail2ban]: Nothing to manage\n"
    "a debug message's second line\n"
    "Notice: /Stage[main]/Main/File[/etc/x]: Dependency Service[fail2ban] has failures: true\n"
    "Warning: /Stage[main]/Main/File[/etc/x]: Skipping because of failed dependencies\n"
    "Error: /Stage[main]/Main/Exec[two]/returns: change from 'notrun' to ['0'] failed: first\n"
    "Error: /Stage[main]/Main/Exec[two]: second error of the same resource\n"
    "Error: Failed to apply catalog: something general\n"
    "  its detail\n";

TEST(PuppetLog, EachFailedResourceCarriesItsWholeError) {
  PuppetLogSummary s = SummarisePuppetLog(kFail2banLog);
  ASSERT_EQ(s.failed.size(), 2u);
  EXPECT_EQ(s.failed[0].resource, "Service[fail2ban]");
  // The resource's error with the line continuing it; the shorter repetition is dropped.
  EXPECT_EQ(s.failed[0].message,
            "change from 'stopped' to 'running' failed: Could not start Service[fail2ban]: "
            "Execution of '/etc/init.d/fail2ban start' returned 255: 2024-01-01 WARNING "
            "'allowipv6' not defined in 'Definition'.\n"
            "2024-01-01 ERROR   Failed during configuration: Have not found any log file for "
            "sshd jail");
  EXPECT_EQ(s.failed[1].resource, "Exec[two]");
  EXPECT_EQ(s.failed[1].message,
            "change from 'notrun' to ['0'] failed: first\nsecond error of the same resource");
  EXPECT_THAT(s.errors, ::testing::ElementsAre("Failed to apply catalog: something general\n"
                                               "  its detail"));
  EXPECT_EQ(s.skipped, 1u);
}

TEST(PuppetLog, AnErrorNamingNoPathIsKeptWhenNoResourceFailed) {
  PuppetLogSummary s = SummarisePuppetLog("Error: Could not start Service[x]: boom\nmore\n");
  EXPECT_TRUE(s.failed.empty());
  EXPECT_THAT(s.errors, ::testing::ElementsAre("Could not start Service[x]: boom\nmore"));
}

// Facter's errors are not the run's (lines of real runs: puppetlabs-tftp on a root without
// openssh, Facter 4; the sandbox's own PID 1 as Facter sees it): warnings, once each.
TEST(PuppetLog, FactersErrorsAreWarningsNotTheRunsErrors) {
  std::string log =
      "Error: Facter: Error while resolving custom fact fact='ssh_server_version_full', "
      "resolution='<anonymous>': undefined method `lines' for nil:NilClass\n"
      "Error: Facter: Error while resolving custom fact fact='ssh_server_version_full', "
      "resolution='<anonymous>': undefined method `lines' for nil:NilClass\n"
      "Error: Facter: Error while resolving custom fact fact='oci_ssh_host_key_certs_list', "
      "resolution='<anonymous>': No such file or directory @ dir_s_chdir - /etc/ssh\n"
      "  a backtrace line of Facter's\n"
      "Warning: Facter: Container runtime, 'fsmove', is unsupported, setting to "
      "'container_other'\n"
      "Error: Facter: error while resolving \"virtual\": Permission denied @ rb_sysopen - "
      "/proc/1/environ\n"
      "Error: /Stage[main]/Main/Exec[x]/returns: change from 'notrun' to ['0'] failed\n";
  PuppetLogSummary s = SummarisePuppetLog(log);
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  ASSERT_EQ(s.failed.size(), 1u);
  EXPECT_EQ(s.failed[0].message, "change from 'notrun' to ['0'] failed");
  EXPECT_THAT(s.facter_warnings,
              ::testing::ElementsAre(
                  "custom fact 'ssh_server_version_full' failed: undefined method `lines' for "
                  "nil:NilClass",
                  "custom fact 'oci_ssh_host_key_certs_list' failed: No such file or directory "
                  "@ dir_s_chdir - /etc/ssh",
                  "Facter: error while resolving \"virtual\": Permission denied @ rb_sysopen "
                  "- /proc/1/environ"));
  // Eighteen lines of the same kind: five warnings and a count, never eighteen.
  std::string noisy;
  for (int i = 0; i < 18; ++i) {
    noisy +=
        "Error: Facter: error while resolving custom fact \"f" + std::to_string(i) + "\": boom\n";
  }
  s = SummarisePuppetLog(noisy);
  EXPECT_TRUE(s.errors.empty());
  ASSERT_EQ(s.facter_warnings.size(), 6u);
  EXPECT_EQ(s.facter_warnings[0], "custom fact 'f0' failed: boom");
  EXPECT_EQ(s.facter_warnings[5], "13 more of Facter's errors (Puppet's log)");
}

TEST(PuppetLog, ContinuationsAreCapped) {
  std::string log = "Error: /Stage[main]/Main/Exec[x]/returns: failed\n";
  for (int i = 0; i < 1000; ++i) log += "line of output\n";
  PuppetLogSummary s = SummarisePuppetLog(log);
  ASSERT_EQ(s.failed.size(), 1u);
  EXPECT_LT(s.failed[0].message.size(), 1000u);
}

TEST(PuppetLog, CompileErrorsOnce) {
  EXPECT_EQ(DeduplicateErrors("Error: Could not find class ::x for h (file: /m.pp, line: 1)\n"
                              "Error: Could not call 'find' on 'catalog': Could not find class "
                              "::x for h (file: /m.pp, line: 1)\n"
                              "Error: Try 'puppet help catalog find' for usage\n"),
            "Error: Could not find class ::x for h (file: /m.pp, line: 1)\n");
  EXPECT_TRUE(LacksModules("Error: Could not find class ::x for h"));
  EXPECT_FALSE(LacksModules("Error: Could not parse for environment production: Syntax error"));
  // A data type of a module the metadata forgot (sssd's Stdlib::Absolutepath).
  EXPECT_TRUE(LacksModules(
      "Error: Evaluation Error: Resource type not found: Stdlib::Absolutepath (file: /m.pp)"));
  // A variable of a module that is not there, and a fact Puppet 8 dropped.
  EXPECT_TRUE(LacksModules("Error: Evaluation Error: Unknown variable: '::apache::params::user'."));
  const std::string legacy =
      "Error: Evaluation Error: Unknown variable: '::osfamily'. (file: /m/params.pp, line: 8)";
  EXPECT_FALSE(LacksModules(legacy));
  EXPECT_EQ(LegacyFactUsed(legacy), "osfamily");
  EXPECT_EQ(LegacyFactUsed("Error: Unknown variable: 'ipaddress_eth0'."), "ipaddress_eth0");
  EXPECT_EQ(LegacyFactUsed("Error: Unknown variable: '::ipaddress_'."), "");
  EXPECT_EQ(LegacyFactUsed("Error: Unknown variable: '::osfamilyx'."), "");
  EXPECT_EQ(LegacyFactUsed(""), "");
}

TEST(PuppetLog, WhatPuppetDidNotFind) {
  EXPECT_EQ(UnfoundName("Evaluation Error: Error while evaluating a Function Call, Could not find "
                        "class ::openstack_integration for h.example (file: /m.pp, line: 1)"),
            "openstack_integration");
  EXPECT_EQ(UnfoundName("Could not find declared class mod::server at /m.pp:3"), "mod::server");
  EXPECT_EQ(UnfoundName("Evaluation Error: Error while evaluating a Resource Statement, Unknown "
                        "resource type: 'openstacklib::db::mysql' (file: /m.pp, line: 4)"),
            "openstacklib::db::mysql");
  EXPECT_EQ(UnfoundName("Evaluation Error: Resource type not found: Stdlib::Ip_address (file: "
                        "/m/init.pp, line: 9, column: 3)"),
            "Stdlib::Ip_address");
  EXPECT_EQ(UnfoundName("Evaluation Error: Unknown function: 'extlib::cache_data'."),
            "extlib::cache_data");
  EXPECT_EQ(UnfoundName("Evaluation Error: Unknown variable: '::apache::params::user'."),
            "apache::params::user");
  // A plain variable is a fact or a typo, not a module's; other errors name nothing.
  EXPECT_EQ(UnfoundName("Evaluation Error: Unknown variable: '::osfamily'."), "");
  EXPECT_EQ(UnfoundName("Evaluation Error: Error while evaluating a Function Call, Unsupported "
                        "Kombu compression."),
            "");
  EXPECT_EQ(UnfoundName("Could not find class ::"), "");
  EXPECT_EQ(ModuleOfName("Stdlib::Ip_address"), "stdlib");
  EXPECT_EQ(ModuleOfName("::openstack_integration"), "openstack_integration");
  EXPECT_EQ(ModuleOfName("Concat"), "concat");
  // Only a class or a namespaced name says which module it lives in.
  EXPECT_EQ(UnfoundModule("Could not find class ::openstack_integration for h"),
            "openstack_integration");
  EXPECT_EQ(UnfoundModule("Resource type not found: Stdlib::Ip_address (file: x)"), "stdlib");
  EXPECT_EQ(UnfoundModule("Unknown resource type: 'ini_setting'"), "");
  EXPECT_EQ(UnfoundModule("Unknown function: 'pick'."), "");
  EXPECT_EQ(UnfoundModule("Syntax error at '}'"), "");
  // A core type Puppet 6 moved into a module of its own: named by the type alone.
  EXPECT_EQ(CoreTypeModule(UnfoundName("Unknown resource type: 'augeas'")),
            "puppetlabs-augeas_core");
  EXPECT_EQ(CoreTypeModule("Ssh_authorized_key"), "puppetlabs-sshkeys_core");
  EXPECT_EQ(CoreTypeModule("nagios_host"), "puppetlabs-nagios_core");
  EXPECT_EQ(CoreTypeModule("ini_setting"), "");
  EXPECT_EQ(CoreTypeModule(""), "");
}

}  // namespace
}  // namespace fsmove::exec

namespace fsmove::exec {
namespace {

// What one apply printed (--debug, as the traced apply runs): changes, a refresh, a skip, a
// failure, a title holding ": " and "/", and lines that name no resource.
constexpr std::string_view kApplyLog =
    "Notice: Compiled catalog for host in environment production in 0.01 seconds\n"
    "Debug: /Stage[main]/Main/File[/etc/a]: Nothing to manage\n"
    "\x1b[mNotice: /Stage[main]/Main/File[/etc/a]/ensure: defined content as '{sha256}11'\x1b[0m\n"
    "Notice: /Stage[main]/Main/File[/etc/a]/mode: mode changed '0600' to '0644'\n"
    "Notice: /Stage[main]/Main/Exec[run: a/b]/returns: executed successfully\n"
    "Notice: /Stage[main]/App::Service/Service[app]: Triggered 'refresh' from 1 event\n"
    "Notice: /Stage[main]/Main/Notify[hello]/message: defined 'message' as 'hello'\n"
    "Error: /Stage[main]/Main/Exec[bad]/returns: change from 'notrun' to ['0'] failed: boom\n"
    "Notice: /Stage[main]/Main/File[/etc/b]: Dependency Exec[bad] has failures: true\n"
    "Warning: /Stage[main]/Main/File[/etc/b]: Skipping because of failed dependencies\n"
    "Notice: Applied catalog in 0.04 seconds\n";

TEST(ApplyOutcomes, ChangesFailuresSkipsAndRefreshesPerResource) {
  ApplyOutcomes o = ParseApplyOutcomes(kApplyLog);
  EXPECT_FALSE(o.dependency_cycle);
  ASSERT_TRUE(o.resources.contains("File[/etc/a]"));
  EXPECT_THAT(o.resources["File[/etc/a]"].changes,
              ::testing::ElementsAre("ensure: defined content as '{sha256}11'",
                                     "mode: mode changed '0600' to '0644'"));
  EXPECT_THAT(o.resources["Exec[run: a/b]"].changes,
              ::testing::ElementsAre("returns: executed successfully"));
  EXPECT_TRUE(o.resources["Service[app]"].refreshed);
  EXPECT_TRUE(o.resources["Service[app]"].changes.empty());
  EXPECT_TRUE(o.resources["Exec[bad]"].failed);
  EXPECT_THAT(o.resources["Exec[bad]"].error, ::testing::HasSubstr("boom"));
  EXPECT_TRUE(o.resources["File[/etc/b]"].skipped);
  EXPECT_FALSE(o.resources["File[/etc/b]"].failed);
}

TEST(ApplyOutcomes, DependencyCycle) {
  ApplyOutcomes o =
      ParseApplyOutcomes("Error: Found 1 dependency cycle:\n(File[/a] => Exec[b] => File[/a])\n");
  EXPECT_TRUE(o.dependency_cycle);
}

TEST(NotIdempotent, TellsEveryApplyFromConvergenceAndLeavesOutNotifyAndFirstFailures) {
  ApplyOutcomes first = ParseApplyOutcomes(kApplyLog);
  ApplyOutcomes second = ParseApplyOutcomes(
      "Notice: /Stage[main]/Main/Exec[run: a/b]/returns: executed successfully\n"
      "Notice: /Stage[main]/Main/File[/etc/c]/content: content changed '{sha256}1' to '{sha256}2'\n"
      "Notice: /Stage[main]/Main/Notify[hello]/message: defined 'message' as 'hello'\n"
      "Notice: /Stage[main]/Main/Exec[bad]/returns: executed successfully\n"
      "Notice: /Stage[main]/Main/File[/etc/b]/ensure: created\n"
      "Error: /Stage[main]/Main/Service[db]/ensure: change from 'stopped' to 'running' failed: no\n"
      "Notice: /Stage[main]/App::Service/Service[app]: Triggered 'refresh' from 1 event\n");
  ApplyOutcomes third = ParseApplyOutcomes(
      "Notice: /Stage[main]/Main/Exec[run: a/b]/returns: executed successfully\n");
  std::vector<NotIdempotent> ni = FindNotIdempotent(first, second, &third);
  ASSERT_EQ(ni.size(), 3u);
  EXPECT_EQ(ni[0].resource, "Exec[run: a/b]");
  EXPECT_EQ(ni[0].behaviour, "changes-every-apply");
  EXPECT_THAT(ni[0].third, ::testing::ElementsAre("returns: executed successfully"));
  EXPECT_EQ(ni[1].resource, "File[/etc/c]");
  EXPECT_EQ(ni[1].behaviour, "converged-on-third-apply");
  EXPECT_EQ(ni[2].resource, "Service[db]");
  EXPECT_EQ(ni[2].behaviour, "fails-on-reapply");
  // Without a third apply, a change on the second is all that is known.
  ni = FindNotIdempotent(first, second, nullptr);
  EXPECT_EQ(ni[0].behaviour, "changed-on-second-apply");
}

TEST(FailedCustomFacts, EachFacterFormOnce) {
  EXPECT_EQ(FailedCustomFacts("Error: Facter: error while resolving custom facts in "
                              "/m/lib/facter/a.rb: undefined local variable\n"
                              "Error: Facter: Error while resolving custom fact fact='b', "
                              "resolution='<anonymous>': x\n"
                              "Error: Facter: error while resolving custom fact \"b\": x\n"
                              "Warning: Error while resolving custom fact 'c'\n"
                              "Error: Evaluation Error: not a fact\n"),
            (std::vector<std::string>{"/m/lib/facter/a.rb", "b"}));
  EXPECT_EQ(FatalCompileError("Error: Facter: error while resolving custom facts in /a.rb: x\n"),
            "");
}

// Lines of a real systemd.log (a unit whose daemon exits 2 once started), with the noise
// around them: each failed service unit once, the main process's end preferred.
TEST(SystemdLog, FailedUnitsOfItsLog) {
  const std::string log =
      "fsmove-dies.service: Failed to get cgroup ID of cgroup "
      "/sys/fs/cgroup/system.slice/fsmove-dies.service, ignoring: Operation not permitted\n"
      "fsmove-dies.service: Main process exited, code=exited, status=2/INVALIDARGUMENT\r\n"
      "fsmove-dies.service: Failed with result 'exit-code'.\n"
      "cron.service: Main process exited, code=exited, status=0/SUCCESS\n"
      "clamav-daemon.service: Failed with result 'exit-code'.\n"
      "[FAILED] Failed to start fsmove-dies.service.\n"
      "a unit.service: Failed with result 'x'.\n"
      "bird.service: Main process exited, code=killed, status=9/KILL\n";
  const std::vector<FailedUnit> units = FailedUnits(log);
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0].unit, "fsmove-dies.service");
  EXPECT_EQ(units[0].why, "Main process exited, code=exited, status=2/INVALIDARGUMENT");
  EXPECT_EQ(units[1].unit, "clamav-daemon.service");
  EXPECT_EQ(units[1].why, "Failed with result 'exit-code'");
  EXPECT_EQ(units[2].unit, "bird.service");
  EXPECT_EQ(units[2].why, "Main process exited, code=killed, status=9/KILL");
  // Bounded, whatever the log holds.
  std::string many;
  for (int i = 0; i < 100; ++i)
    many += "u" + std::to_string(i) + ".service: Failed with result 'x'.\n";
  EXPECT_EQ(FailedUnits(many).size(), kMaxFailedUnits);
}

}  // namespace
}  // namespace fsmove::exec
