// The refresh-guaranteed rule (src/checker/rules/refresh_guaranteed.cc): a refresh after every
// change leaves no MN, and orders the pair.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::PairVerdict;

TEST(RefreshGuaranteedRuleTest, ANotifyRefreshesAndOrders) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("File[/etc/other.conf]").Writes("/etc/other.conf");
  run.Block("Service[app]").Reads("/etc/app.conf").Reads("/etc/other.conf");
  RuleHarness h({{"File", "/etc/app.conf", {{"notify", "Service[app]"}}},
                 {"File", "/etc/other.conf", {{"before", "Service[app]"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair, "File[/etc/app.conf]",
                   "Service[app]"),
            PairVerdict::kGuaranteed);
  // Ordered, not notified: the service may run the old content.
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair, "File[/etc/other.conf]",
                   "Service[app]"),
            PairVerdict::kKeep);
  // The MOR of a refreshed pair is ordered by the refresh; the other's is not this rule's.
  EXPECT_EQ(
      h.Pair("refresh-guaranteed", checker::kOrderingPair, "File[/etc/app.conf]", "Service[app]"),
      PairVerdict::kGuaranteed);
  EXPECT_EQ(
      h.Pair("refresh-guaranteed", checker::kOrderingPair, "File[/etc/other.conf]", "Service[app]"),
      PairVerdict::kKeep);
}

// A refreshonly Exec runs only when notified: when everything that notifies it also refreshes
// the service, the service is refreshed after whatever the Exec changes.
TEST(RefreshGuaranteedRuleTest, ARefreshOnlyExecWhoseTriggersRefreshTheService) {
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes("/etc/app.conf");
  run.Block("Exec[rebuild]").Writes("/var/lib/app/index");
  run.Block("Exec[other]").Writes("/var/lib/app/other");
  run.Block("Service[app]").Reads("/var/lib/app/index").Reads("/var/lib/app/other");
  RuleHarness h({{"File",
                  "/etc/app.conf",
                  {{"notify", nlohmann::json::array({"Exec[rebuild]", "Service[app]"})}}},
                 {"Exec",
                  "rebuild",
                  {{"refreshonly", true}, {"command", "/bin/rebuild"}, {"before", "Service[app]"}}},
                 {"Exec", "other", {{"command", "/bin/other"}}},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(
      h.Pair("refresh-guaranteed", checker::kNotificationPair, "Exec[rebuild]", "Service[app]"),
      PairVerdict::kGuaranteed);
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair, "Exec[other]", "Service[app]"),
            PairVerdict::kKeep);
}

// Modules notify the class that holds the Exec (smoeding-sendmail: `notify =>
// Class['sendmail::makeall']`): those are its triggers too, each of which must refresh the
// service; a trigger that does not keeps the pair.
TEST(RefreshGuaranteedRuleTest, TriggersThroughTheExecsClass) {
  AnalysisBuilder run;
  run.Block("File[/etc/mail/submit.mc]").Writes("/etc/mail/submit.mc");
  run.Block("File[/etc/mail/access]").Writes("/etc/mail/access");
  run.Block("Exec[makeall]").Writes("/etc/mail/submit.cf");
  run.Block("Service[sendmail]").Reads("/etc/mail/submit.cf");
  auto catalog = [](bool every_trigger_refreshes) {
    return std::vector<TestResource>{
        {"Class", "Makeall"},
        {"Class", "Service"},
        {"File",
         "/etc/mail/submit.mc",
         {{"notify", nlohmann::json::array({"Class[Makeall]", "Class[Service]"})}}},
        {"File",
         "/etc/mail/access",
         {{"notify", every_trigger_refreshes
                         ? nlohmann::json::array({"Class[Makeall]", "Class[Service]"})
                         : nlohmann::json::array({"Class[Makeall]"})}}},
        {"Exec",
         "makeall",
         {{"refreshonly", true},
          {"command", "/usr/bin/make -C /etc/mail"},
          {"before", "Class[Service]"},
          {"contained_in", "Class[Makeall]"}}},
        {"Service", "sendmail", {{"contained_in", "Class[Service]"}}}};
  };
  RuleHarness every(catalog(true), run);
  EXPECT_EQ(every.Pair("refresh-guaranteed", checker::kNotificationPair, "Exec[makeall]",
                       "Service[sendmail]"),
            PairVerdict::kGuaranteed);
  RuleHarness one_does_not(catalog(false), run);
  EXPECT_EQ(one_does_not.Pair("refresh-guaranteed", checker::kNotificationPair, "Exec[makeall]",
                              "Service[sendmail]"),
            PairVerdict::kKeep);
}

// A daemon's own control program as the refresh (control_programs.tsv): syslog-ng-ctl reload,
// notified by the configuration, makes the running syslog-ng read it again (ccin2p3-syslog_ng);
// a daemon-reload notified by a timer's drop-in re-arms the timer with the new schedule
// (qtechnologies-sysstat). A daemon-reload is no refresh of a service that is not a timer.
TEST(RefreshGuaranteedRuleTest, AControlProgramRefreshesItsDaemon) {
  AnalysisBuilder run;
  run.Block("File[/etc/syslog-ng/syslog-ng.conf]").Writes("/etc/syslog-ng/syslog-ng.conf");
  run.Block("File[/etc/systemd/system/collect.timer.d/override.conf]")
      .Writes("/etc/systemd/system/collect.timer.d/override.conf");
  run.Block("File[/etc/systemd/system/app.service.d/override.conf]")
      .Writes("/etc/systemd/system/app.service.d/override.conf");
  run.Block("Service[syslog-ng]").Reads("/etc/syslog-ng/syslog-ng.conf");
  run.Block("Service[collect.timer]").Reads("/etc/systemd/system/collect.timer.d/override.conf");
  run.Block("Service[app]").Reads("/etc/systemd/system/app.service.d/override.conf");
  RuleHarness h({{"File", "/etc/syslog-ng/syslog-ng.conf", {{"notify", "Exec[syslog_ng_reload]"}}},
                 {"Exec",
                  "syslog_ng_reload",
                  {{"command", "/usr/sbin/syslog-ng-ctl reload"}, {"refreshonly", true}}},
                 {"File",
                  "/etc/systemd/system/collect.timer.d/override.conf",
                  {{"notify", "Exec[systemctl daemon-reload]"}}},
                 {"File",
                  "/etc/systemd/system/app.service.d/override.conf",
                  {{"notify", "Exec[systemctl daemon-reload]"}}},
                 {"Exec",
                  "systemctl daemon-reload",
                  {{"command", "/bin/systemctl daemon-reload"}, {"refreshonly", true}}},
                 {"Service", "syslog-ng"},
                 {"Service", "collect.timer"},
                 {"Service", "app"}},
                run);
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair,
                   "File[/etc/syslog-ng/syslog-ng.conf]", "Service[syslog-ng]"),
            PairVerdict::kGuaranteed);
  EXPECT_EQ(
      h.Pair("refresh-guaranteed", checker::kNotificationPair,
             "File[/etc/systemd/system/collect.timer.d/override.conf]", "Service[collect.timer]"),
      PairVerdict::kGuaranteed);
  EXPECT_EQ(h.Pair("refresh-guaranteed", checker::kNotificationPair,
                   "File[/etc/systemd/system/app.service.d/override.conf]", "Service[app]"),
            PairVerdict::kKeep);
}

}  // namespace
}  // namespace fsmove::testing
