// The resource semantics the checker relies on: which types edit one key of a file, what a
// File establishes, which accounts a resource names, and which execs restart a service.
#include "fsmove/checker/resource_semantics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fsmove::checker {
namespace {

catalog::Resource Res(std::string type, std::string title, nlohmann::json params = {}) {
  catalog::Resource r;
  r.type = std::move(type);
  r.title = std::move(title);
  r.ref = r.type + "[" + r.title + "]";
  r.parameters = params.is_null() ? nlohmann::json::object() : std::move(params);
  return r;
}

TEST(ResourceSemanticsTest, PartialEditors) {
  for (const char* t :
       {"File_line", "Augeas", "Ini_setting", "Shellvar", "Fm_replace", "Fm_prepend", "Nova_config",
        "Postfix_conf", "Mailalias", "Debconf", "Aodh_api_paste_ini"}) {
    EXPECT_TRUE(IsPartialEditor(Res(t, "x"))) << t;
  }
  for (const char* t : {"File", "Package", "Exec", "Service", "Config", "Concat_file", "_ini"}) {
    EXPECT_FALSE(IsPartialEditor(Res(t, "x"))) << t;
  }
}

TEST(ResourceSemanticsTest, WhatAFileEstablishes) {
  EXPECT_TRUE(EstablishesContent(Res("File", "/a", {{"content", "x"}})));
  EXPECT_TRUE(EstablishesContent(Res("File", "/a", {{"source", "puppet:///modules/m/a"}})));
  EXPECT_TRUE(EstablishesContent(Res("File", "/a", {{"ensure", "file"}, {"owner", "x"}})));
  EXPECT_TRUE(EstablishesContent(Res("File", "/a", {{"ensure", "link"}, {"target", "/b"}})));
  EXPECT_FALSE(EstablishesContent(Res("File", "/a", {{"ensure", "directory"}})));
  EXPECT_FALSE(EstablishesContent(Res("File", "/a", {{"owner", "x"}, {"mode", "0600"}})));
  EXPECT_FALSE(EstablishesContent(Res("File", "/a", {{"content", "x"}, {"replace", false}})));
  EXPECT_FALSE(EstablishesContent(Res("Exec", "/a", {{"content", "x"}})));
  EXPECT_TRUE(OnlyEnsuresExistence(Res("File", "/a", {{"ensure", "file"}, {"owner", "x"}})));
  EXPECT_TRUE(OnlyEnsuresExistence(Res("File", "/a", {{"content", "x"}, {"replace", "false"}})));
  EXPECT_FALSE(OnlyEnsuresExistence(Res("File", "/a", {{"content", "x"}})));
  EXPECT_FALSE(OnlyEnsuresExistence(Res("File", "/a", {{"ensure", "directory"}})));
}

TEST(ResourceSemanticsTest, NameServiceDatabases) {
  for (const char* p : {"/etc/passwd", "/etc/group", "/etc/shadow", "/etc/gshadow-", "/etc/passwd+",
                        "/etc/group.lock", "/etc/passwd.347", "/etc/subuid", "/etc/nshadow",
                        "/etc/.pwd.lock", "/etc/nsswitch.conf"}) {
    EXPECT_TRUE(IsNameServiceDatabase(p)) << p;
  }
  for (const char* p : {"/etc/passwords", "/etc/groups.conf", "/etc/app/passwd", "/etc/hosts"}) {
    EXPECT_FALSE(IsNameServiceDatabase(p)) << p;
  }
}

TEST(ResourceSemanticsTest, DropInDirectories) {
  for (const char* p : {"/etc/apt/sources.list.d", "/etc/rsyslog.d", "/etc/nginx/conf.d",
                        "/etc/apache2/sites-enabled", "/etc/apache2/mods-available"}) {
    EXPECT_TRUE(IsDropInDirectory(p)) << p;
  }
  for (const char* p : {"/etc", "/etc/postfix", "/usr/share/snmp/mibs", "/var/lib/dpkg", "/.d"}) {
    EXPECT_FALSE(IsDropInDirectory(p)) << p;
  }
}

TEST(ResourceSemanticsTest, NamedAccountsLeaveOutRootAndIds) {
  using ::testing::ElementsAre;
  using ::testing::IsEmpty;
  EXPECT_THAT(NamedAccounts(Res("File", "/a", {{"owner", "root"}, {"group", "0"}})), IsEmpty());
  EXPECT_THAT(NamedAccounts(Res("File", "/a", {{"owner", "mysql"}, {"group", "adm"}})),
              ElementsAre("mysql", "adm"));
  EXPECT_THAT(NamedAccounts(Res("Exec", "x", {{"user", "postgres"}})), ElementsAre("postgres"));
  EXPECT_THAT(NamedAccounts(Res("User", "app")), ElementsAre("app"));
  EXPECT_THAT(NamedAccounts(Res("Package", "app")), IsEmpty());
}

TEST(ResourceSemanticsTest, RestartCommands) {
  EXPECT_TRUE(CommandRestartsService("/usr/sbin/service postfix restart", "postfix"));
  EXPECT_TRUE(CommandRestartsService("systemctl reload nginx.service", "nginx"));
  EXPECT_TRUE(CommandRestartsService("/etc/init.d/slapd force-reload", "slapd"));
  EXPECT_TRUE(CommandRestartsService("pkill -HUP rsyslogd", "rsyslogd"));
  EXPECT_TRUE(CommandRestartsService("invoke-rc.d cron restart", "cron"));
  EXPECT_FALSE(CommandRestartsService("service postfix status", "postfix"));
  EXPECT_FALSE(CommandRestartsService("service postfix-policyd restart", "postfix"));
  EXPECT_FALSE(CommandRestartsService("newaliases", "postfix"));
  EXPECT_FALSE(CommandRestartsService("systemctl restart nginx", ""));
}

// control_programs.tsv: a program of the row's file name anywhere in the command, its verb after.
TEST(ResourceSemanticsTest, ControlPrograms) {
  auto row_id = [](std::string_view command, std::string_view name) -> std::string {
    const knowledge::Row* row = ControlProgramRefreshes(command, name);
    return row == nullptr ? "" : std::string(row->id);
  };
  EXPECT_EQ(row_id("/usr/sbin/syslog-ng-ctl reload", "syslog-ng"), "control.syslog-ng-ctl");
  EXPECT_EQ(row_id("syslog-ng-ctl reload", "syslog-ng.service"), "control.syslog-ng-ctl");
  EXPECT_EQ(row_id("/bin/sh -c 'syslog-ng-ctl reload'", "syslog-ng"), "control.syslog-ng-ctl");
  EXPECT_EQ(row_id("systemctl daemon-reload", "sysstat-collect.timer"), "control.systemctl-timers");
  EXPECT_EQ(row_id("/bin/systemctl --system daemon-reload", "x.timer"), "control.systemctl-timers");
  EXPECT_EQ(row_id("syslog-ng-ctl stats", "syslog-ng"), "");    // not its verb
  EXPECT_EQ(row_id("syslog-ng-ctl reload", "rsyslog"), "");     // not its daemon
  EXPECT_EQ(row_id("reload syslog-ng-ctl", "syslog-ng"), "");   // the verb before the program
  EXPECT_EQ(row_id("systemctl daemon-reload", "sysstat"), "");  // a service, not a timer
  EXPECT_EQ(row_id("echo systemctl-daemon-reload", "x.timer"), "");
  EXPECT_EQ(row_id("", ""), "");
}

TEST(ResourceSemanticsTest, RubyTempfiles) {
  EXPECT_TRUE(IsRubyTempfile("/tmp/openldap_dbindex20261124-76-93q0su"));
  EXPECT_TRUE(IsRubyTempfile("/tmp/augeas20250101-1234-1abcxyz.conf"));
  EXPECT_TRUE(IsRubyTempfile("/var/tmp/20261124-9-z"));
  EXPECT_FALSE(IsRubyTempfile("/etc/openldap_dbindex20261124-76-93q0su"));
  EXPECT_FALSE(IsRubyTempfile("/tmp/backup-20261124"));
  EXPECT_FALSE(IsRubyTempfile("/tmp/x20261124-76-"));
  EXPECT_FALSE(IsRubyTempfile("/tmp/x20261124-76-ABC"));
  EXPECT_FALSE(IsRubyTempfile("/tmp/app.sock"));
}

TEST(ResourceSemanticsTest, StopCommands) {
  EXPECT_TRUE(CommandStopsService("service snmpd stop ; sleep 5", "snmpd"));
  EXPECT_TRUE(CommandStopsService("systemctl stop snmpd; sleep 5", "snmpd"));
  EXPECT_TRUE(CommandStopsService("/etc/init.d/slapd stop", "slapd"));
  EXPECT_FALSE(CommandStopsService("service snmpd stop && service snmpd start", "snmpd"));
  EXPECT_FALSE(CommandStopsService("service snmpd restart", "snmpd"));
  EXPECT_FALSE(CommandStopsService("service snmptrapd stop", "snmpd"));
  EXPECT_FALSE(CommandStopsService("stop-snmpd", "snmpd"));
  EXPECT_FALSE(CommandStopsService("service snmpd stop", ""));
  EXPECT_TRUE(RunsEveryApply(Res("Exec", "x", {{"command", "true"}})));
  EXPECT_FALSE(RunsEveryApply(Res("Exec", "x", {{"command", "true"}, {"refreshonly", true}})));
  EXPECT_FALSE(RunsEveryApply(Res("Exec", "x", {{"command", "true"}, {"unless", "false"}})));
  EXPECT_FALSE(RunsEveryApply(Res("File", "x")));
}

TEST(ResourceSemanticsTest, UnitReloadsAndUnitDefinitions) {
  EXPECT_TRUE(IsUnitReload(
      Res("Exec", "systemctl-daemon-reload", {{"command", "systemctl daemon-reload"}})));
  EXPECT_TRUE(
      IsUnitReload(Res("Exec", "reload", {{"command", "/bin/systemctl --system daemon-reload"}})));
  // voxpupuli-systemd's systemd::daemon_reload: an argv, which Puppet runs without a shell.
  EXPECT_TRUE(
      IsUnitReload(Res("Exec", "systemd-snmpd.service-systemctl-daemon-reload",
                       {{"command", nlohmann::json::array({"systemctl", "daemon-reload"})}})));
  EXPECT_FALSE(IsUnitReload(Res("Exec", "x", {{"command", "systemctl restart cron"}})));
  EXPECT_FALSE(IsUnitReload(Res("Exec", "x", {{"command", "echo daemon-reload"}})));
  EXPECT_FALSE(IsUnitReload(Res("Exec", "x", {{"command", "systemctl daemon-reloaded"}})));
  EXPECT_FALSE(IsUnitReload(Res("Service", "systemctl daemon-reload")));
  for (std::string_view p :
       {"/etc/systemd/system/cron.service.d/nice.conf", "/lib/systemd/system/cron.service",
        "/run/systemd/system/x.service", "/usr/lib/systemd/system/ssh.socket"}) {
    EXPECT_TRUE(IsUnitDefinition(p)) << p;
  }
  for (std::string_view p : {"/etc/systemd/system/", "/etc/systemd/journald.conf",
                             "/run/systemd/generator/x.service", "/etc/default/cron"}) {
    EXPECT_FALSE(IsUnitDefinition(p)) << p;
  }
}

TEST(ResourceSemanticsTest, RuntimeState) {
  for (std::string_view p :
       {"/run/mosquitto", "/var/run/memcached/memcached.pid", "/tmp", "/dev/shm/x"}) {
    EXPECT_TRUE(IsRuntimeState(p)) << p;
  }
  for (std::string_view p : {"/var/log/zookeeper", "/running", "/var/lib/app", "/etc/tmp"}) {
    EXPECT_FALSE(IsRuntimeState(p)) << p;
  }
}

TEST(ResourceSemanticsTest, AmbientConfiguration) {
  for (const char* p : {"/etc/localtime", "/etc/resolv.conf", "/usr/share/zoneinfo/UTC",
                        "/etc/apt/apt.conf", "/etc/apt/apt.conf.d/15update-stamp"}) {
    EXPECT_TRUE(IsAmbientConfiguration(p)) << p;
  }
  for (const char* p : {"/etc/apt/sources.list.d/x.list", "/etc/apt/trusted.gpg.d/k.gpg",
                        "/etc/apt/apt.conf.dist", "/etc/app.conf"}) {
    EXPECT_FALSE(IsAmbientConfiguration(p)) << p;
  }
}

}  // namespace
}  // namespace fsmove::checker
