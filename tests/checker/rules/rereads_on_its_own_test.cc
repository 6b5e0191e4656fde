// The rereads-on-its-own rule (src/checker/rules/rereads_on_its_own.cc): cron's own reads of
// its crontabs need no notify; the same file read by another program, and cron's other files,
// keep their strength; unattended-upgrade-shutdown's reads of apt's configuration are weak.
#include <gtest/gtest.h>

#include <string>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(RereadsOnItsOwnRuleTest, CronsOwnReadsOfItsCrontabsNeedNoNotify) {
  AnalysisBuilder run;
  run.Block("File[/etc/cron.d/backup]").Writes("/etc/cron.d/backup");
  run.Block("File[/etc/default/cron]").Writes("/etc/default/cron");
  run.Block("File[/etc/crontab]").Writes("/etc/crontab");
  run.Block("Service[cron]").Execs(400, "/usr/sbin/cron");
  run.By(400).Reads("/etc/cron.d/backup").Reads("/etc/default/cron");
  // A tool the service's start runs that reads a crontab: not cron itself.
  run.Forks(400, 401).Execs(401, "/usr/bin/crontab-lint");
  run.By(401).Reads("/etc/crontab");
  RuleHarness h({{"File", "/etc/cron.d/backup", {{"content", "0 1 * * * root backup"}}},
                 {"File", "/etc/default/cron", {{"content", "EXTRA_OPTS=-L 15"}}},
                 {"File", "/etc/crontab", {{"content", "SHELL=/bin/sh"}}},
                 {"Service", "cron"}},
                run);
  EXPECT_EQ(h.MaxStrength("rereads-on-its-own", checker::kNotificationEvidence,
                          "File[/etc/cron.d/backup]", "Service[cron]", "/etc/cron.d/backup"),
            0);
  EXPECT_EQ(h.MaxStrength("rereads-on-its-own", checker::kNotificationEvidence,
                          "File[/etc/default/cron]", "Service[cron]", "/etc/default/cron"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength("rereads-on-its-own", checker::kNotificationEvidence,
                          "File[/etc/crontab]", "Service[cron]", "/etc/crontab"),
            kStrongest);
  EXPECT_EQ(h.MaxStrength("rereads-on-its-own", checker::kOrderingEvidence,
                          "File[/etc/cron.d/backup]", "Service[cron]", "/etc/cron.d/backup"),
            0);
}

// unattended-upgrade-shutdown reads apt's configuration again at the shutdown signal; from its
// start it keeps only its log directory and debug flag: its own reads are weak, apt-get's keep
// their strength.
TEST(RereadsOnItsOwnRuleTest, ADaemonThatReadsItsConfigurationWhenItActsIsWeak) {
  const std::string shutdown = "/usr/share/unattended-upgrades/unattended-upgrade-shutdown";
  const std::string conf = "/etc/apt/apt.conf.d/50unattended-upgrades";
  AnalysisBuilder run;
  run.Block("File[" + conf + "]").Writes(conf);
  run.Block("Service[unattended-upgrades]").Execs(500, shutdown);
  run.By(500).Lists("/etc/apt/apt.conf.d").Reads(conf);
  run.Block("Exec[apt_update]").Execs(600, "/usr/bin/apt-get");
  run.By(600).Reads(conf);
  RuleHarness h({{"File", conf, {{"content", "Unattended-Upgrade::InstallOnShutdown \"true\";"}}},
                 {"Service", "unattended-upgrades"},
                 {"Exec", "apt_update"}},
                run);
  EXPECT_EQ(h.MaxStrength("rereads-on-its-own", checker::kNotificationEvidence,
                          "File[" + conf + "]", "Service[unattended-upgrades]", conf),
            1);
  EXPECT_EQ(h.MaxStrength("rereads-on-its-own", checker::kOrderingEvidence, "File[" + conf + "]",
                          "Service[unattended-upgrades]", conf),
            1);
  EXPECT_EQ(h.MaxStrength("rereads-on-its-own", checker::kOrderingEvidence, "File[" + conf + "]",
                          "Exec[apt_update]", conf),
            kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
