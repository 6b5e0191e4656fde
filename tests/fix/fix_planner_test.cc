// Planning patches for findings on a small module written to a temporary directory: the
// consumer's `require`, an MN moved from `require` to `subscribe`, two findings on one
// declaration merged into one edit, a defined type's expression title reused, and nothing
// produced for a declaration outside the checked code.
#include "fsmove/fix/fix_planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace fsmove::fix {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kInit[] =
    "class app {\n"
    "  file { '/etc/app.conf':\n"
    "    ensure => file,\n"
    "  }\n"
    "\n"
    "  file { '/var/log/app.log':\n"
    "    ensure => file,\n"
    "  }\n"
    "\n"
    "  service { 'app':\n"
    "    ensure  => running,\n"
    "    require => File['/etc/app.conf'],\n"
    "  }\n"
    "}\n";

constexpr char kDefine[] =
    "define app::site (String $dir) {\n"
    "  file { \"${dir}/site.conf\":\n"
    "    ensure => file,\n"
    "  }\n"
    "\n"
    "  exec { \"use ${title}\":\n"
    "    command => \"/bin/cat ${dir}/site.conf\",\n"
    "  }\n"
    "}\n";

class FixPlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fsmove-planner-" + std::to_string(getpid()));
    fs::create_directories(dir_ / "app/manifests");
    fs::create_directories(dir_ / "stdlib/manifests");
    std::ofstream(dir_ / "app/manifests/init.pp") << kInit;
    std::ofstream(dir_ / "app/manifests/site.pp") << kDefine;
    std::ofstream(dir_ / "stdlib/manifests/init.pp") << "class stdlib {\n  exec { 'dep': }\n}\n";
    const std::string init = (dir_ / "app/manifests/init.pp").string();
    const std::string site = (dir_ / "app/manifests/site.pp").string();
    auto cat = LoadCatalog({{"File", "/etc/app.conf", init, 2},                                 // 0
                            {"File", "/var/log/app.log", init, 6},                              // 1
                            {"Service", "app", init, 10},                                       // 2
                            {"File", "/srv/a/site.conf", site, 2},                              // 3
                            {"Exec", "use a", site, 6},                                         // 4
                            {"File", "/srv/b/site.conf", site, 2},                              // 5
                            {"Exec", "use b", site, 6},                                         // 6
                            {"Exec", "dep", (dir_ / "stdlib/manifests/init.pp").string(), 2}},  // 7
                           nlohmann::json::array());
    ASSERT_TRUE(cat.ok()) << cat.status();
    cat_.emplace(std::move(*cat));
  }
  void TearDown() override { fs::remove_all(dir_); }

  struct Declared {
    std::string type, title, file;
    int line;
  };
  // A catalog of these resources, in this order (their ids), with these edges.
  static absl::StatusOr<catalog::Catalog> LoadCatalog(const std::vector<Declared>& declared,
                                                      const nlohmann::json& edges) {
    nlohmann::json resources = nlohmann::json::array();
    for (const Declared& d : declared) {
      resources.push_back({{"type", d.type},
                           {"title", d.title},
                           {"file", d.file},
                           {"line", d.line},
                           {"exported", false},
                           {"parameters", nlohmann::json::object()}});
    }
    nlohmann::json doc = {
        {"name", "n"}, {"catalog_format", 2}, {"resources", resources}, {"edges", edges}};
    return catalog::Catalog::LoadString(doc.dump(), "catalog.json");
  }
  static checker::Finding Finding(checker::FaultKind kind, catalog::ResourceId s,
                                  catalog::ResourceId t) {
    checker::Finding f;
    f.kind = kind;
    f.source = f.source_declaration = s;
    f.target = f.target_declaration = t;
    return f;
  }
  FixScope Scope(const std::string& manifest = "") const {
    FixScope scope;
    scope.root = (dir_ / "app").string();
    scope.only_file = scope.manifest = manifest;  // a manifest check, when given
    return scope;
  }

  fs::path dir_;
  std::optional<catalog::Catalog> cat_;
};

TEST_F(FixPlannerTest, RequireOnTheConsumerAndMnMovedToSubscribe) {
  std::vector<checker::Finding> findings = {Finding(checker::FaultKind::kMissingOrdering, 1, 2),
                                            Finding(checker::FaultKind::kMissingNotifier, 0, 2)};
  FixPlanner planner(*cat_, Scope());
  planner.Plan(&findings, {0, 1});
  ASSERT_TRUE(findings[0].patch);
  EXPECT_EQ(findings[0].patch->verdict, checker::FixVerdict::kNotRun) << findings[0].patch->reason;
  EXPECT_EQ(findings[0].patch->description,
            "require => File['/var/log/app.log'] on Service['app'] (manifests/init.pp:10)");
  EXPECT_THAT(findings[0].patch->diff,
              HasSubstr("-    require => File['/etc/app.conf'],\n"
                        "+    require => [File['/etc/app.conf'], File['/var/log/app.log']],\n"));
  EXPECT_THAT(findings[0].patch->diff,
              HasSubstr("--- a/manifests/init.pp\n+++ b/manifests/init.pp\n"));
  EXPECT_EQ(findings[0].patch->root, (dir_ / "app").string());
  ASSERT_TRUE(findings[1].patch);
  EXPECT_THAT(findings[1].patch->diff, HasSubstr("-    ensure  => running,\n"
                                                 "-    require => File['/etc/app.conf'],\n"
                                                 "+    ensure    => running,\n"
                                                 "+    subscribe => File['/etc/app.conf'],\n"));
  // Together: one edit of the service's declaration.
  auto both = planner.Render({0, 1});
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ(both->files.size(), 1u);
  EXPECT_EQ(both->edits.size(), 1u);
  EXPECT_THAT(both->files[0].new_text, HasSubstr("    ensure    => running,\n"
                                                 "    require   => File['/var/log/app.log'],\n"
                                                 "    subscribe => File['/etc/app.conf'],\n"));
}

TEST_F(FixPlannerTest, DefinedTypeInstancesShareTheExpressionTitle) {
  std::vector<checker::Finding> findings = {Finding(checker::FaultKind::kMissingOrdering, 3, 4)};
  findings[0].instances = {{5, 6}};
  FixPlanner planner(*cat_, Scope());
  planner.Plan(&findings, {0});
  ASSERT_TRUE(findings[0].patch);
  EXPECT_EQ(findings[0].patch->verdict, checker::FixVerdict::kNotRun) << findings[0].patch->reason;
  EXPECT_THAT(findings[0].patch->diff, HasSubstr("+    require => File[\"${dir}/site.conf\"],\n"));
}

TEST_F(FixPlannerTest, NothingOutsideTheCheckedCode) {
  // The consumer is in another module: the producer's `before` instead.
  std::vector<checker::Finding> findings = {Finding(checker::FaultKind::kMissingOrdering, 1, 7),
                                            Finding(checker::FaultKind::kMissingOrdering, 7, 7)};
  FixPlanner planner(*cat_, Scope());
  planner.Plan(&findings, {0, 1});
  ASSERT_TRUE(findings[0].patch);
  EXPECT_EQ(findings[0].patch->description,
            "before => Exec['dep'] on File['/var/log/app.log'] (manifests/init.pp:6)");
  ASSERT_TRUE(findings[1].patch);
  EXPECT_EQ(findings[1].patch->verdict, checker::FixVerdict::kFailed);
  EXPECT_TRUE(findings[1].patch->diff.empty());
  EXPECT_THAT(findings[1].patch->reason, HasSubstr("outside the checked code"));
  EXPECT_FALSE(planner.Planned(1));
  // Whose code it is, when the run knows (a dependency, a control repo's deployed module).
  FixScope named = Scope();
  named.others = {{(dir_ / "stdlib").string(),
                   "the dependency puppetlabs-stdlib 9.4.0 from /usr/share/puppet/modules"}};
  std::vector<checker::Finding> theirs = {Finding(checker::FaultKind::kMissingOrdering, 7, 7)};
  FixPlanner named_planner(*cat_, named);
  named_planner.Plan(&theirs, {0});
  ASSERT_TRUE(theirs[0].patch);
  EXPECT_THAT(
      theirs[0].patch->reason,
      HasSubstr("in the dependency puppetlabs-stdlib 9.4.0 from /usr/share/puppet/modules: a "
                "fix there is that module's own (its maintainers'), outside the checked "
                "code"));
  // A manifest check changes that manifest only: a chain there, not the module's code.
  std::vector<checker::Finding> again = {Finding(checker::FaultKind::kMissingOrdering, 1, 2)};
  FixPlanner manifest_only(*cat_, Scope((dir_ / "app/manifests/site.pp").string()));
  manifest_only.Plan(&again, {0});
  EXPECT_EQ(again[0].patch->description,
            "the chain File['/var/log/app.log'] -> Service['app'] at the end of manifests/site.pp");
  ASSERT_EQ(again[0].patch->edits.size(), 1u);
  EXPECT_EQ(again[0].patch->edits[0].file, (dir_ / "app/manifests/site.pp").string());
}

// A resource of another module is named by its class in the checked code (`require =>
// Class['stdlib']`), but a notification's target keeps its own name.
TEST_F(FixPlannerTest, AnotherModulesResourceIsNamedByItsClass) {
  const std::string init = (dir_ / "app/manifests/init.pp").string();
  const std::string dep = (dir_ / "stdlib/manifests/init.pp").string();
  auto cat = LoadCatalog({{"File", "/var/log/app.log", init, 6},  // 0
                          {"Service", "app", init, 10},           // 1
                          {"Class", "Stdlib", dep, 1},            // 2
                          {"Exec", "dep", dep, 2}},               // 3
                         {{{"source", "Class[Stdlib]"}, {"target", "Exec[dep]"}}});
  ASSERT_TRUE(cat.ok()) << cat.status();
  std::vector<checker::Finding> findings = {Finding(checker::FaultKind::kMissingOrdering, 3, 1),
                                            Finding(checker::FaultKind::kMissingOrdering, 0, 3),
                                            Finding(checker::FaultKind::kMissingNotifier, 0, 3)};
  FixPlanner planner(*cat, Scope());
  planner.Plan(&findings, {0, 1, 2});
  ASSERT_TRUE(findings[0].patch && findings[1].patch && findings[2].patch);
  EXPECT_EQ(findings[0].patch->description,
            "require => Class['stdlib'] on Service['app'] (manifests/init.pp:10)");
  EXPECT_THAT(findings[0].patch->diff,
              HasSubstr("+    require => [File['/etc/app.conf'], Class['stdlib']],\n"));
  EXPECT_EQ(findings[1].patch->description,
            "before => Class['stdlib'] on File['/var/log/app.log'] (manifests/init.pp:6)");
  EXPECT_EQ(findings[2].patch->description,
            "notify => Exec['dep'] on File['/var/log/app.log'] (manifests/init.pp:6)");
}

TEST_F(FixPlannerTest, AManifestChainsResourcesOfOtherModules) {
  const fs::path manifest = dir_ / "site.pp";
  std::ofstream(manifest) << "include app\ninclude stdlib";  // no final newline
  std::vector<checker::Finding> findings = {Finding(checker::FaultKind::kMissingOrdering, 1, 7),
                                            Finding(checker::FaultKind::kMissingNotifier, 0, 2)};
  FixScope scope = Scope(manifest.string());
  scope.root = dir_.string();
  FixPlanner planner(*cat_, scope);
  planner.Plan(&findings, {0, 1});
  ASSERT_TRUE(findings[0].patch);
  EXPECT_EQ(findings[0].patch->verdict, checker::FixVerdict::kNotRun) << findings[0].patch->reason;
  EXPECT_EQ(findings[0].patch->description,
            "the chain File['/var/log/app.log'] -> Exec['dep'] at the end of site.pp");
  auto both = planner.Render({0, 1});
  ASSERT_TRUE(both.ok()) << both.status();
  ASSERT_EQ(both->files.size(), 1u);
  EXPECT_EQ(both->files[0].new_text,
            "include app\ninclude stdlib\nFile['/var/log/app.log'] -> Exec['dep']\n"
            "File['/etc/app.conf'] ~> Service['app']\n");
  EXPECT_THAT(both->diff, HasSubstr("\\ No newline at end of file\n"));
}

// A module that ships a link (manifests/sub -> a directory of the host) and a catalog whose
// file and line point into it (module Ruby at compile time sets them): the file behind the
// link is never read, so never patched; the finding gets no patch, and the reason names the
// link. A final link and a path that leaves the root by ".." are refused the same way.
TEST_F(FixPlannerTest, NeverThroughASymbolicLinkOutOfTheCheckedCode) {
  fs::create_directories(dir_ / "outside");
  std::ofstream(dir_ / "outside/canary.pp") << kInit;
  fs::create_directory_symlink(dir_ / "outside", dir_ / "app/manifests/sub");
  fs::create_symlink(dir_ / "outside/canary.pp", dir_ / "app/manifests/final.pp");
  for (const std::string& file :
       {(dir_ / "app/manifests/sub/canary.pp").string(), (dir_ / "app/manifests/final.pp").string(),
        (dir_ / "app/manifests/../../outside/canary.pp").string()}) {
    nlohmann::json resources = nlohmann::json::array();
    for (auto [type, title, line] :
         {std::tuple{"File", "/var/log/app.log", 6}, std::tuple{"Service", "app", 10}}) {
      resources.push_back({{"type", type},
                           {"title", title},
                           {"file", file},
                           {"line", line},
                           {"exported", false},
                           {"parameters", nlohmann::json::object()}});
    }
    nlohmann::json doc = {{"name", "n"},
                          {"catalog_format", 2},
                          {"resources", resources},
                          {"edges", nlohmann::json::array()}};
    auto cat = catalog::Catalog::LoadString(doc.dump(), "catalog.json");
    ASSERT_TRUE(cat.ok()) << cat.status();
    std::vector<checker::Finding> findings = {Finding(checker::FaultKind::kMissingOrdering, 0, 1)};
    FixPlanner planner(*cat, Scope());
    planner.Plan(&findings, {0});
    ASSERT_TRUE(findings[0].patch) << file;
    EXPECT_EQ(findings[0].patch->verdict, checker::FixVerdict::kFailed) << file;
    EXPECT_TRUE(findings[0].patch->diff.empty()) << file;
    EXPECT_FALSE(planner.Planned(0));
    EXPECT_THAT(findings[0].patch->reason, HasSubstr("no fix in the checked code")) << file;
    if (file.find("/sub/") != std::string::npos) {
      EXPECT_THAT(findings[0].patch->reason,
                  HasSubstr("manifests/sub is a symbolic link, never followed"));
    } else if (file.find("final") != std::string::npos) {
      EXPECT_THAT(findings[0].patch->reason,
                  HasSubstr("manifests/final.pp is a symbolic link, never followed"));
    } else {
      EXPECT_THAT(findings[0].patch->reason, HasSubstr("outside the checked code"));
    }
  }
  std::ifstream in(dir_ / "outside/canary.pp");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), kInit);
}

}  // namespace
}  // namespace fsmove::fix
