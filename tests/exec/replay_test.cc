#include "fsmove/exec/replay.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kCatalog = R"({"resources": [
  {"type": "File", "title": "/etc/a", "parameters": {"content": "x"}},
  {"type": "Exec", "title": "use", "parameters": {"require": "File[/etc/b]"}},
  {"type": "Exec", "title": "other"}
], "edges": []})";

TEST(ForceOrder, AddsToRequireWhateverShapeItHas) {
  auto forced = ForceOrder(kCatalog, 0, "Exec[use]");
  ASSERT_TRUE(forced.ok()) << forced.status();
  nlohmann::json j = nlohmann::json::parse(*forced);
  EXPECT_EQ(j["resources"][0]["parameters"]["require"], "Exec[use]");
  EXPECT_EQ(j["resources"][0]["parameters"]["content"], "x");

  forced = ForceOrder(kCatalog, 1, "File[/etc/a]");
  ASSERT_TRUE(forced.ok());
  j = nlohmann::json::parse(*forced);
  EXPECT_EQ(j["resources"][1]["parameters"]["require"],
            nlohmann::json::array({"File[/etc/b]", "File[/etc/a]"}));

  forced = ForceOrder(kCatalog, 2, "File[/etc/a]");  // no parameters at all
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(nlohmann::json::parse(*forced)["resources"][2]["parameters"]["require"],
            "File[/etc/a]");
}

TEST(ForceOrder, RefusesWhatIsNotACatalog) {
  EXPECT_FALSE(ForceOrder("[1]", 0, "File[/a]").ok());
  EXPECT_FALSE(ForceOrder("not json", 0, "File[/a]").ok());
  EXPECT_FALSE(ForceOrder(kCatalog, 3, "File[/a]").ok());
}

// --evaltrace's line for each resource, as the replays' logs have them.
std::string Evaluated(const std::vector<std::string>& refs) {
  std::string out;
  for (size_t i = 0; i < refs.size(); ++i) {
    out += "Info: /Stage[main]/Main/" + refs[i] + ": Starting to evaluate the resource (" +
           std::to_string(i + 1) + " of " + std::to_string(refs.size()) + ")\n";
  }
  return out;
}

const std::vector<std::string> kAll = {"File[/etc/a]", "Exec[use]", "Exec[same]"};

// The sentences of CompareReplays, and which of them are outcomes ("o") or messages ("m").
std::vector<std::string> Texts(const std::vector<ReplayDifference>& list) {
  std::vector<std::string> out;
  out.reserve(list.size());
  for (const ReplayDifference& d : list) out.push_back(d.text);
  return out;
}
std::string Kinds(const std::vector<ReplayDifference>& list) {
  std::string out;
  for (const ReplayDifference& d : list) out += d.outcome ? 'o' : 'm';
  return out;
}

// A replay whose log says `log`, after Puppet began to evaluate `evaluated`.
RunResult Replay(std::string_view log, std::vector<PathState> probes = {},
                 const std::vector<std::string>& evaluated = kAll) {
  RunResult r;
  r.outcomes = ParseApplyOutcomes(Evaluated(evaluated) + std::string(log));
  r.probes = std::move(probes);
  return r;
}

TEST(CompareReplays, FailuresSkipsAndPathsAreOutcomes) {
  PathState conf;
  conf.path = "/etc/a";
  conf.exists = true;
  conf.type = "file";
  conf.mode = 0644;
  conf.sha256 = "ab12";
  PathState gone;
  gone.path = "/etc/a";
  RunResult reference = Replay(
      "Notice: /Stage[main]/Main/File[/etc/a]/ensure: defined content as '{sha256}1'\n"
      "Notice: /Stage[main]/Main/Exec[use]/returns: executed successfully\n"
      "Notice: /Stage[main]/Main/Exec[same]/returns: executed successfully\n",
      {conf});
  RunResult forced = Replay(
      "Error: /Stage[main]/Main/Exec[use]/returns: change from 'notrun' to ['0'] failed: cat: "
      "/etc/a: No such file or directory\n"
      "Warning: /Stage[main]/Main/File[/etc/a]: Skipping because of failed dependencies\n"
      "Notice: /Stage[main]/Main/Exec[same]/returns: executed successfully\n",
      {gone});
  EXPECT_EQ(Kinds(CompareReplays(reference, forced)), "ooo");
  EXPECT_THAT(
      Texts(CompareReplays(reference, forced)),
      ElementsAre(
          HasSubstr("Exec[use] failed: change from 'notrun'"),
          "File[/etc/a] was skipped: its dependencies failed",
          "/etc/a: absent (with the catalog's order: file 0644 0:0, 0 bytes, sha256 ab12)"));
  // The same outcomes, and messages that differ only in what they say: no difference.
  RunResult again = Replay(
      "Notice: /Stage[main]/Main/File[/etc/a]/ensure: defined content as '{sha256}2'\n"
      "Notice: /Stage[main]/Main/Exec[use]/returns: executed successfully\n"
      "Notice: /Stage[main]/Main/Exec[same]/returns: executed successfully\n",
      {conf});
  EXPECT_TRUE(CompareReplays(reference, again).empty());
}

TEST(ReplayRan, DependencyCycleAndFailuresAreNotProof) {
  std::string why;
  RunResult r = Replay("Error: Found 1 dependency cycle:\n");
  EXPECT_FALSE(ReplayRan(r, &why));
  EXPECT_THAT(why, HasSubstr("dependency cycle"));
  r = Replay("Error: Failed to apply catalog: Could not find dependency File[/x]\n");
  EXPECT_FALSE(ReplayRan(r, &why));
  EXPECT_THAT(why, HasSubstr("Puppet stopped the apply: Failed to apply catalog"));
  r = Replay("");
  EXPECT_TRUE(ReplayRan(r, &why));
  r.end = RunEnd::kTimedOut;
  EXPECT_FALSE(ReplayRan(r, &why));
}

constexpr std::string_view kReplayCatalog = R"({"resources": [
  {"type": "Class", "title": "main"},
  {"type": "File", "title": "/etc/a"},
  {"type": "Exec", "title": "use"},
  {"type": "Exec", "title": "same"}
], "edges": []})";

catalog::Catalog ReplayCatalog() {
  auto cat = catalog::Catalog::LoadString(kReplayCatalog, "catalog.json");
  EXPECT_TRUE(cat.ok()) << cat.status();
  return std::move(*cat);
}

const std::vector<std::string> kEvery = {"Class[Main]", "File[/etc/a]", "Exec[use]", "Exec[same]"};

TEST(ReplayConclusive, AnApplyThatStoppedPartWayProvesNothing) {
  // The forced order closed a cycle Puppet found only at apply time: it stopped after two of
  // four resources. What it never applied is not a difference.
  const catalog::Catalog cat = ReplayCatalog();
  RunResult reference = Replay(
      "Notice: /Stage[main]/Main/File[/etc/a]/ensure: defined content as '{sha256}1'\n"
      "Notice: /Stage[main]/Main/Exec[use]/returns: executed successfully\n"
      "Notice: /Stage[main]/Main/Exec[same]/returns: executed successfully\n",
      {}, kEvery);
  RunResult stopped = Replay("Notice: /Stage[main]/Main/Exec[use]/returns: executed successfully\n",
                             {}, {"Class[Main]", "Exec[use]"});
  std::string why;
  EXPECT_FALSE(ReplayConclusive(stopped, reference, cat, "Exec[use]", &why));
  EXPECT_THAT(why, HasSubstr("evaluated only 2 of the 4 resources"));
  EXPECT_THAT(why, HasSubstr("never evaluated: File[/etc/a], Exec[same]"));
  // And the differences leave out what one of the applies never reached.
  EXPECT_TRUE(CompareReplays(reference, stopped).empty());
  // The whole catalog evaluated again: conclusive.
  RunResult whole = Replay("", {}, kEvery);
  EXPECT_TRUE(ReplayConclusive(whole, reference, cat, "Exec[use]", &why)) << why;
  // Puppet says it changed nothing where it said it changed something: only its messages
  // differ, which is no outcome (the end state may be the same).
  EXPECT_EQ(Kinds(CompareReplays(reference, whole)), "mmm");
  EXPECT_THAT(Texts(CompareReplays(reference, whole)),
              ElementsAre("Exec[same] changed nothing (with the catalog's order: returns)",
                          "Exec[use] changed nothing (with the catalog's order: returns)",
                          "File[/etc/a] changed nothing (with the catalog's order: ensure)"));
}

TEST(ReplayConclusive, TheConsumersFailureStandsOnItsOwn) {
  const catalog::Catalog cat = ReplayCatalog();
  const std::string use_fails =
      "Error: /Stage[main]/Main/Exec[use]/returns: change from 'notrun' to ['0'] failed: cat: "
      "/etc/a: No such file or directory\n"
      "Warning: /Stage[main]/Main/File[/etc/a]: Skipping because of failed dependencies\n";
  const std::string same_fails =
      "Error: /Stage[main]/Main/Exec[same]/returns: change from 'notrun' to ['0'] failed: "
      "network unreachable\n";
  RunResult reference = Replay("", {}, kEvery);
  RunResult forced = Replay(use_fails, {}, kEvery);
  std::string why;
  // The consumer's failure, and what was skipped for it, are the proof.
  EXPECT_TRUE(ReplayConclusive(forced, reference, cat, "Exec[use]", &why)) << why;
  // Another resource failing beside it (another missing ordering of the same run, as in
  // faults-generate-use-bad) does not take that proof away.
  RunResult both = Replay(use_fails + same_fails, {}, kEvery);
  EXPECT_TRUE(ReplayConclusive(both, reference, cat, "Exec[use]", &why)) << why;
  // Without the consumer failing, another resource failing is the replay going wrong.
  RunResult other = Replay(same_fails, {}, kEvery);
  EXPECT_FALSE(ReplayConclusive(other, reference, cat, "Exec[use]", &why));
  EXPECT_THAT(why, HasSubstr("besides Exec[use], Exec[same] failed"));
  // ... unless it failed with the catalog's order too.
  RunResult reference_fails = Replay(same_fails, {}, kEvery);
  EXPECT_TRUE(ReplayConclusive(other, reference_fails, cat, "Exec[use]", &why)) << why;
  // A resource the reference never evaluated either (its provider does not work here).
  RunResult partial_reference = Replay("", {}, {"Class[Main]", "File[/etc/a]", "Exec[use]"});
  RunResult partial_forced = Replay("", {}, {"Class[Main]", "File[/etc/a]", "Exec[use]"});
  EXPECT_TRUE(ReplayConclusive(partial_forced, partial_reference, cat, "Exec[use]", &why)) << why;
  // An abnormal exit without the consumer failing.
  RunResult quiet = Replay("", {}, kEvery);
  quiet.summary.puppet_exit_code = 1;
  EXPECT_FALSE(ReplayConclusive(quiet, reference, cat, "Exec[use]", &why));
  EXPECT_THAT(why, HasSubstr("exited with code 1"));
}

}  // namespace
}  // namespace fsmove::exec

namespace fsmove::exec {
namespace {

// A replay of a missing notifier: the second apply's log, the path's new mtime, and the
// processes (pid, start, command line) seen before (stage 1) and after (stage 2) the refresh.
struct Seen {
  int stage;
  int pid;
  double start;
  std::string text;
  std::string kind = "process";
};

RunResult StaleReplay(std::string_view second_log, double mtime, const std::vector<Seen>& seen) {
  RunResult r;
  Reapply a;
  a.index = 2;
  a.outcomes = ParseApplyOutcomes(second_log);
  r.reapplies.push_back(std::move(a));
  PathState p;
  p.path = "/etc/app.conf";
  p.exists = true;
  p.type = "file";
  p.mtime = mtime;
  r.probes.push_back(p);
  for (const Seen& s : seen) r.observed.push_back({s.stage, s.kind, s.pid, s.start, s.text});
  return r;
}

constexpr std::string_view kRewritten =
    "Notice: /Stage[main]/Main/File[/etc/app.conf]/content: content changed '{sha256}1' to "
    "'{sha256}2'\n";

TEST(StaleDaemon, AnOldDaemonThatARestartChangesIsStale) {
  std::vector<std::string> diffs;
  std::string reason;
  // The daemon's name need not be the service's (zabbix_agentd for zabbix-agent): it is what
  // the refresh stopped.
  RunResult r = StaleReplay(kRewritten, 1000.0,
                            {{1, 7, 990.0, "/usr/bin/ruby /usr/bin/puppet apply"},
                             {1, 42, 995.5, "/usr/sbin/zabbix_agentd -c /etc/app.conf -m 64"},
                             {2, 7, 990.0, "/usr/bin/ruby /usr/bin/puppet apply"},
                             {2, 51, 1003.0, "/usr/sbin/zabbix_agentd -c /etc/app.conf -m 32"}});
  EXPECT_TRUE(StaleDaemon(r, "File[/etc/app.conf]", "Service[zabbix-agent]", {"/etc/app.conf"},
                          &diffs, &reason))
      << reason;
  ASSERT_EQ(diffs.size(), 3u);
  EXPECT_THAT(diffs[1], HasSubstr("zabbix_agentd (pid 42) still runs, started 4.5 s before"));
  EXPECT_THAT(diffs[2],
              HasSubstr("-m 64` became `/usr/sbin/zabbix_agentd -c /etc/app.conf -m 32`"));
  // A socket it listens on differently shows it too.
  diffs.clear();
  r = StaleReplay(kRewritten, 1000.0,
                  {{1, 42, 995.5, "/usr/sbin/appd"},
                   {1, 0, 0, "tcp 0.0.0.0:80", "listen"},
                   {2, 51, 1003.0, "/usr/sbin/appd"},
                   {2, 0, 0, "tcp 127.0.0.1:80", "listen"}});
  EXPECT_TRUE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(diffs.back(), HasSubstr("listens on tcp 127.0.0.1:80 that did not"));
}

TEST(StaleDaemon, EachConditionThatFailsSaysSo) {
  std::vector<std::string> diffs;
  std::string reason;
  const std::vector<Seen> restarted = {{1, 42, 995.0, "/usr/sbin/appd -m 64"},
                                       {2, 51, 1003.0, "/usr/sbin/appd -m 32"}};
  // The source changed nothing (a package installed already).
  RunResult r = StaleReplay("", 1000.0, restarted);
  EXPECT_FALSE(StaleDaemon(r, "Package[app]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("changed nothing"));
  // The service was refreshed in the second apply.
  r = StaleReplay(std::string(kRewritten) +
                      "Notice: /Stage[main]/Main/Service[app]: Triggered 'refresh' from 1 event\n",
                  1000.0, restarted);
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("refreshed"));
  // The refresh stopped nothing (an init script that misses its daemon), or started nothing.
  r = StaleReplay(kRewritten, 1000.0,
                  {{1, 42, 995.0, "/usr/sbin/appd"}, {2, 42, 995.0, "/usr/sbin/appd"}});
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("stopped no process"));
  r = StaleReplay(kRewritten, 1000.0, {{1, 42, 995.0, "/usr/sbin/appd"}});
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("started none"));
  // The daemon started after the change.
  r = StaleReplay(kRewritten, 1000.0,
                  {{1, 42, 1001.0, "/usr/sbin/appd -m 64"}, {2, 51, 1003.0, "/usr/sbin/appd"}});
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("started after"));
  // A daemon that reads the file but does nothing differently once restarted with it (a
  // library's client settings it never uses): not confirmed.
  r = StaleReplay(kRewritten, 1000.0,
                  {{1, 42, 995.0, "/usr/sbin/slapd -h ldapi:///"},
                   {1, 43, 995.2, "/usr/sbin/slapd -h ldapi:///"},
                   {1, 0, 0, "unix /run/slapd/ldapi", "listen"},
                   {2, 51, 1003.0, "/usr/sbin/slapd -h ldapi:///"},
                   {2, 0, 0, "unix /run/slapd/ldapi", "listen"}});
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[slapd]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("nothing shows that it acts on what changed"));
  EXPECT_TRUE(diffs.empty());
}

// A daemon whose command line and sockets a restart leaves as they were, but that still held
// the file the second apply replaced (its old content, read per lookup): stale. Not when it
// watches files with inotify (it may open the new one), when the restarted one holds the old
// too, or when what it held is another file.
TEST(StaleDaemon, ADaemonHoldingTheReplacedFileIsStale) {
  std::vector<std::string> diffs;
  std::string reason;
  const std::vector<Seen> held = {{1, 42, 995.0, "/usr/local/sbin/lookupd"},
                                  {1, 42, 995.0, "/etc/app.conf", "replaced"},
                                  {2, 51, 1003.0, "/usr/local/sbin/lookupd"}};
  RunResult r = StaleReplay(kRewritten, 1000.0, held);
  EXPECT_TRUE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason))
      << reason;
  ASSERT_EQ(diffs.size(), 3u);
  EXPECT_THAT(diffs[1], HasSubstr("lookupd (pid 42) still holds the replaced /etc/app.conf open"));
  EXPECT_THAT(diffs[2], HasSubstr("no process of it holds the old /etc/app.conf any more"));
  std::vector<Seen> watching = held;
  watching.push_back({1, 42, 995.0, "inotify", "watches"});
  diffs.clear();
  r = StaleReplay(kRewritten, 1000.0, watching);
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("none of them held the replaced file open"));
  std::vector<Seen> restarted_holds = held;
  restarted_holds.push_back({2, 51, 1003.0, "/etc/app.conf", "replaced"});
  r = StaleReplay(kRewritten, 1000.0, restarted_holds);
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/app.conf"}, &diffs, &reason));
  r = StaleReplay(kRewritten, 1000.0, held);
  EXPECT_FALSE(
      StaleDaemon(r, "File[/etc/app.conf]", "Service[app]", {"/etc/other.conf"}, &diffs, &reason));
  // A temporary file held replaced (a database's unlinked one) had no rereading window.
  r = StaleReplay(kRewritten, 1000.0,
                  {{1, 42, 995.0, "/usr/local/sbin/lookupd"},
                   {1, 42, 995.0, "/run/app/table", "replaced"},
                   {2, 51, 1003.0, "/usr/local/sbin/lookupd"}});
  EXPECT_FALSE(StaleDaemon(r, "File[/etc/app.conf]", "Service[app]",
                           {"/etc/app.conf", "/run/app/table"}, &diffs, &reason));
  EXPECT_THAT(reason, HasSubstr("none of them held the replaced file open"));
  EXPECT_TRUE(diffs.empty());
}

TEST(RefreshCatalog, TheServiceAloneWithAnExecThatNotifiesIt) {
  const std::string catalog =
      R"({"resources": [{"type": "Stage", "title": "main"},
        {"type": "Service", "title": "app", "parameters": {"ensure": "running",
         "provider": "systemd", "require": "File[/etc/app.conf]", "subscribe": ["Package[app]"]}},
        {"type": "File", "title": "/etc/app.conf"}],
        "edges": [{"source": "Stage[main]", "target": "Service[app]"}], "classes": ["main"]})";
  absl::StatusOr<std::string> made = RefreshCatalog(catalog, "Service[app]");
  ASSERT_TRUE(made.ok()) << made.status();
  const nlohmann::json j = nlohmann::json::parse(*made);
  ASSERT_EQ(j["resources"].size(), 2u);
  EXPECT_EQ(j["resources"][0]["type"], "Exec");
  EXPECT_EQ(j["resources"][0]["kind"], "compilable_type");
  EXPECT_EQ(j["resources"][0]["parameters"]["notify"], "Service[app]");
  const nlohmann::json& params = j["resources"][1]["parameters"];
  EXPECT_EQ(params["provider"], "systemd");
  EXPECT_FALSE(params.contains("require"));
  EXPECT_FALSE(params.contains("subscribe"));
  EXPECT_TRUE(j["edges"].empty());
  EXPECT_FALSE(RefreshCatalog(catalog, "Service[other]").ok());
  EXPECT_FALSE(RefreshCatalog("[]", "Service[app]").ok());
}

TEST(HoldBack, NoopOnTheSourcesOnly) {
  const std::string catalog =
      R"({"resources": [{"type": "File", "title": "/etc/app.conf", "parameters": {"content": "x"}},
        {"type": "Augeas", "title": "ldap.conf"}, {"type": "Service", "title": "app"}]})";
  absl::StatusOr<std::string> held =
      HoldBack(catalog, {"File[/etc/app.conf]", "Augeas[ldap.conf]"});
  ASSERT_TRUE(held.ok()) << held.status();
  const nlohmann::json j = nlohmann::json::parse(*held);
  EXPECT_EQ(j["resources"][0]["parameters"]["noop"], true);
  EXPECT_EQ(j["resources"][0]["parameters"]["content"], "x");
  EXPECT_EQ(j["resources"][1]["parameters"]["noop"], true);
  EXPECT_FALSE(j["resources"][2].contains("parameters"));
  EXPECT_FALSE(HoldBack(catalog, {"File[/etc/none]"}).ok());
}

}  // namespace
}  // namespace fsmove::exec

namespace fsmove::exec {
namespace {

TEST(CompareReplays, AServiceThatRunsInOneOrderOnlyIsAnOutcome) {
  RunResult reference, forced;
  reference.daemons = {{10, 1.0, "ruby"}, {42, 2.0, "memcached"}};
  forced.daemons = {{10, 1.0, "ruby"}};
  const std::vector<ServiceNames> services = {{"Service[memcached]", {"memcached"}},
                                              {"Service[cron]", {"cron"}}};
  EXPECT_EQ(Kinds(CompareReplays(reference, forced, services)), "o");
  EXPECT_EQ(CompareReplays(reference, forced, services)[0].subject, "Service[memcached]");
  EXPECT_THAT(Texts(CompareReplays(reference, forced, services)),
              ElementsAre("Service[memcached]: no process of it runs (with the catalog's order: "
                          "memcached)"));
  EXPECT_THAT(Texts(CompareReplays(forced, reference, services)),
              ElementsAre("Service[memcached]: memcached runs (with the catalog's order: no "
                          "process of it)"));
  EXPECT_TRUE(CompareReplays(reference, reference, services).empty());
}

}  // namespace
}  // namespace fsmove::exec
