// The fault checker on hand-written catalogs and what each resource did (analysis_builder.h,
// no strace text): each rule that turns a relation into a finding (or drops it) has a case that
// fails if the rule breaks.
#include "fsmove/checker/checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../test_catalog.h"
#include "analysis_builder.h"
#include "nlohmann/json.hpp"

namespace fsmove::testing {
namespace {

using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

using Res = TestResource;

catalog::Catalog MakeCatalog(const std::vector<Res>& resources) {
  return MakeTestCatalog(resources);
}

std::set<std::string> Findings(const std::vector<Res>& resources, const AnalysisBuilder& run,
                               const checker::CheckOptions& options = {}) {
  catalog::Catalog cat = MakeCatalog(resources);
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  auto result = checker::Check(run.Result(), cat, g, options);
  EXPECT_TRUE(result.ok()) << result.status();
  std::set<std::string> out;
  for (const auto& f : result->findings) {
    out.insert(std::string(checker::FaultKindName(f.kind)) + " " + cat.resource(f.source).ref +
               " " + cat.resource(f.target).ref);
  }
  return out;
}

const std::string kConf = "/etc/app.conf";

// One resource writes the config, the next reads it.
AnalysisBuilder WriteThenRead(const std::string& writer, const std::string& reader) {
  AnalysisBuilder run;
  run.Block(writer).Writes(kConf).Block(reader).Reads(kConf);
  return run;
}

TEST(CheckerTest, MissingOrderingAndItsFix) {
  AnalysisBuilder run = WriteThenRead("File[/etc/app.conf]", "Exec[use]");
  EXPECT_THAT(Findings({{"File", kConf}, {"Exec", "use"}}, run),
              UnorderedElementsAre("MOR File[/etc/app.conf] Exec[use]"));
  EXPECT_THAT(
      Findings({{"File", kConf}, {"Exec", "use", {{"require", "File[/etc/app.conf]"}}}}, run),
      IsEmpty());
}

// The File a Concat_file generates at apply time writes the target the way every File does
// (Puppet's Uniquefile: a ".lock" directory and a temporary file beside it, then a rename); its
// block is charged to the Concat_file. Puppet orders that File after its directory's File
// (autorequire), so that pair is no finding; a directory some other resource makes is one.
TEST(CheckerTest, AGeneratedFileComesAfterItsDirectorysFile) {
  const std::string tmp = "/etc/app/app.conf20261124-77-12gf49z";
  auto generated_file = [&](AnalysisBuilder& run) {
    run.Block("Concat_file[/etc/app/app.conf]")
        .Block("File[/etc/app/app.conf]")
        .LooksUp("/etc/app/app.conf", /*failed=*/true)
        .MakesDirectory(tmp + ".lock")
        .Writes(tmp)
        .Removes(tmp + ".lock")
        .Renames(tmp, "/etc/app/app.conf");
  };
  AnalysisBuilder by_file;
  by_file.Block("File[/etc/app]").MakesDirectory("/etc/app");
  generated_file(by_file);
  EXPECT_THAT(Findings({{"File", "/etc/app", {{"ensure", "directory"}}},
                        {"Concat_file", "/etc/app/app.conf"}},
                       by_file),
              IsEmpty());
  AnalysisBuilder by_exec;
  by_exec.Block("Exec[setup]").MakesDirectory("/etc/app");
  generated_file(by_exec);
  EXPECT_THAT(Findings({{"Exec", "setup"}, {"Concat_file", "/etc/app/app.conf"}}, by_exec),
              UnorderedElementsAre("MOR Exec[setup] Concat_file[/etc/app/app.conf]"));
}

TEST(CheckerTest, AManagedFileProducesItsPathEvenWhenThisRunChangedNothing) {
  // The config was already right: the File only looked at it. On another machine it writes.
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").LooksUp(kConf).Block("Exec[use]").Reads(kConf);
  EXPECT_THAT(Findings({{"File", kConf, {{"content", "x"}}}, {"Exec", "use"}}, run),
              UnorderedElementsAre("MOR File[/etc/app.conf] Exec[use]"));
  // A File that manages only owner or mode, or replace => false, or a directory that was
  // already there, establishes nothing a reader depends on.
  EXPECT_THAT(Findings({{"File", kConf, {{"owner", "app"}}}, {"Exec", "use"}}, run), IsEmpty());
  EXPECT_THAT(
      Findings({{"File", kConf, {{"content", "x"}, {"replace", false}}}, {"Exec", "use"}}, run),
      IsEmpty());
}

TEST(CheckerTest, MissingNotifierAndRefreshRelays) {
  // The service's daemon (a child of its start) reads the config.
  AnalysisBuilder run = WriteThenRead("File[/etc/app.conf]", "Service[app]");
  EXPECT_THAT(Findings({{"File", kConf}, {"Service", "app"}}, run),
              UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
  // Ordered but not notified: still MN.
  EXPECT_THAT(Findings({{"File", kConf, {{"before", "Service[app]"}}}, {"Service", "app"}}, run),
              UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
  EXPECT_THAT(Findings({{"File", kConf, {{"notify", "Service[app]"}}}, {"Service", "app"}}, run),
              IsEmpty());
  // File ~> Exec ~> Service refreshes the service; File ~> File ~> Service does not.
  EXPECT_THAT(Findings({{"File", kConf, {{"notify", "Exec[reload]"}}},
                        {"Exec", "reload", {{"notify", "Service[app]"}}},
                        {"Service", "app"}},
                       run),
              IsEmpty());
  EXPECT_THAT(Findings({{"File", kConf, {{"notify", "File[/other]"}}},
                        {"File", "/other", {{"notify", "Service[app]"}}},
                        {"Service", "app"}},
                       run),
              UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
}

// The paper's "log files": a service writing its log into a directory another resource made
// is a missing notifier of low confidence; its pid file in runtime state is none.
TEST(CheckerTest, ALogDirectoryIsALowNotifierAPidDirectoryNone) {
  for (const auto& [dir, expected] :
       {std::pair{std::string("/var/log/app"), true}, {std::string("/run/app"), false}}) {
    AnalysisBuilder run;
    run.Block("File[" + dir + "]")
        .MakesDirectory(dir)
        .Block("Service[app]")
        .Writes(dir + "/app.log");
    std::set<std::string> got = Findings(
        {{"File", dir, {{"ensure", "directory"}, {"before", "Service[app]"}}}, {"Service", "app"}},
        run);
    if (expected) {
      EXPECT_THAT(got, UnorderedElementsAre("MN File[" + dir + "] Service[app]")) << dir;
    } else {
      EXPECT_THAT(got, IsEmpty()) << dir;
    }
  }
}

// A reload of PID 1 reads every drop-in; one that another reload after it covers is no pair.
TEST(CheckerTest, ADropInNeedsOneReloadAfterIt) {
  const std::string dropin = "/etc/systemd/system/cron.service.d/nice.conf";
  AnalysisBuilder run;
  run.Block("File[" + dropin + "]")
      .Writes(dropin)
      .Block("Exec[own reload]")
      .Reads(dropin)
      .Block("Exec[other reload]")
      .Reads(dropin);
  const nlohmann::json reload = {{"command", "systemctl daemon-reload"}};
  EXPECT_THAT(Findings({{"File", dropin, {{"notify", "Exec[own reload]"}}},
                        {"Exec", "own reload", reload},
                        {"Exec", "other reload", reload}},
                       run),
              IsEmpty());
  // No reload ordered after it: the other reload needs it.
  EXPECT_THAT(
      Findings({{"File", dropin}, {"Exec", "own reload", reload}, {"Exec", "other reload", reload}},
               run),
      UnorderedElementsAre("MOR File[" + dropin + "] Exec[own reload]",
                           "MOR File[" + dropin + "] Exec[other reload]"));
}

TEST(CheckerTest, PackagesNotifyOnlyWhenAsked) {
  AnalysisBuilder run;
  run.Block("Package[app]").Writes("/usr/sbin/appd").Block("Service[app]").Runs("/usr/sbin/appd");
  std::vector<Res> res{{"Package", "app"}, {"Service", "app", {{"require", "Package[app]"}}}};
  EXPECT_THAT(Findings(res, run), IsEmpty());
  checker::CheckOptions notify;
  notify.package_notify = true;
  EXPECT_THAT(Findings(res, run, notify), UnorderedElementsAre("MN Package[app] Service[app]"));
}

// A file apt unpacked from a dependency (libfoo1, pulled in by the client's package) is not
// the client package's own: whoever else installs libfoo1 gets it too. Gone when a Package
// naming libfoo1 comes before the reader; weak when another Package (the server's, which may
// depend on it as well) does; as before when no other package comes first.
TEST(CheckerTest, AFileOfADependencyPackageIsNotTheNamedPackagesOwn) {
  AnalysisBuilder run;
  run.Block("Package[client]")
      .Writes("/usr/lib/libfoo.so.1")
      .UnpackedFrom("/usr/lib/libfoo.so.1", "libfoo1")
      .Writes("/usr/bin/client")
      .UnpackedFrom("/usr/bin/client", "client")
      .Block("Package[libfoo1]")
      .Block("Package[server]")
      .Block("Exec[use]")
      .Reads("/usr/lib/libfoo.so.1");
  auto confidence = [&](const std::vector<Res>& res) {
    catalog::Catalog cat = MakeCatalog(res);
    graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
    auto result = checker::Check(run.Result(), cat, g, {});
    EXPECT_TRUE(result.ok()) << result.status();
    std::set<std::string> out;
    for (const auto& f : result->findings) {
      out.insert(cat.resource(f.source).ref + " " + cat.resource(f.target).ref + " " +
                 std::string(checker::ConfidenceName(f.confidence)));
    }
    return out;
  };
  std::vector<Res> alone{
      {"Package", "client"}, {"Package", "libfoo1"}, {"Package", "server"}, {"Exec", "use"}};
  EXPECT_THAT(confidence(alone), UnorderedElementsAre("Package[client] Exec[use] high"));
  std::vector<Res> after_lib = alone;
  after_lib[3].params = {{"require", "Package[libfoo1]"}};
  EXPECT_THAT(confidence(after_lib), IsEmpty());
  std::vector<Res> after_server = alone;
  after_server[3].params = {{"require", "Package[server]"}};
  EXPECT_THAT(confidence(after_server), UnorderedElementsAre("Package[client] Exec[use] low"));
}

TEST(CheckerTest, WriteWriteRacesTakeTheMaintainersDirection) {
  // The package ships a default config, the File manages it: package first.
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]")
      .Writes(kConf)
      .Block("Package[app]")
      .Renames("/etc/app.conf.dpkg-new", kConf);
  EXPECT_THAT(Findings({{"File", kConf}, {"Package", "app"}}, run),
              UnorderedElementsAre("MOR Package[app] File[/etc/app.conf]"));
  // A service's daemon writes its log; the File that sets its owner comes first.
  AnalysisBuilder log;
  log.Block("Service[app]")
      .Writes("/var/log/app.log")
      .Block("File[/var/log/app.log]")
      .ChangesMetadata("/var/log/app.log");
  EXPECT_THAT(Findings({{"Service", "app"},
                        {"File", "/var/log/app.log", {{"ensure", "file"}, {"owner", "app"}}}},
                       log),
              UnorderedElementsAre("MOR File[/var/log/app.log] Service[app]"));
}

TEST(CheckerTest, APackageInstallingIntoADirectoryComesFirst) {
  // Applied the wrong way round: the File made the directory, dpkg only wrote into it.
  AnalysisBuilder run;
  run.Block("File[/etc/app]")
      .MakesDirectory("/etc/app")
      .Block("Package[app]")
      .FailsToMake("/etc/app")
      .Writes("/etc/app/defaults");
  EXPECT_THAT(Findings({{"File", "/etc/app", {{"ensure", "directory"}}}, {"Package", "app"}}, run),
              UnorderedElementsAre("MOR Package[app] File[/etc/app]"));
}

TEST(CheckerTest, PackagesSharingPackageManagerStateAreNotOrdered) {
  AnalysisBuilder run;
  run.Block("Package[a]")
      .Renames("/var/lib/dpkg/status-new", "/var/lib/dpkg/status")
      .Block("Package[b]")
      .Reads("/var/lib/dpkg/status");
  EXPECT_THAT(Findings({{"Package", "a"}, {"Package", "b"}}, run), IsEmpty());
  // An exec that rewrites apt's lists must still come before a package that reads them.
  AnalysisBuilder update;
  update.Block("Exec[apt-update]")
      .Renames("/var/lib/apt/lists/x.tmp", "/var/lib/apt/lists/x")
      .Block("Package[b]")
      .Reads("/var/lib/apt/lists/x");
  EXPECT_THAT(Findings({{"Exec", "apt-update"}, {"Package", "b"}}, update),
              UnorderedElementsAre("MOR Exec[apt-update] Package[b]"));
}

TEST(CheckerTest, IgnoredPathsAndResources) {
  AnalysisBuilder run;
  run.Block("Exec[a]").Writes("/dev/null").Writes(kConf);
  run.Block("Exec[b]").Reads("/dev/null").Reads(kConf);
  std::vector<Res> res{{"Exec", "a"}, {"Exec", "b"}};
  EXPECT_THAT(Findings(res, run), UnorderedElementsAre("MOR Exec[a] Exec[b]"));
  checker::CheckOptions paths;
  paths.ignore_paths = {"/etc/*.conf"};
  EXPECT_THAT(Findings(res, run, paths), IsEmpty());
  checker::CheckOptions resources;
  resources.ignore_resources = {"Exec[a]"};
  EXPECT_THAT(Findings(res, run, resources), IsEmpty());
  // Only /dev/null links these two: ignored by default, a (spurious) order without defaults.
  AnalysisBuilder devnull;
  devnull.Block("Exec[a]").Writes("/dev/null").Block("Exec[b]").Reads("/dev/null");
  EXPECT_THAT(Findings(res, devnull), IsEmpty());
  checker::CheckOptions no_defaults;
  no_defaults.default_ignores = false;
  EXPECT_THAT(Findings(res, devnull, no_defaults), UnorderedElementsAre("MOR Exec[a] Exec[b]"));
}

TEST(CheckerTest, UnknownResourcesAreReportedNotFatal) {
  catalog::Catalog cat = MakeCatalog({{"Exec", "a"}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  AnalysisBuilder run = WriteThenRead("Exec[a]", "Exec[not-in-catalog]");
  auto result = checker::Check(run.Result(), cat, g, {});
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(result->findings, IsEmpty());
  ASSERT_EQ(result->stats.unknown_blocks.size(), 1u);
  EXPECT_EQ(result->stats.unknown_blocks[0].ref, "Exec[not-in-catalog]");
  checker::CheckOptions bad;
  bad.ignore_resources = {"Exec[nope]"};
  EXPECT_FALSE(checker::Check(run.Result(), cat, g, bad).ok());
}

TEST(CheckerTest, FixNamesBothResourcesWithFileAndLine) {
  catalog::Catalog cat = MakeCatalog({{"File", "/etc/it's.conf"}, {"Exec", "use"}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  AnalysisBuilder run;
  run.Block("File[/etc/it's.conf]")
      .Writes("/etc/it's.conf")
      .Block("Exec[use]")
      .Reads("/etc/it's.conf");
  auto result = checker::Check(run.Result(), cat, g, {});
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->findings.size(), 1u);
  EXPECT_EQ(
      result->findings[0].fix,
      "add `require => File['/etc/it\\'s.conf']` to Exec['use'] (/m/init.pp:2), or `before => "
      "Exec['use']` to File['/etc/it\\'s.conf'] (/m/init.pp:1), or the chain "
      "`File['/etc/it\\'s.conf'] -> Exec['use']`");
  ASSERT_EQ(result->findings[0].evidence.size(), 1u);
  EXPECT_EQ(result->findings[0].evidence[0].path, "/etc/it's.conf");
}

TEST(CheckerTest, NeverAgainstTheDeclaredOrder) {
  // The installer probed a log file the File creates later; the graph orders the File after
  // the package on purpose: File -> Package would close a cycle.
  AnalysisBuilder run;
  run.Block("Package[app]")
      .LooksUp("/var/log/app.log", /*failed=*/true)
      .Block("File[/var/log/app.log]")
      .Writes("/var/log/app.log");
  EXPECT_THAT(
      Findings({{"Package", "app"},
                {"File", "/var/log/app.log", {{"content", "x"}, {"require", "Package[app]"}}}},
               run),
      IsEmpty());
}

TEST(CheckerTest, NameServiceDatabasesByEntry) {
  AnalysisBuilder run;  // a package adds a user; the File looks up its owner
  run.Block("Package[app]")
      .Renames("/etc/passwd+", "/etc/passwd")
      .Block("File[/etc/x]")
      .Reads("/etc/passwd");
  // Looking up root depends on no package that adds a user...
  EXPECT_THAT(
      Findings({{"Package", "app"}, {"File", "/etc/x", {{"content", "x"}, {"owner", "root"}}}},
               run),
      IsEmpty());
  // ... owner => app does.
  EXPECT_THAT(
      Findings({{"Package", "app"}, {"File", "/etc/x", {{"content", "x"}, {"owner", "app"}}}}, run),
      UnorderedElementsAre("MOR Package[app] File[/etc/x]"));
}

TEST(CheckerTest, EditsOfOneKeyCommute) {
  auto edit = [](AnalysisBuilder& run, const std::string& ref) {
    run.Block(ref).Reads(kConf).Renames("/etc/app.conf.augnew", kConf);
  };
  AnalysisBuilder two_edits;
  edit(two_edits, "Augeas[a]");
  edit(two_edits, "Augeas[b]");
  EXPECT_THAT(Findings({{"Augeas", "a"}, {"Augeas", "b"}}, two_edits), IsEmpty());
  // A whole-content File and an edit of one of its keys do not commute.
  AnalysisBuilder file_then_edit;
  file_then_edit.Block("File[/etc/app.conf]").Writes(kConf);
  edit(file_then_edit, "Augeas[b]");
  EXPECT_THAT(Findings({{"File", kConf, {{"content", "x"}}}, {"Augeas", "b"}}, file_then_edit),
              UnorderedElementsAre("MOR File[/etc/app.conf] Augeas[b]"));
}

TEST(CheckerTest, AnExecThatRestartsTheServiceRelaysRefresh) {
  AnalysisBuilder run = WriteThenRead("File[/etc/app.conf]", "Service[app]");
  EXPECT_THAT(
      Findings(
          {{"File", kConf, {{"content", "x"}, {"notify", "Exec[restart app]"}}},
           {"Exec", "restart app", {{"command", "service app restart"}, {"refreshonly", true}}},
           {"Service", "app"}},
          run),
      IsEmpty());
  EXPECT_THAT(
      Findings({{"File", kConf, {{"content", "x"}, {"notify", "Exec[other]"}}},
                {"Exec", "other", {{"command", "service app status"}, {"refreshonly", true}}},
                {"Service", "app"}},
               run),
      UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
}

// The stop-edit-start idiom (puppet-snmp's snmpv3_user): an exec that stops the daemon on
// every apply, the edit after it, the service (ensure running) after the edit. The daemon never
// runs stale, and what the stop reads of its configuration is no need of the stop.
TEST(CheckerTest, AStopBeforeTheEditAndTheServiceAfterNeedNoNotifier) {
  AnalysisBuilder run;
  run.Block("Exec[stop app]")
      .Runs("/etc/init.d/app")
      .Reads("/etc/default/app")
      .Block("File[/etc/default/app]")
      .Writes("/etc/default/app")
      .Block("File_line[user]")
      .Writes(kConf)
      .Block("Service[app]")
      .Reads(kConf);
  auto resources = [](const std::string& command, bool refreshonly) {
    nlohmann::json exec = {{"command", command}};
    if (refreshonly) exec["refreshonly"] = true;
    return std::vector<Res>{
        {"Exec", "stop app", exec},
        {"File", "/etc/default/app", {{"content", "OPTS=-q"}}},
        {"File_line",
         "user",
         {{"path", kConf}, {"subscribe", "Exec[stop app]"}, {"before", "Service[app]"}}},
        {"Service", "app"}};
  };
  EXPECT_THAT(Findings(resources("service app stop ; sleep 5", false), run), IsEmpty());
  EXPECT_THAT(Findings(resources("systemctl stop app.service", false), run), IsEmpty());
  // A stop that runs only when notified may not run when the edit does.
  EXPECT_THAT(Findings(resources("service app stop", true), run),
              UnorderedElementsAre("MN File_line[user] Service[app]"));
  // A stop that starts the daemon again leaves it running with the old content.
  EXPECT_THAT(Findings(resources("service app stop && service app start", false), run),
              UnorderedElementsAre("MN File_line[user] Service[app]",
                                   "MOR File[/etc/default/app] Exec[stop app]"));
}

// A Ruby Tempfile one provider made and the garbage collector unlinked during the next
// resource (puppet-openldap's dbindex and access) is no dependency; a file the next resource
// really removes is.
TEST(CheckerTest, ARubyTempfileReclaimedLaterIsTheMakersScratch) {
  for (const auto& [path, expected] :
       {std::pair{std::string("/tmp/dbindex20261124-76-93q0su"), false},
        {std::string("/tmp/app.lock"), true}}) {
    AnalysisBuilder run;
    run.Block("Exec[a]").Writes(path).Block("Exec[b]").Removes(path);
    std::set<std::string> got =
        Findings({{"Exec", "a", {{"command", "a"}}}, {"Exec", "b", {{"command", "b"}}}}, run);
    if (expected) {
      EXPECT_THAT(got, UnorderedElementsAre("MOR Exec[a] Exec[b]")) << path;
    } else {
      EXPECT_THAT(got, IsEmpty()) << path;
    }
  }
}

// Resources of one type that read a file and write it back edit the entries their titles
// name, whatever the type is called (openstacklib's Neutron_agent_ovs['DEFAULT/x']); two
// Execs doing the same are not known to commute.
TEST(CheckerTest, InPlaceEditsByOneTypeCommute) {
  const std::string ini = "/etc/neutron/agent.ini";
  for (const std::string type : {"Neutron_agent_ovs", "Exec"}) {
    AnalysisBuilder run;
    run.Block(type + "[DEFAULT/a]")
        .Reads(ini)
        .Writes(ini)
        .Block(type + "[DEFAULT/b]")
        .Reads(ini)
        .Writes(ini);
    std::set<std::string> got = Findings(
        {{type, "DEFAULT/a", {{"command", "a"}}}, {type, "DEFAULT/b", {{"command", "b"}}}}, run);
    if (type == "Exec") {
      EXPECT_THAT(got, UnorderedElementsAre("MOR Exec[DEFAULT/a] Exec[DEFAULT/b]"));
    } else {
      EXPECT_THAT(got, IsEmpty());
    }
  }
  // A whole-file writer of a type of its own is still ordered before a reader of that type.
  AnalysisBuilder run;
  run.Block("Thing[a]").Writes(ini).Block("Thing[b]").Reads(ini);
  EXPECT_THAT(Findings({{"Thing", "a"}, {"Thing", "b"}}, run),
              UnorderedElementsAre("MOR Thing[a] Thing[b]"));
}

// A service's enablement link (update-rc.d's, systemctl enable's), listed by another
// service's provider or package scripts, is the init system's bookkeeping.
TEST(CheckerTest, EnablementLinksAreNoNeeds) {
  for (const std::string link :
       {"/etc/rc2.d/S01a", "/etc/systemd/system/timers.target.wants/a.timer"}) {
    AnalysisBuilder run;
    run.Block("Service[a]").Writes(link).Block("Service[b]").Lists(link.substr(0, link.rfind('/')));
    EXPECT_THAT(Findings({{"Service", "a"}, {"Service", "b"}}, run), IsEmpty()) << link;
  }
}

// A package's maintainer scripts walk every unit directory (deb-systemd-helper purge): a
// look at another unit's drop-in is no need; a unit start reading an override is.
TEST(CheckerTest, APackageLookingAtUnitDirectoriesNeedsNoDropIn) {
  const std::string dropin = "/etc/systemd/system/puppet.service.d/ca.conf";
  std::vector<Res> resources = {{"File", dropin, {{"content", "[Service]"}}}, {"Package", "ceph"}};
  AnalysisBuilder looks;
  looks.Block("File[" + dropin + "]").Writes(dropin).Block("Package[ceph]").LooksUp(dropin);
  looks.Lists("/etc/systemd/system/puppet.service.d");
  EXPECT_THAT(Findings(resources, looks), IsEmpty());
  AnalysisBuilder reads;
  reads.Block("File[" + dropin + "]").Writes(dropin).Block("Package[ceph]").Reads(dropin);
  EXPECT_THAT(Findings(resources, reads),
              UnorderedElementsAre("MOR File[" + dropin + "] Package[ceph]"));
}

// A stop still needs the programs it runs.
TEST(CheckerTest, AStopNeedsTheProgramItRuns) {
  AnalysisBuilder run;
  run.Block("File[/usr/local/bin/app-stop]")
      .Writes("/usr/local/bin/app-stop")
      .Block("Exec[stop app]")
      .Runs("/usr/local/bin/app-stop");
  EXPECT_THAT(
      Findings({{"File", "/usr/local/bin/app-stop", {{"content", "#!/bin/sh"}}},
                {"Exec", "stop app", {{"command", "/usr/local/bin/app-stop; service app stop"}}},
                {"Service", "app"}},
               run),
      UnorderedElementsAre("MOR File[/usr/local/bin/app-stop] Exec[stop app]"));
}

// A File with no content makes at most an empty file: a weak notifier, hidden by default.
TEST(CheckerTest, AnEmptyFileIsAWeakNotifier) {
  AnalysisBuilder run = WriteThenRead("File[/etc/app.conf]", "Service[app]");
  catalog::Catalog cat = MakeCatalog({{"File", kConf, {{"ensure", "file"}}}, {"Service", "app"}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  auto result = checker::Check(run.Result(), cat, g, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->findings.size(), 1u);
  EXPECT_EQ(result->findings[0].confidence, checker::Confidence::kLow);
  EXPECT_THAT(
      Findings({{"File", kConf, {{"ensure", "file"}, {"content", "x"}}}, {"Service", "app"}}, run),
      UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
}

TEST(CheckerTest, ADropInDirectoryListingNeedsTheEntriesMadeThere) {
  // apt listed sources.list.d before the repository's file existed (this run's wrong order).
  const std::string list = "/etc/apt/sources.list.d/app.list";
  AnalysisBuilder run;
  run.Block("Package[app]")
      .Lists("/etc/apt/sources.list.d")
      .Block("File[" + list + "]")
      .Writes(list);
  EXPECT_THAT(Findings({{"Package", "app"}, {"File", list, {{"content", "x"}}}}, run),
              UnorderedElementsAre("MOR File[" + list + "] Package[app]"));
  // A listing of a directory that is not a drop-in one says nothing of its entries.
  AnalysisBuilder etc;
  etc.Block("Package[app]").Lists("/etc").Block("File[/etc/app.conf]").Writes(kConf);
  EXPECT_THAT(Findings({{"Package", "app"}, {"File", kConf, {{"content", "x"}}}}, etc), IsEmpty());
}

TEST(CheckerTest, FixesGoToTheDefinedTypeInstanceAndInstancesAreGrouped) {
  // Two instances of one define, each declaring an augeas at the same line, both editing a
  // file a later exec reads: one finding, fixed at the instances, listing both.
  nlohmann::json cat = {{"catalog_format", 2},
                        {"resources", nlohmann::json::array()},
                        {"edges", nlohmann::json::array()}};
  auto res = [&](std::string type, std::string title, std::string file, int line, std::string kind,
                 nlohmann::json params = nlohmann::json::object()) {
    cat["resources"].push_back({{"type", type},
                                {"title", title},
                                {"file", file},
                                {"line", line},
                                {"exported", false},
                                {"kind", kind},
                                {"parameters", params}});
  };
  auto edge = [&](std::string a, std::string b) {
    cat["edges"].push_back({{"source", a}, {"target", b}});
  };
  cat["resources"].push_back({{"type", "Class"}, {"title", "main"}, {"exported", false}});
  res("App::Setting", "a", "/m/init.pp", 3, "defined_type");
  res("App::Setting", "b", "/m/init.pp", 4, "defined_type");
  res("Ini_setting", "a", "/m/setting.pp", 10, "compilable_type", {{"path", kConf}});
  res("Ini_setting", "b", "/m/setting.pp", 10, "compilable_type", {{"path", kConf}});
  res("File", kConf, "/m/init.pp", 1, "compilable_type", {{"content", "x"}});
  res("Exec", "use", "/m/init.pp", 5, "compilable_type");
  edge("Class[main]", "App::Setting[a]");
  edge("Class[main]", "App::Setting[b]");
  edge("App::Setting[a]", "Ini_setting[a]");
  edge("App::Setting[b]", "Ini_setting[b]");
  edge("Class[main]", "File[/etc/app.conf]");
  edge("Class[main]", "Exec[use]");
  auto loaded = catalog::Catalog::LoadString(cat.dump(), "test.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  graph::DependencyGraph g = graph::DependencyGraph::Build(*loaded);
  AnalysisBuilder run;
  run.Block("Ini_setting[a]").Reads(kConf).Writes(kConf);
  run.Block("Ini_setting[b]").Reads(kConf).Writes(kConf);
  run.Block("Exec[use]").Reads("/var/lib/app.db").Block("Service[x]");
  run.Block("Exec[use]").Reads(kConf);
  auto result = checker::Check(run.Result(), *loaded, g, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->findings.size(), 1u);
  const checker::Finding& f = result->findings[0];
  EXPECT_EQ(loaded->resource(f.source_declaration).ref, "App::Setting[a]");
  EXPECT_EQ(loaded->resource(f.target_declaration).ref, "Exec[use]");
  ASSERT_EQ(f.instances.size(), 1u);
  EXPECT_EQ(loaded->resource(f.instances[0].first).ref, "Ini_setting[b]");
  EXPECT_THAT(f.fix, ::testing::HasSubstr("App::Setting['a']"));
  EXPECT_THAT(f.fix, ::testing::HasSubstr("fixes all 2 instances"));
}

// In a fix written in one module, a resource of another module (puppetlabs-apt's
// Exec[apt_update]) is named by its class, that module's interface: `require =>
// Class['apt::update']`, as apt's README writes it. A notification's target keeps its resource.
TEST(CheckerTest, AnotherModulesResourceIsNamedByItsClass) {
  nlohmann::json cat = {{"catalog_format", 2},
                        {"resources", nlohmann::json::array()},
                        {"edges", nlohmann::json::array()}};
  auto res = [&](std::string type, std::string title, std::string file, int line) {
    cat["resources"].push_back({{"type", type},
                                {"title", title},
                                {"file", file},
                                {"line", line},
                                {"exported", false},
                                {"kind", type == "Class" ? "class" : "compilable_type"},
                                {"parameters", {{"content", "x"}}}});
  };
  auto edge = [&](std::string a, std::string b) {
    cat["edges"].push_back({{"source", a}, {"target", b}});
  };
  const std::string apt = "/mods/apt/manifests/", app = "/mods/app/manifests/init.pp";
  cat["resources"].push_back({{"type", "Class"}, {"title", "main"}, {"exported", false}});
  res("Class", "App", app, 1);
  res("Class", "Apt", apt + "init.pp", 1);
  res("Class", "Apt::Update", apt + "init.pp", 247);
  res("Exec", "apt_check", apt + "init.pp", 320);
  res("Exec", "apt_update", apt + "update.pp", 89);
  res("File", "/etc/app/lists.conf", apt + "init.pp", 300);
  res("Package", "app", app, 5);
  res("Service", "app", app, 9);
  edge("Class[main]", "Class[App]");
  edge("Class[main]", "Class[Apt]");
  edge("Class[main]", "Class[Apt::Update]");
  edge("Class[Apt]", "Exec[apt_check]");
  edge("Class[Apt::Update]", "Exec[apt_update]");
  edge("Class[Apt::Update]", "File[/etc/app/lists.conf]");
  edge("Class[App]", "Package[app]");
  edge("Class[App]", "Service[app]");
  auto loaded = catalog::Catalog::LoadString(cat.dump(), "test.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  graph::DependencyGraph g = graph::DependencyGraph::Build(*loaded);
  AnalysisBuilder run;
  run.Block("Exec[apt_update]").Writes("/var/lib/apt/lists/x_Packages");
  run.Block("Package[app]").Reads("/var/lib/apt/lists/x_Packages").Writes("/usr/sbin/appd");
  run.Block("Exec[apt_check]").Reads("/usr/sbin/appd");
  run.Block("File[/etc/app/lists.conf]").Writes("/etc/app/lists.conf");
  run.Block("Service[app]").Reads("/etc/app/lists.conf");
  auto result = checker::Check(run.Result(), *loaded, g, {});
  ASSERT_TRUE(result.ok()) << result.status();
  std::map<std::string, const checker::Finding*> by_pair;
  for (const checker::Finding& f : result->findings) {
    by_pair[loaded->resource(f.source).ref + " " + loaded->resource(f.target).ref] = &f;
  }
  ASSERT_TRUE(by_pair.contains("Exec[apt_update] Package[app]"));
  const checker::Finding& update = *by_pair["Exec[apt_update] Package[app]"];
  EXPECT_EQ(loaded->resource(update.source_declaration).ref, "Exec[apt_update]");
  EXPECT_THAT(update.fix, ::testing::HasSubstr("add `require => Class['apt::update']` to "
                                               "Package['app'] (/mods/app/manifests/init.pp:5)"));
  // In apt's code, app's package is app's class: each side names the other by its interface.
  EXPECT_THAT(update.fix, ::testing::HasSubstr("`before => Class['app']` to Exec['apt_update']"));
  EXPECT_THAT(update.fix,
              ::testing::HasSubstr("the chain `Class['apt::update'] -> Package['app']`"));
  // The other way round: app's package before another module's exec, named by its class in
  // app's code.
  ASSERT_TRUE(by_pair.contains("Package[app] Exec[apt_check]"));
  const checker::Finding& check = *by_pair["Package[app] Exec[apt_check]"];
  EXPECT_THAT(check.fix,
              ::testing::HasSubstr("add `require => Class['app']` to Exec['apt_check']"));
  EXPECT_THAT(check.fix, ::testing::HasSubstr("`before => Class['apt']` to Package['app']"));
  // A notification's source is named by its class; its target keeps its resource.
  ASSERT_TRUE(by_pair.contains("File[/etc/app/lists.conf] Service[app]"));
  const checker::Finding& mn = *by_pair["File[/etc/app/lists.conf] Service[app]"];
  EXPECT_EQ(mn.kind, checker::FaultKind::kMissingNotifier);
  EXPECT_THAT(mn.fix, ::testing::HasSubstr("add `subscribe => Class['apt::update']` to "
                                           "Service['app']"));
  EXPECT_THAT(mn.fix, ::testing::HasSubstr("`notify => Service['app']` to "
                                           "File['/etc/app/lists.conf']"));
}

TEST(CheckerTest, PuppetsOwnSchedulesAndFilebucketAreNotWarnedAbout) {
  catalog::Catalog cat = MakeCatalog({{"File", kConf, {{"content", "x"}}}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  AnalysisBuilder run;
  run.Block("Schedule[daily]").Block("Filebucket[puppet]").Block("Exec[not in the catalog]");
  auto result = checker::Check(run.Result(), cat, g, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->stats.unknown_blocks.size(), 1u);
  EXPECT_EQ(result->stats.unknown_blocks[0].ref, "Exec[not in the catalog]");
}

// Each rule's drops and caps are counted under its id: a pair the graph orders, a scratch file,
// an ambient read; rules that did nothing are absent.
TEST(CheckerTest, CountsWhatEachRuleDroppedOrWeakened) {
  catalog::Catalog cat = MakeCatalog({{"File", kConf, {{"before", "Exec[ordered]"}}},
                                      {"Exec", "scratch"},
                                      {"File", "/etc/resolv.conf"},
                                      {"Exec", "ordered"},
                                      {"Exec", "use"}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  AnalysisBuilder run;
  run.Block("File[/etc/app.conf]").Writes(kConf);
  run.Block("Exec[scratch]").Writes("/srv/scratch").Writes("/srv/kept");
  run.Block("File[/etc/resolv.conf]").Writes("/etc/resolv.conf");
  run.Block("Exec[ordered]").Reads(kConf);
  run.Block("Exec[use]").Reads("/srv/scratch").Reads("/srv/kept").Reads("/etc/resolv.conf");
  run.Block("Exec[scratch]").Removes("/srv/scratch");
  auto result = checker::Check(run.Result(), cat, g, {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->stats.dropped_by_rule,
              UnorderedElementsAre(std::pair<const std::string, size_t>{"graph-orders-pair", 1},
                                   std::pair<const std::string, size_t>{"transient-file", 1}));
  EXPECT_THAT(
      result->stats.capped_by_rule,
      UnorderedElementsAre(std::pair<const std::string, size_t>{"ambient-configuration", 1}));
  EXPECT_EQ(result->stats.guaranteed, 1u);
  // What the rules left: the kept file (strong) and the resolver (weak).
  ASSERT_EQ(result->findings.size(), 2u);
}

}  // namespace
}  // namespace fsmove::testing
