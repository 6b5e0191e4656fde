// The fault checker on hand-written catalogs and strace lines: each rule that turns a
// relation into a finding (or drops it) has a case that fails if the rule breaks.
#include "fsmove/checker/checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../analysis/trace_harness.h"
#include "nlohmann/json.hpp"

namespace fsmove::testing {
namespace {

using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

struct Res {
  std::string type, title;
  nlohmann::json params = nlohmann::json::object();
};

catalog::Catalog MakeCatalog(const std::vector<Res>& resources) {
  nlohmann::json cat = {{"catalog_format", 2},
                        {"resources", nlohmann::json::array()},
                        {"edges", nlohmann::json::array()}};
  int line = 1;
  cat["resources"].push_back({{"type", "Class"},
                              {"title", "main"},
                              {"exported", false},
                              {"parameters", nlohmann::json::object()}});
  for (const Res& r : resources) {
    cat["resources"].push_back({{"type", r.type},
                                {"title", r.title},
                                {"file", "/m/init.pp"},
                                {"line", line++},
                                {"exported", false},
                                {"parameters", r.params}});
    cat["edges"].push_back({{"source", "Class[main]"}, {"target", r.type + "[" + r.title + "]"}});
  }
  auto loaded = catalog::Catalog::LoadString(cat.dump(), "test.json");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return std::move(*loaded);
}

std::set<std::string> Findings(const std::vector<Res>& resources,
                               const std::vector<std::string>& lines,
                               const checker::CheckOptions& options = {}) {
  catalog::Catalog cat = MakeCatalog(resources);
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  Harness h(lines);
  auto result = checker::Check(h.analyzer.result(), cat, g, options);
  EXPECT_TRUE(result.ok()) << result.status();
  std::set<std::string> out;
  for (const auto& f : result->findings) {
    out.insert(std::string(checker::FaultKindName(f.kind)) + " " + cat.resource(f.source).ref +
               " " + cat.resource(f.target).ref);
  }
  return out;
}

const std::string kWriteConf = "open(\"/etc/app.conf\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3";
const std::string kReadConf = "open(\"/etc/app.conf\", O_RDONLY) = 3";

TEST(CheckerTest, MissingOrderingAndItsFix) {
  auto lines = Cat({Block("File[/etc/app.conf]", {kWriteConf}), Block("Exec[use]", {kReadConf})});
  EXPECT_THAT(Findings({{"File", "/etc/app.conf"}, {"Exec", "use"}}, lines),
              UnorderedElementsAre("MOR File[/etc/app.conf] Exec[use]"));
  EXPECT_THAT(
      Findings({{"File", "/etc/app.conf"}, {"Exec", "use", {{"require", "File[/etc/app.conf]"}}}},
               lines),
      IsEmpty());
}

// The File a Concat_file generates at apply time writes the target the way every File does
// (Puppet's Uniquefile: a ".lock" directory and a temporary file beside it, then a rename); its
// block is charged to the Concat_file. Puppet orders that File after its directory's File
// (autorequire), so that pair is no finding; a directory some other resource makes is one.
TEST(CheckerTest, AGeneratedFileComesAfterItsDirectorysFile) {
  const std::string tmp = "/etc/app/app.conf20261124-77-12gf49z";
  const std::vector<std::string> write = {
      "newfstatat(AT_FDCWD, \"/etc/app/app.conf\", 0x7ffd71d04e60, AT_SYMLINK_NOFOLLOW) = -1 "
      "ENOENT (No such file or directory)",
      "mkdir(\"" + tmp + ".lock\", 0777) = 0",
      "openat(AT_FDCWD, \"" + tmp + "\", O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600) = 5",
      "rmdir(\"" + tmp + ".lock\") = 0", "rename(\"" + tmp + "\", \"/etc/app/app.conf\") = 0"};
  auto lines =
      Cat({Block("File[/etc/app]", {"mkdir(\"/etc/app\", 0755) = 0"}),
           Block("Concat_file[/etc/app/app.conf]", {}), Block("File[/etc/app/app.conf]", write)});
  EXPECT_THAT(Findings({{"File", "/etc/app", {{"ensure", "directory"}}},
                        {"Concat_file", "/etc/app/app.conf"}},
                       lines),
              IsEmpty());
  auto by_exec =
      Cat({Block("Exec[setup]", {"mkdir(\"/etc/app\", 0755) = 0"}),
           Block("Concat_file[/etc/app/app.conf]", {}), Block("File[/etc/app/app.conf]", write)});
  EXPECT_THAT(Findings({{"Exec", "setup"}, {"Concat_file", "/etc/app/app.conf"}}, by_exec),
              UnorderedElementsAre("MOR Exec[setup] Concat_file[/etc/app/app.conf]"));
}

TEST(CheckerTest, AManagedFileProducesItsPathEvenWhenThisRunChangedNothing) {
  // The config was already right: the File only looked at it. On another machine it writes.
  auto lines = Cat(
      {Block("File[/etc/app.conf]", {"lstat(\"/etc/app.conf\", {st_mode=S_IFREG|0644, ...}) = 0"}),
       Block("Exec[use]", {kReadConf})});
  EXPECT_THAT(Findings({{"File", "/etc/app.conf", {{"content", "x"}}}, {"Exec", "use"}}, lines),
              UnorderedElementsAre("MOR File[/etc/app.conf] Exec[use]"));
  // A File that manages only owner or mode, or replace => false, or a directory that was
  // already there, establishes nothing a reader depends on.
  EXPECT_THAT(Findings({{"File", "/etc/app.conf", {{"owner", "app"}}}, {"Exec", "use"}}, lines),
              IsEmpty());
  EXPECT_THAT(
      Findings({{"File", "/etc/app.conf", {{"content", "x"}, {"replace", false}}}, {"Exec", "use"}},
               lines),
      IsEmpty());
}

TEST(CheckerTest, MissingNotifierAndRefreshRelays) {
  auto lines = Cat({Block("File[/etc/app.conf]", {kWriteConf}),
                    Block("Service[app]", {"clone(child_stack=NULL, flags=SIGCHLD) = 300"}),
                    {"300 open(\"/etc/app.conf\", O_RDONLY) = 3"}});
  EXPECT_THAT(Findings({{"File", "/etc/app.conf"}, {"Service", "app"}}, lines),
              UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
  // Ordered but not notified: still MN.
  EXPECT_THAT(
      Findings({{"File", "/etc/app.conf", {{"before", "Service[app]"}}}, {"Service", "app"}},
               lines),
      UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
  EXPECT_THAT(
      Findings({{"File", "/etc/app.conf", {{"notify", "Service[app]"}}}, {"Service", "app"}},
               lines),
      IsEmpty());
  // File ~> Exec ~> Service refreshes the service; File ~> File ~> Service does not.
  EXPECT_THAT(Findings({{"File", "/etc/app.conf", {{"notify", "Exec[reload]"}}},
                        {"Exec", "reload", {{"notify", "Service[app]"}}},
                        {"Service", "app"}},
                       lines),
              IsEmpty());
  EXPECT_THAT(Findings({{"File", "/etc/app.conf", {{"notify", "File[/other]"}}},
                        {"File", "/other", {{"notify", "Service[app]"}}},
                        {"Service", "app"}},
                       lines),
              UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
}

// The paper's "log files": a service writing its log into a directory another resource made
// is a missing notifier of low confidence; its pid file in runtime state is none.
TEST(CheckerTest, ALogDirectoryIsALowNotifierAPidDirectoryNone) {
  for (const auto& [dir, expected] :
       {std::pair{std::string("/var/log/app"), true}, {std::string("/run/app"), false}}) {
    auto lines = Cat({Block("File[" + dir + "]", {"mkdir(\"" + dir + "\", 0755) = 0"}),
                      Block("Service[app]", {"clone(child_stack=NULL, flags=SIGCHLD) = 300"}),
                      {"300 open(\"" + dir + "/app.log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3"}});
    std::set<std::string> got = Findings(
        {{"File", dir, {{"ensure", "directory"}, {"before", "Service[app]"}}}, {"Service", "app"}},
        lines);
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
  auto lines = Cat({Block("File[" + dropin + "]",
                          {"open(\"" + dropin + "\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"}),
                    Block("Exec[own reload]", {"open(\"" + dropin + "\", O_RDONLY) = 3"}),
                    Block("Exec[other reload]", {"open(\"" + dropin + "\", O_RDONLY) = 3"})});
  const nlohmann::json reload = {{"command", "systemctl daemon-reload"}};
  EXPECT_THAT(Findings({{"File", dropin, {{"notify", "Exec[own reload]"}}},
                        {"Exec", "own reload", reload},
                        {"Exec", "other reload", reload}},
                       lines),
              IsEmpty());
  // No reload ordered after it: the other reload needs it.
  EXPECT_THAT(
      Findings({{"File", dropin}, {"Exec", "own reload", reload}, {"Exec", "other reload", reload}},
               lines),
      UnorderedElementsAre("MOR File[" + dropin + "] Exec[own reload]",
                           "MOR File[" + dropin + "] Exec[other reload]"));
}

TEST(CheckerTest, PackagesNotifyOnlyWhenAsked) {
  auto lines =
      Cat({Block("Package[app]", {"open(\"/usr/sbin/appd\", O_WRONLY|O_CREAT|O_TRUNC, 0755) = 3"}),
           Block("Service[app]", {"execve(\"/usr/sbin/appd\", [\"appd\"], NULL) = 0"})});
  std::vector<Res> res{{"Package", "app"}, {"Service", "app", {{"require", "Package[app]"}}}};
  EXPECT_THAT(Findings(res, lines), IsEmpty());
  checker::CheckOptions notify;
  notify.package_notify = true;
  EXPECT_THAT(Findings(res, lines, notify), UnorderedElementsAre("MN Package[app] Service[app]"));
}

// A file apt unpacked from a dependency (libfoo1, pulled in by the client's package) is not
// the client package's own: whoever else installs libfoo1 gets it too. Gone when a Package
// naming libfoo1 comes before the reader; weak when another Package (the server's, which may
// depend on it as well) does; as before when no other package comes first.
TEST(CheckerTest, AFileOfADependencyPackageIsNotTheNamedPackagesOwn) {
  auto lines =
      Cat({Block("Package[client]", {"open(\"/usr/lib/libfoo.so.1\", O_WRONLY|O_CREAT, 0644) = 3",
                                     "rename(\"/var/lib/dpkg/info/libfoo1:amd64.list-new\", "
                                     "\"/var/lib/dpkg/info/libfoo1:amd64.list\") = 0",
                                     "open(\"/usr/bin/client\", O_WRONLY|O_CREAT, 0755) = 3",
                                     "rename(\"/var/lib/dpkg/info/client.list-new\", "
                                     "\"/var/lib/dpkg/info/client.list\") = 0"}),
           Block("Package[libfoo1]", {}), Block("Package[server]", {}),
           Block("Exec[use]", {"open(\"/usr/lib/libfoo.so.1\", O_RDONLY) = 3"})});
  auto confidence = [&](const std::vector<Res>& res) {
    catalog::Catalog cat = MakeCatalog(res);
    graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
    Harness h(lines);
    auto result = checker::Check(h.analyzer.result(), cat, g, {});
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
  auto lines =
      Cat({Block("File[/etc/app.conf]", {kWriteConf}),
           Block("Package[app]", {"rename(\"/etc/app.conf.dpkg-new\", \"/etc/app.conf\") = 0"})});
  EXPECT_THAT(Findings({{"File", "/etc/app.conf"}, {"Package", "app"}}, lines),
              UnorderedElementsAre("MOR Package[app] File[/etc/app.conf]"));
  // A service's daemon writes its log; the File that sets its owner comes first.
  auto log = Cat({Block("Service[app]", {"clone(child_stack=NULL, flags=SIGCHLD) = 300"}),
                  {"300 open(\"/var/log/app.log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 3"},
                  Block("File[/var/log/app.log]", {"chown(\"/var/log/app.log\", 7, 7) = 0"})});
  EXPECT_THAT(Findings({{"Service", "app"},
                        {"File", "/var/log/app.log", {{"ensure", "file"}, {"owner", "app"}}}},
                       log),
              UnorderedElementsAre("MOR File[/var/log/app.log] Service[app]"));
}

TEST(CheckerTest, APackageInstallingIntoADirectoryComesFirst) {
  // Applied the wrong way round: the File made the directory, dpkg only wrote into it.
  auto lines =
      Cat({Block("File[/etc/app]", {"mkdir(\"/etc/app\", 0755) = 0"}),
           Block("Package[app]", {"mkdir(\"/etc/app\", 0755) = -1 EEXIST (File exists)",
                                  "open(\"/etc/app/defaults\", O_WRONLY|O_CREAT, 0644) = 3"})});
  EXPECT_THAT(
      Findings({{"File", "/etc/app", {{"ensure", "directory"}}}, {"Package", "app"}}, lines),
      UnorderedElementsAre("MOR Package[app] File[/etc/app]"));
}

TEST(CheckerTest, PackagesSharingPackageManagerStateAreNotOrdered) {
  auto lines = Cat(
      {Block("Package[a]", {"rename(\"/var/lib/dpkg/status-new\", \"/var/lib/dpkg/status\") = 0"}),
       Block("Package[b]", {"open(\"/var/lib/dpkg/status\", O_RDONLY) = 3"})});
  EXPECT_THAT(Findings({{"Package", "a"}, {"Package", "b"}}, lines), IsEmpty());
  // An exec that rewrites apt's lists must still come before a package that reads them.
  auto update = Cat({Block("Exec[apt-update]",
                           {"rename(\"/var/lib/apt/lists/x.tmp\", \"/var/lib/apt/lists/x\") = 0"}),
                     Block("Package[b]", {"open(\"/var/lib/apt/lists/x\", O_RDONLY) = 3"})});
  EXPECT_THAT(Findings({{"Exec", "apt-update"}, {"Package", "b"}}, update),
              UnorderedElementsAre("MOR Exec[apt-update] Package[b]"));
}

TEST(CheckerTest, IgnoredPathsAndResources) {
  auto lines = Cat({Block("Exec[a]", {"open(\"/dev/null\", O_WRONLY) = 3", kWriteConf}),
                    Block("Exec[b]", {"open(\"/dev/null\", O_RDONLY) = 3", kReadConf})});
  std::vector<Res> res{{"Exec", "a"}, {"Exec", "b"}};
  EXPECT_THAT(Findings(res, lines), UnorderedElementsAre("MOR Exec[a] Exec[b]"));
  checker::CheckOptions paths;
  paths.ignore_paths = {"/etc/*.conf"};
  EXPECT_THAT(Findings(res, lines, paths), IsEmpty());
  checker::CheckOptions resources;
  resources.ignore_resources = {"Exec[a]"};
  EXPECT_THAT(Findings(res, lines, resources), IsEmpty());
  // Only /dev/null links these two: ignored by default, a (spurious) order without defaults.
  auto devnull = Cat({Block("Exec[a]", {"open(\"/dev/null\", O_WRONLY) = 3"}),
                      Block("Exec[b]", {"open(\"/dev/null\", O_RDONLY) = 3"})});
  EXPECT_THAT(Findings(res, devnull), IsEmpty());
  checker::CheckOptions no_defaults;
  no_defaults.default_ignores = false;
  EXPECT_THAT(Findings(res, devnull, no_defaults), UnorderedElementsAre("MOR Exec[a] Exec[b]"));
}

TEST(CheckerTest, UnknownResourcesAreReportedNotFatal) {
  catalog::Catalog cat = MakeCatalog({{"Exec", "a"}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  Harness h(Cat({Block("Exec[a]", {kWriteConf}), Block("Exec[not-in-catalog]", {kReadConf})}));
  auto result = checker::Check(h.analyzer.result(), cat, g, {});
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(result->findings, IsEmpty());
  ASSERT_EQ(result->stats.unknown_blocks.size(), 1u);
  EXPECT_EQ(result->stats.unknown_blocks[0].ref, "Exec[not-in-catalog]");
  checker::CheckOptions bad;
  bad.ignore_resources = {"Exec[nope]"};
  EXPECT_FALSE(checker::Check(h.analyzer.result(), cat, g, bad).ok());
}

TEST(CheckerTest, FixNamesBothResourcesWithFileAndLine) {
  catalog::Catalog cat = MakeCatalog({{"File", "/etc/it's.conf"}, {"Exec", "use"}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  Harness h(
      Cat({Block("File[/etc/it's.conf]", {"open(\"/etc/it's.conf\", O_WRONLY|O_CREAT, 0644) = 3"}),
           Block("Exec[use]", {"open(\"/etc/it's.conf\", O_RDONLY) = 3"})}));
  auto result = checker::Check(h.analyzer.result(), cat, g, {});
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
  auto lines =
      Cat({Block("Package[app]",
                 {"stat(\"/var/log/app.log\", 0x7ffd) = -1 ENOENT (No such file or directory)"}),
           Block("File[/var/log/app.log]",
                 {"open(\"/var/log/app.log\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"})});
  EXPECT_THAT(
      Findings({{"Package", "app"},
                {"File", "/var/log/app.log", {{"content", "x"}, {"require", "Package[app]"}}}},
               lines),
      IsEmpty());
}

TEST(CheckerTest, NameServiceDatabasesByEntry) {
  auto adduser = Block("Package[app]", {"rename(\"/etc/passwd+\", \"/etc/passwd\") = 0"});
  auto lookup = "open(\"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3";
  // Looking up root depends on no package that adds a user...
  EXPECT_THAT(
      Findings({{"Package", "app"}, {"File", "/etc/x", {{"content", "x"}, {"owner", "root"}}}},
               Cat({adduser, Block("File[/etc/x]", {lookup})})),
      IsEmpty());
  // ... owner => app does.
  EXPECT_THAT(
      Findings({{"Package", "app"}, {"File", "/etc/x", {{"content", "x"}, {"owner", "app"}}}},
               Cat({adduser, Block("File[/etc/x]", {lookup})})),
      UnorderedElementsAre("MOR Package[app] File[/etc/x]"));
}

TEST(CheckerTest, EditsOfOneKeyCommute) {
  auto edit = [](const std::string& ref) {
    return Block(ref, {"open(\"/etc/app.conf\", O_RDONLY) = 3",
                       "rename(\"/etc/app.conf.augnew\", \"/etc/app.conf\") = 0"});
  };
  auto lines = Cat({edit("Augeas[a]"), edit("Augeas[b]")});
  EXPECT_THAT(Findings({{"Augeas", "a"}, {"Augeas", "b"}}, lines), IsEmpty());
  // A whole-content File and an edit of one of its keys do not commute.
  auto file = Block("File[/etc/app.conf]", {kWriteConf});
  EXPECT_THAT(Findings({{"File", "/etc/app.conf", {{"content", "x"}}}, {"Augeas", "b"}},
                       Cat({file, edit("Augeas[b]")})),
              UnorderedElementsAre("MOR File[/etc/app.conf] Augeas[b]"));
}

TEST(CheckerTest, AnExecThatRestartsTheServiceRelaysRefresh) {
  auto lines = Cat({Block("File[/etc/app.conf]", {kWriteConf}),
                    Block("Service[app]", {"clone(child_stack=NULL, flags=SIGCHLD) = 300"}),
                    {"300 open(\"/etc/app.conf\", O_RDONLY) = 3"}});
  EXPECT_THAT(
      Findings(
          {{"File", "/etc/app.conf", {{"content", "x"}, {"notify", "Exec[restart app]"}}},
           {"Exec", "restart app", {{"command", "service app restart"}, {"refreshonly", true}}},
           {"Service", "app"}},
          lines),
      IsEmpty());
  EXPECT_THAT(
      Findings({{"File", "/etc/app.conf", {{"content", "x"}, {"notify", "Exec[other]"}}},
                {"Exec", "other", {{"command", "service app status"}, {"refreshonly", true}}},
                {"Service", "app"}},
               lines),
      UnorderedElementsAre("MN File[/etc/app.conf] Service[app]"));
}

TEST(CheckerTest, ADropInDirectoryListingNeedsTheEntriesMadeThere) {
  // apt listed sources.list.d before the repository's file existed (this run's wrong order).
  auto lines = Cat(
      {Block("Package[app]", {"openat(AT_FDCWD, \"/etc/apt/sources.list.d\", "
                              "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3"}),
       Block("File[/etc/apt/sources.list.d/app.list]",
             {"open(\"/etc/apt/sources.list.d/app.list\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"})});
  EXPECT_THAT(Findings({{"Package", "app"},
                        {"File", "/etc/apt/sources.list.d/app.list", {{"content", "x"}}}},
                       lines),
              UnorderedElementsAre("MOR File[/etc/apt/sources.list.d/app.list] Package[app]"));
  // A listing of a directory that is not a drop-in one says nothing of its entries.
  auto etc =
      Cat({Block("Package[app]",
                 {"openat(AT_FDCWD, \"/etc\", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 3"}),
           Block("File[/etc/app.conf]", {kWriteConf})});
  EXPECT_THAT(Findings({{"Package", "app"}, {"File", "/etc/app.conf", {{"content", "x"}}}}, etc),
              IsEmpty());
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
  res("Ini_setting", "a", "/m/setting.pp", 10, "compilable_type", {{"path", "/etc/app.conf"}});
  res("Ini_setting", "b", "/m/setting.pp", 10, "compilable_type", {{"path", "/etc/app.conf"}});
  res("File", "/etc/app.conf", "/m/init.pp", 1, "compilable_type", {{"content", "x"}});
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
  std::vector<std::string> write = {"open(\"/etc/app.conf\", O_RDONLY) = 3", kWriteConf};
  Harness h(Cat({Block("Ini_setting[a]", write), Block("Ini_setting[b]", write),
                 Block("Exec[use]", {"open(\"/var/lib/app.db\", O_RDONLY) = 3"}),
                 Block("Service[x]", {}), Block("Exec[use]", {kReadConf})}));
  auto result = checker::Check(h.analyzer.result(), *loaded, g, {});
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

TEST(CheckerTest, PuppetsOwnSchedulesAndFilebucketAreNotWarnedAbout) {
  catalog::Catalog cat = MakeCatalog({{"File", "/etc/app.conf", {{"content", "x"}}}});
  graph::DependencyGraph g = graph::DependencyGraph::Build(cat);
  Harness h(Cat({Block("Schedule[daily]", {}), Block("Filebucket[puppet]", {}),
                 Block("Exec[not in the catalog]", {})}));
  auto result = checker::Check(h.analyzer.result(), cat, g, {});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->stats.unknown_blocks.size(), 1u);
  EXPECT_EQ(result->stats.unknown_blocks[0].ref, "Exec[not in the catalog]");
}

}  // namespace
}  // namespace fsmove::testing
