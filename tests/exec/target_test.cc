// Resolving `fsmove check TARGET`: a module, a manifest of a module's examples/ (the module on
// the modulepath as for the module itself), a manifest of no module, and what is refused.
#include "fsmove/exec/target.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

using ::testing::HasSubstr;

TargetRequest Path(const fs::path& p) {
  TargetRequest r;
  r.path = p.string();
  return r;
}

class TargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fsmove-target-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    dir_ = fs::canonical(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path Write(const std::string& rel, const std::string& text) {
    fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(TargetTest, AModuleIsIncluded) {
  Write("mods/web/manifests/init.pp", "class web {}\n");
  auto t = ResolveTarget(Path(dir_ / "mods/web"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->kind, ResolvedTarget::Kind::kModule);
  EXPECT_EQ(t->manifest_text, "include web\n");
  EXPECT_FALSE(t->link_module);
  EXPECT_EQ(t->modulepath, std::vector<std::string>{(dir_ / "mods").string()});
  // The parent is shown as a directory of its own, with the module alone bound in it.
  EXPECT_EQ(t->input_paths, std::vector<std::string>{(dir_ / "mods/web").string()});
  EXPECT_EQ(t->linked_module_dirs, std::vector<std::string>{(dir_ / "mods").string()});
}

// A control repo (modules committed under modules/, no Puppetfile): compiled as its
// environment, the whole repo shown, its modulepath made absolute ($basemodulepath kept for
// Puppet), a missing site.pp and options that do not fit said.
TEST_F(TargetTest, AControlRepoIsItsEnvironment) {
  Write("repo/environment.conf", "modulepath = site:modules:$basemodulepath\n");
  Write("repo/site/role/manifests/web.pp", "class role::web {}\n");
  Write("repo/modules/motd/manifests/init.pp", "class motd {}\n");
  Write("repo/manifests/site.pp", "node default { include role::web }\n");
  auto t = ResolveTarget(Path(dir_ / "repo"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->kind, ResolvedTarget::Kind::kEnvironment);
  EXPECT_EQ(t->environment_dir, (dir_ / "repo").string());
  EXPECT_EQ(t->environment_modulepath,
            (std::vector<std::string>{(dir_ / "repo/site").string(),
                                      (dir_ / "repo/modules").string(), "$basemodulepath"}));
  EXPECT_EQ(t->environment_manifest, (dir_ / "repo/manifests").string());
  EXPECT_EQ(t->input_paths, std::vector<std::string>{(dir_ / "repo").string()});
  EXPECT_TRUE(t->deployed_modules.empty());
  EXPECT_TRUE(t->manifest_text.empty());

  TargetRequest one = Path(dir_ / "repo");
  one.include_class = "role::web";
  auto c = ResolveTarget(one);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->manifest_text, "include role::web\n");
  one.include_class = "Role::Web";
  EXPECT_THAT(std::string(ResolveTarget(one).status().message()),
              HasSubstr("--class Role::Web: not a Puppet class name"));
  TargetRequest mp = Path(dir_ / "repo");
  mp.modulepath = {(dir_ / "repo/site").string()};
  EXPECT_THAT(std::string(ResolveTarget(mp).status().message()),
              HasSubstr("a control repo's modulepath is its environment.conf's"));
  fs::remove_all(dir_ / "repo/manifests");
  EXPECT_THAT(std::string(ResolveTarget(Path(dir_ / "repo")).status().message()),
              HasSubstr("manifests does not exist; give the class to check with --class"));
  // --class is a control repo's.
  Write("mods/web/manifests/init.pp", "class web {}\n");
  TargetRequest module = Path(dir_ / "mods/web");
  module.include_class = "web";
  EXPECT_THAT(std::string(ResolveTarget(module).status().message()),
              HasSubstr("--class web: a class of a control repo"));
}

// Beside a module in a home directory or a checkout folder: its dependencies, and whatever
// else the user keeps there. The sandbox is told to show the module and the modules it
// declares it needs (and theirs), nothing else of the parent.
TEST_F(TargetTest, AModuleIsShownWithTheModulesItDeclaresAlone) {
  Write("home/web/metadata.json", R"({"name": "acme-web", "dependencies": [
      {"name": "puppetlabs/stdlib"}, {"name": "puppetlabs-gone"}]})");
  Write("home/web/manifests/init.pp", "class web {}\n");
  Write("home/web/.fixtures.yml", "fixtures:\n  repositories:\n    concat: x\n");
  Write("home/stdlib/metadata.json", R"({"name": "puppetlabs-stdlib", "dependencies": [
      {"name": "puppetlabs/translate"}]})");
  Write("home/translate/lib/puppet/functions/t.rb", "\n");
  Write("home/concat/manifests/init.pp", "class concat {}\n");
  Write("home/unrelated/manifests/init.pp", "class unrelated {}\n");
  Write("home/notes/todo.txt", "not a module\n");
  Write("home/.ssh/id_rsa", "secret\n");
  Write("home/secret", "secret\n");
  Write("home/site_keys/files/munge.key", "key\n");  // a module of files alone
  auto t = ResolveTarget(Path(dir_ / "home/web"));
  ASSERT_TRUE(t.ok()) << t.status();
  const fs::path home = dir_ / "home";
  EXPECT_EQ(t->input_paths,
            (std::vector<std::string>{(home / "concat").string(), (home / "stdlib").string(),
                                      (home / "translate").string(), (home / "web").string()}));
  EXPECT_EQ(t->linked_module_dirs, std::vector<std::string>{home.string()});
  EXPECT_EQ(t->unshown_modules, (std::vector<std::string>{"site_keys", "unrelated"}));
  EXPECT_EQ(t->missing_dependencies, std::vector<std::string>{"puppetlabs-gone"});
  // Given as --modulepath, the directory shows every module in it, still nothing else.
  TargetRequest r = Path(home / "web");
  r.modulepath = {home.string()};
  t = ResolveTarget(r);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->input_paths,
            (std::vector<std::string>{(home / "concat").string(), (home / "site_keys").string(),
                                      (home / "stdlib").string(), (home / "translate").string(),
                                      (home / "unrelated").string(), (home / "web").string()}));
  EXPECT_EQ(t->linked_module_dirs, std::vector<std::string>{home.string()});
  EXPECT_TRUE(t->unshown_modules.empty());
}

// A link in a module shown to the sandbox may lead anywhere inside what is shown (its own
// module, another module shown); one that leads out is refused, named within its module.
TEST_F(TargetTest, ALinkOutOfAModuleIsRefusedByName) {
  Write("mods/web/metadata.json",
        R"({"name": "acme-web", "dependencies": [{"name": "puppetlabs/stdlib"}]})");
  Write("mods/web/manifests/init.pp", "class web {}\n");
  Write("mods/stdlib/manifests/init.pp", "class stdlib {}\n");
  Write("mods/secret.pp", "class web::evil {}\n");
  Write("mods/notes/todo.txt", "x\n");
  fs::create_directories(dir_ / "mods/web/files/deep/er");
  fs::create_directories(dir_ / "mods/web/spec/fixtures/modules");
  fs::create_symlink("../manifests/init.pp", dir_ / "mods/web/files/init.pp");
  fs::create_symlink("../../../../stdlib/manifests", dir_ / "mods/web/files/deep/er/stdlib");
  fs::create_symlink(dir_ / "mods/web", dir_ / "mods/web/spec/fixtures/modules/web");
  fs::create_symlink("no-such-file", dir_ / "mods/web/files/dangling");
  ASSERT_TRUE(ResolveTarget(Path(dir_ / "mods/web")).ok());
  const fs::path link = dir_ / "mods/web/files/deep/er/out";
  auto refused = [&](const fs::path& to) {
    fs::create_symlink(to, link);
    auto t = ResolveTarget(Path(dir_ / "mods/web"));
    fs::remove(link);
    ASSERT_FALSE(t.ok()) << to;
    EXPECT_NE(t.status().message().find((dir_ / "mods/web").string() +
                                        ": files/deep/er/out is a symbolic link to " + to.string() +
                                        ", which leads out of the module"),
              std::string_view::npos)
        << t.status();
  };
  refused("../../../../secret.pp");
  refused(dir_ / "mods/secret.pp");
  refused("/etc/passwd");
  refused("../../../../notes");    // beside the module, not shown
  refused("../../../../../mods");  // the modulepath directory itself
  refused("../../../../no-such");  // dangling, out of the module
  // Through a link inside (to the module itself), then out: resolved as the kernel does.
  refused("../../../spec/fixtures/modules/web/../secret.pp");
  // A link the module's parent itself holds, to a sibling that is not shown, does not matter.
  fs::create_symlink("notes", dir_ / "mods/x");
  EXPECT_TRUE(ResolveTarget(Path(dir_ / "mods/web")).ok());
}

TEST_F(TargetTest, AModulepathIsNeverADirectoryOfTheSandboxsOwn) {
  TargetRequest r;
  r.code = "include web";
  r.modulepath = {"/"};
  auto t = ResolveTarget(r);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("one the sandbox has its own of"), std::string_view::npos)
      << t.status();
  r.modulepath = {"/tmp"};
  EXPECT_FALSE(ResolveTarget(r).ok());
}

TEST_F(TargetTest, AnExampleOfAModuleHasItsModuleOnTheModulepath) {
  Write("checkout/puppet-web/metadata.json", R"({"name": "acme-web", "dependencies": []})");
  Write("checkout/puppet-web/manifests/vhost.pp", "define web::vhost {}\n");
  fs::path example = Write("checkout/puppet-web/examples/vhost.pp", "web::vhost { 'a': }\n");
  auto t = ResolveTarget(Path(example));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->kind, ResolvedTarget::Kind::kManifest);
  EXPECT_EQ(t->manifest_path, example.string());
  EXPECT_EQ(t->module_name, "web");
  // The directory is not named after the module: the executor links it.
  EXPECT_TRUE(t->link_module);
  EXPECT_EQ(t->module_dir, (dir_ / "checkout/puppet-web").string());
  // The old name of examples/.
  Write("mods/db/manifests/init.pp", "class db {}\n");
  fs::path smoke = Write("mods/db/tests/init.pp", "include db\n");
  auto old = ResolveTarget(Path(smoke));
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_FALSE(old->link_module);
  EXPECT_EQ(old->modulepath, std::vector<std::string>{(dir_ / "mods").string()});
}

TEST_F(TargetTest, AManifestOfNoModuleIsAppliedAsItIs) {
  fs::path site = Write("site/examples/site.pp", "notify { 'x': }\n");  // no module above it
  auto t = ResolveTarget(Path(site));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->module_name.empty());
  EXPECT_TRUE(t->modulepath.empty());
  EXPECT_EQ(t->input_paths, std::vector<std::string>{site.string()});
}

TEST_F(TargetTest, RefusesWhatCannotBeChecked) {
  Write("mods/Bad-Name/manifests/init.pp", "");
  EXPECT_FALSE(ResolveTarget(Path(dir_ / "mods/Bad-Name")).ok());
  Write("mods/defines/manifests/thing.pp", "define defines::thing {}\n");
  auto no_init = ResolveTarget(Path(dir_ / "mods/defines"));
  ASSERT_FALSE(no_init.ok());
  EXPECT_NE(no_init.status().message().find("no manifests/init.pp"), std::string_view::npos);
  EXPECT_FALSE(ResolveTarget(Path(dir_ / "missing")).ok());
  EXPECT_FALSE(ResolveTarget(Path(Write("x.txt", ""))).ok());
}

TEST_F(TargetTest, OnlyDependenciesOnNoModulepathDirectoryAreMissing) {
  // stdlib is beside the module, concat on --modulepath, apt nowhere; the fixtures add
  // firewall (nowhere) and repeat stdlib; the module's own symlink is never a dependency.
  Write("mods/web/metadata.json", R"({"name": "acme-web", "dependencies": [
      {"name": "puppetlabs/stdlib"}, {"name": "puppetlabs-concat"}, {"name": "puppetlabs/apt"}]})");
  Write("mods/web/manifests/init.pp", "class web {}\n");
  Write("mods/web/.fixtures.yml",
        "fixtures:\n  repositories:\n    stdlib: https://example.invalid/stdlib.git\n"
        "    firewall:\n      repo: https://example.invalid/firewall.git\n      ref: v1\n"
        "  symlinks:\n    web: \"#{source_dir}\"\n");
  fs::create_directories(dir_ / "mods/stdlib");
  fs::create_directories(dir_ / "other/concat");
  TargetRequest r = Path(dir_ / "mods/web");
  r.modulepath = {(dir_ / "other").string()};
  auto t = ResolveTarget(r);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->missing_dependencies, (std::vector<std::string>{"puppetlabs/apt", "firewall"}));
}

TEST(FixtureModuleNames, ReadsTheThreeSectionsOnly) {
  const std::string yaml =
      "---\n"
      "fixtures:\n"
      "  forge_modules:\n"
      "    concat: \"puppetlabs/concat\"\n"
      "    'translate': puppetlabs/translate\n"
      "  repositories:\n"
      "    stdlib:\n"
      "      repo: \"https://github.com/puppetlabs/puppetlabs-stdlib.git\"\n"
      "      ref: \"v9.0.0\"\n"
      "    # a comment: ignored\n"
      "    facts: https://example.invalid/facts.git\r\n"
      "  symlinks:\n"
      "    ntp: \"#{source_dir}\"\n"
      "other:\n"
      "  notamodule: x\n";
  EXPECT_EQ(FixtureModuleNames(yaml),
            (std::vector<std::string>{"concat", "facts", "ntp", "stdlib", "translate"}));
  EXPECT_TRUE(FixtureModuleNames("").empty());
  EXPECT_TRUE(FixtureModuleNames("fixtures: {repositories: {a: b}}\n").empty());
}

// Debian's /usr/share/puppet/modules: each module a link through /etc/alternatives. The
// sandbox is told to show each link's directory at the link's path, and nothing else of the
// host; a plain modulepath directory the same, with its modules bound as they are.
TEST_F(TargetTest, AModulepathDirectoryOfLinksIsShownModuleByModule) {
  Write("available/puppetlabs-concat/manifests/init.pp", "class concat {}\n");
  Write("mods/stdlib/manifests/init.pp", "class stdlib {}\n");
  Write("mods/README", "not a module\n");
  fs::create_directories(dir_ / "alternatives");
  fs::create_symlink(dir_ / "available/puppetlabs-concat", dir_ / "alternatives/concat");
  fs::create_symlink(dir_ / "alternatives/concat", dir_ / "mods/concat");
  Write("plain/apt/manifests/init.pp", "class apt {}\n");
  TargetRequest r;
  r.code = "include concat";
  r.modulepath = {(dir_ / "mods").string(), (dir_ / "plain").string()};
  auto t = ResolveTarget(r);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->modulepath, r.modulepath);  // Puppet looks where the user said
  EXPECT_EQ(t->input_paths, (std::vector<std::string>{
                                (dir_ / "available/puppetlabs-concat").string(),
                                (dir_ / "mods/stdlib").string(), (dir_ / "plain/apt").string()}));
  EXPECT_EQ(t->input_at, (std::vector<std::string>{(dir_ / "mods/concat").string(), "", ""}));
  EXPECT_EQ(t->linked_module_dirs,
            (std::vector<std::string>{(dir_ / "mods").string(), (dir_ / "plain").string()}));
}

TEST_F(TargetTest, AModulepathLinkToNoDirectoryIsRefusedByName) {
  Write("mods/stdlib/manifests/init.pp", "class stdlib {}\n");
  TargetRequest r;
  r.code = "include stdlib";
  r.modulepath = {(dir_ / "mods").string()};
  const std::string link = (dir_ / "mods/concat").string();
  auto refused = [&](const std::string& why) {
    auto t = ResolveTarget(r);
    ASSERT_FALSE(t.ok()) << why;
    EXPECT_NE(t.status().message().find(link), std::string_view::npos) << t.status();
    EXPECT_NE(t.status().message().find(why), std::string_view::npos) << t.status();
  };
  fs::create_symlink(Write("notes.txt", "x\n"), link);  // a file
  refused("is not a directory");
  fs::remove(link);
  fs::create_symlink(dir_ / "gone", link);  // dangling
  refused("is not a directory");
  fs::remove(link);
  fs::create_symlink("/", link);  // the whole host
  refused("holds the modulepath directory itself");
  fs::remove(link);
  fs::create_symlink("..", link);  // the directory around the modulepath
  refused("holds the modulepath directory itself");
  fs::remove(link);
  fs::create_symlink("stdlib", link);  // a sibling: fine
  EXPECT_TRUE(ResolveTarget(r).ok());
  fs::remove(link);
  Write("home/.ssh/id_ed25519", "secret\n");
  fs::create_symlink(dir_ / "home", link);  // somebody's files, not a module
  refused("is not a Puppet module");
  fs::remove(link);
  fs::create_symlink(dir_ / "home/.ssh", link);
  refused("is not a Puppet module");
}

// Anybody can make a link to their own files, and a modulepath of links unpacked from an
// archive would show the sandboxed code what they lead to: only links owned by root (as
// Debian's, through /etc/alternatives) are followed, at every hop.
TEST_F(TargetTest, AModulepathLinkNotOwnedByRootIsRefusedAtEveryHop) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a link to another user";
  Write("available/puppetlabs-concat/manifests/init.pp", "class concat {}\n");
  fs::create_directories(dir_ / "alternatives");
  fs::create_directories(dir_ / "mods");
  const fs::path hop = dir_ / "alternatives/concat", link = dir_ / "mods/concat";
  fs::create_symlink(dir_ / "available/puppetlabs-concat", hop);
  fs::create_symlink(hop, link);
  TargetRequest r;
  r.code = "include concat";
  r.modulepath = {(dir_ / "mods").string()};
  ASSERT_TRUE(ResolveTarget(r).ok());
  for (const fs::path& owned : {link, hop}) {
    ASSERT_EQ(lchown(owned.c_str(), 65534, 65534), 0);
    auto t = ResolveTarget(r);
    ASSERT_FALSE(t.ok()) << owned;
    EXPECT_NE(t.status().message().find(owned.string() + ", owned by uid 65534"),
              std::string_view::npos)
        << t.status();
    ASSERT_EQ(lchown(owned.c_str(), 0, 0), 0);
  }
  EXPECT_TRUE(ResolveTarget(r).ok());
}

// What a sandbox opens is what fsmove resolved: a directory of it swapped for a link since
// (a race on a shared modulepath) is refused, not followed.
TEST_F(TargetTest, AnInputSwappedForALinkAfterItWasResolvedIsNotOpened) {
  Write("available/concat/manifests/init.pp", "class concat {}\n");
  const std::string resolved = (dir_ / "available/concat").string();
  absl::StatusOr<int> fd = OpenResolvedInput(resolved);
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_TRUE(LooksLikeModule(*fd));
  close(*fd);
  fs::rename(dir_ / "available", dir_ / "moved");
  Write("home/.ssh/id_ed25519", "secret\n");
  fs::create_symlink(dir_ / "home", dir_ / "available");
  fs::create_directories(dir_ / "home/concat");
  fd = OpenResolvedInput(resolved);
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.status().message().find("changed while fsmove ran"), std::string_view::npos)
      << fd.status();
}

// A dependency no modulepath directory has comes from a module source (--module-source, then
// Debian's packages): the highest version the dependent's range admits, linked into the work
// directory's modules/ and bound alone, and its own dependencies in turn; what no source has
// stays missing; a source that has the module at no admitted version is an error.
TEST_F(TargetTest, DependenciesComeFromModuleSourcesAtAVersionTheRangeAdmits) {
  Write("mods/web/metadata.json", R"({"name": "acme-web", "dependencies": [
      {"name": "acme/base", "version_requirement": ">= 2.0.0 < 3.0.0"},
      {"name": "acme-gone"}]})");
  Write("mods/web/manifests/init.pp", "class web {}\n");
  Write("old/base/metadata.json", R"({"name": "acme-base", "version": "1.4.0"})");
  Write("new/base/metadata.json", R"({"name": "acme-base", "version": "2.3.1",
      "dependencies": [{"name": "acme-util", "version_requirement": "1.x"}]})");
  Write("new/base/manifests/init.pp", "class base {}\n");
  Write("new/util/metadata.json", R"({"name": "acme-util", "version": "1.0.2"})");
  Write("debian/base/metadata.json", R"({"name": "acme-base", "version": "2.0.0"})");
  TargetRequest request = Path(dir_ / "mods/web");
  request.module_sources = {(dir_ / "old").string(), (dir_ / "new").string()};
  request.debian_modules = (dir_ / "debian").string();
  auto t = ResolveTarget(request);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dependency_links,
            (std::vector<std::pair<std::string, std::string>>{
                {"base", (dir_ / "new/base").string()}, {"util", (dir_ / "new/util").string()}}));
  EXPECT_EQ(t->resolved_dependencies,
            (std::vector<std::string>{"acme-base 2.3.1 from " + (dir_ / "new").string(),
                                      "acme-util 1.0.2 from " + (dir_ / "new").string()}));
  EXPECT_EQ(t->missing_dependencies, std::vector<std::string>{"acme-gone"});
  for (const char* bound : {"new/base", "new/util"}) {
    EXPECT_NE(std::find(t->input_paths.begin(), t->input_paths.end(), (dir_ / bound).string()),
              t->input_paths.end())
        << bound;
  }

  // The modulepath wins: a base beside the module is used as it is.
  Write("mods/base/manifests/init.pp", "class base {}\n");
  auto beside = ResolveTarget(request);
  ASSERT_TRUE(beside.ok()) << beside.status();
  EXPECT_TRUE(beside->dependency_links.empty());
  fs::remove_all(dir_ / "mods/base");

  // Only versions the range does not admit: an error naming the dependent and what there is.
  request.module_sources = {(dir_ / "old").string()};
  request.debian_modules = "";
  auto none = ResolveTarget(request);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find((dir_ / "mods/web/metadata.json").string()),
            std::string::npos)
      << none.status();
  EXPECT_NE(none.status().message().find("acme-base 1.4.0 in " + (dir_ / "old").string()),
            std::string::npos)
      << none.status();

  // Debian's packages are the last source.
  request.module_sources = {};
  request.debian_modules = (dir_ / "debian").string();
  auto debian = ResolveTarget(request);
  ASSERT_TRUE(debian.ok()) << debian.status();
  ASSERT_EQ(debian->dependency_links.size(), 1u);
  EXPECT_EQ(debian->dependency_links[0].second, (dir_ / "debian/base").string());
}

}  // namespace
}  // namespace fsmove::exec
