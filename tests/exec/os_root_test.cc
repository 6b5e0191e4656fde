// Pinned OS roots: which directories are roots, their Puppet version, installed packages,
// id_base and metadata format, where the cache is, and the errors that tell a user what to do.
// (Building one with mmdebstrap is covered end to end: e2e.example-roots.)
#include "fsmove/exec/os_root.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "../scan/scan_test_dir.h"
#include "scoped_env.h"

namespace fsmove::exec {
namespace {
namespace fs = std::filesystem;

// A fresh temporary directory, removed at the end of the test.
using TempDir = scan::ScanTestDir;

// A named root's directory in a cache: what CheckRootDir asks for, and a dpkg status.
void WriteRoot(const TempDir& cache, const std::string& name) {
  cache.Write(name + "/usr/bin/puppet", "#!/usr/bin/ruby\n");
  cache.Write(name + "/usr/bin/strace", "");
  cache.Write(name + "/var/lib/dpkg/status",
              "Package: puppet-agent\nStatus: install ok installed\nVersion: 7.23.0-1\n\n"
              "Package: procps\nStatus: install ok installed\nVersion: 2:4.0.2-3\n");
}

constexpr const char* kStatus =
    "Package: puppet\n"
    "Status: install ok installed\n"
    "Version: 7.23.0-1\n"
    "\n"
    "Package: puppet-agent\n"
    "Status: deinstall ok config-files\n"
    "Version: 7.20.0-1\n"
    "\n"
    "Package: strace\n"
    "Status: install ok installed\n"
    "Version: 6.1-0.1\n";

TEST(OsRootTest, PuppetVersionFromDpkgStatus) {
  TempDir root;
  root.Write("var/lib/dpkg/status", kStatus);
  // puppet-agent's files are gone (config-files only): the installed `puppet` counts.
  EXPECT_EQ(PuppetPackageVersion(root.path().string()), "7.23.0-1");
  root.Write("var/lib/dpkg/status", std::string(kStatus) +
                                        "\nPackage: puppet-agent\nStatus: install ok installed\n"
                                        "Version: 8.10.0-5+deb13u1\n");
  EXPECT_EQ(PuppetPackageVersion(root.path().string()), "8.10.0-5+deb13u1");
  TempDir empty;
  EXPECT_EQ(PuppetPackageVersion(empty.path().string()), "");
}

TEST(OsRootTest, InstalledPackagesFromDpkgStatus) {
  // Only installed packages (not config-files, half-installed or deinstalled ones), sorted,
  // with the continuation lines of other fields ignored.
  EXPECT_EQ(
      InstalledPackages(std::string(kStatus) + "\n"
                                               "Package: adduser\n"
                                               "Status: install ok installed\n"
                                               "Priority: important\n"
                                               "Version: 3.134\n"
                                               "Description: add and remove users and groups\n"
                                               " Package: not-a-package\n"
                                               "\n"
                                               "Package: broken\n"
                                               "Status: install reinstreq half-installed\n"
                                               "Version: 1.0\n"),
      (std::vector<std::string>{"adduser=3.134", "puppet=7.23.0-1", "strace=6.1-0.1"}));
  EXPECT_EQ(InstalledPackages("Package: a\r\nStatus: install ok installed\r\nVersion: 1\r\n"),
            std::vector<std::string>{"a=1"});
  EXPECT_TRUE(InstalledPackages("").empty());
}

TEST(OsRootTest, FirstSubordinateIds) {
  constexpr std::string_view kSubuid =
      "alice:100000:65536\n"
      "1001:300000:1000\n"
      "bob:200000:65536\n"
      "bob:400000:65536\n"
      "broken line\n";
  std::optional<SubordinateIds> bob = FirstSubordinateIds(kSubuid, "bob", 1002);
  ASSERT_TRUE(bob.has_value());
  EXPECT_EQ(bob->first, 200000u);
  EXPECT_EQ(bob->count, 65536u);
  std::optional<SubordinateIds> carol = FirstSubordinateIds(kSubuid, "carol", 1001);
  ASSERT_TRUE(carol.has_value());  // by uid
  EXPECT_EQ(carol->first, 300000u);
  EXPECT_EQ(carol->count, 1000u);
  EXPECT_FALSE(FirstSubordinateIds(kSubuid, "dave", 1003).has_value());
  EXPECT_FALSE(FirstSubordinateIds("", "bob", 1002).has_value());
}

TEST(OsRootTest, RootCacheDirChoice) {
  ScopedEnv cache_env("FSMOVE_ROOT_CACHE", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/home/alice");
  EXPECT_EQ(RootCacheDirFor(0), "/var/cache/fsmove/roots");
  EXPECT_EQ(RootCacheDirFor(1000), "/home/alice/.cache/fsmove/roots");
  {
    ScopedEnv relative("XDG_CACHE_HOME", "cache");  // not absolute: ignored (XDG spec)
    EXPECT_EQ(RootCacheDirFor(1000), "/home/alice/.cache/fsmove/roots");
  }
  ScopedEnv xdg_set("XDG_CACHE_HOME", "/srv/cache");
  EXPECT_EQ(RootCacheDirFor(1000), "/srv/cache/fsmove/roots");
  EXPECT_EQ(RootCacheDirFor(0), "/var/cache/fsmove/roots");
  ScopedEnv cache_set("FSMOVE_ROOT_CACHE", "/tmp/roots");
  EXPECT_EQ(RootCacheDirFor(0), "/tmp/roots");
  EXPECT_EQ(RootCacheDirFor(1000), "/tmp/roots");
  EXPECT_EQ(RootCacheDir(), "/tmp/roots");
}

TEST(OsRootTest, IdBaseAndFormatFromMetadata) {
  TempDir cache;
  ScopedEnv cache_env("FSMOVE_ROOT_CACHE", cache.path().c_str());
  WriteRoot(cache, "debian-12");
  // Metadata of the current format: its id_base, whoever owns the files.
  cache.Write("debian-12.json", "{\"format\": " + std::to_string(kRootFormat) +
                                    ", \"id_base\": 200000, \"installed\": []}");
  absl::StatusOr<OsRoot> r = ResolveRoot("debian-12", /*build_missing=*/false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->id_base, 200000u);
  EXPECT_FALSE(r->outdated);
  EXPECT_EQ(r->package_count, 2u);
  EXPECT_EQ(r->puppet_version, "7.23.0");
  // Without id_base: the owner of /usr/bin/puppet on disk.
  cache.Write("debian-12.json", "{\"format\": " + std::to_string(kRootFormat) + "}");
  r = ResolveRoot("debian-12", false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->id_base, geteuid());
  EXPECT_FALSE(r->outdated);
  // The format before Puppet's core type modules: rebuilt.
  cache.Write("debian-12.json", R"({"format": 2, "id_base": 200000, "installed": []})");
  r = ResolveRoot("debian-12", false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->outdated);
  // Metadata of an older fsmove (no format), or none: outdated, used as it is when building is
  // not allowed.
  cache.Write("debian-12.json", R"({"name": "debian-12", "suite": "bookworm"})");
  r = ResolveRoot("debian-12", false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->outdated);
  std::filesystem::remove(cache.path() / "debian-12.json");
  r = ResolveRoot("debian-12", false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->outdated);
  ASSERT_EQ(BuiltRoots().size(), 1u);
  EXPECT_TRUE(BuiltRoots()[0].outdated);
}

TEST(OsRootTest, IdBaseFromTheOwnerOfPuppet) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another uid";
  TempDir root;
  WriteRoot(root, "r");
  const std::string dir = (root.path() / "r").string();
  ASSERT_EQ(lchown((dir + "/usr/bin/puppet").c_str(), 200000, 200000), 0);
  absl::StatusOr<OsRoot> r = ResolveRoot(dir, false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->id_base, 200000u);
  EXPECT_FALSE(r->outdated);  // a directory given by path has no metadata to be old
  absl::StatusOr<OsRoot> host = ResolveRoot("host", false);
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->id_base, 0u);
  EXPECT_FALSE(host->outdated);
}

TEST(OsRootTest, UpstreamVersion) {
  EXPECT_EQ(UpstreamVersion("8.10.0-5+deb13u1"), "8.10.0");
  EXPECT_EQ(UpstreamVersion("1:7.23.0-1"), "7.23.0");
  EXPECT_EQ(UpstreamVersion("7.23.0"), "7.23.0");
  EXPECT_EQ(UpstreamVersion(""), "");
}

TEST(OsRootTest, HostIsSlash) {
  absl::StatusOr<OsRoot> host = ResolveRoot("host", false);
  ASSERT_TRUE(host.ok());
  EXPECT_TRUE(host->host());
  EXPECT_EQ(host->name, "host");
  absl::StatusOr<OsRoot> slash = ResolveRoot("/", false);
  ASSERT_TRUE(slash.ok());
  EXPECT_TRUE(slash->host());
}

TEST(OsRootTest, DirectoryMustHoldPuppetAndStrace) {
  TempDir root;
  absl::StatusOr<OsRoot> r = ResolveRoot(root.path().string(), false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/usr/bin/puppet"), std::string_view::npos);
  root.Write("usr/bin/puppet", "#!/usr/bin/ruby\n");
  root.Write("usr/bin/strace", "");
  root.Write("var/lib/dpkg/status",
             "Package: puppet-agent\nStatus: install ok installed\n"
             "Version: 8.10.0-5\n");
  r = ResolveRoot(root.path().string() + "/usr/..", false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dir, fs::canonical(root.path().string()).string());
  EXPECT_EQ(r->name, r->dir);
  EXPECT_EQ(r->puppet_version, "8.10.0");
  EXPECT_FALSE(r->host());
  EXPECT_EQ(LockRootShared(*r), -1);  // only named roots are locked
}

TEST(OsRootTest, OverlayOptionCharactersRefused) {
  TempDir parent;
  const std::string dir = parent.path().string() + "/a,b";
  fs::create_directories(dir + "/usr/bin");
  std::ofstream(dir + "/usr/bin/puppet") << "";
  std::ofstream(dir + "/usr/bin/strace") << "";
  absl::StatusOr<OsRoot> r = ResolveRoot(dir, false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("overlayfs"), std::string_view::npos);
}

TEST(OsRootTest, UnknownNamesAndMissingDirectories) {
  absl::StatusOr<OsRoot> r = ResolveRoot("ubuntu-24.04", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("debian-12"), std::string_view::npos);
  r = ResolveRoot("/nonexistent/fsmove-root", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
}

TEST(OsRootTest, KnownRootNotBuiltSaysHowToBuildIt) {
  TempDir cache;
  const char* old = getenv("FSMOVE_ROOT_CACHE");
  std::string saved = old != nullptr ? old : "";
  setenv("FSMOVE_ROOT_CACHE", cache.path().c_str(), 1);
  absl::StatusOr<OsRoot> r = ResolveRoot("debian-13", /*build_missing=*/false);
  EXPECT_TRUE(BuiltRoots().empty());
  if (old != nullptr) {
    setenv("FSMOVE_ROOT_CACHE", saved.c_str(), 1);
  } else {
    unsetenv("FSMOVE_ROOT_CACHE");
  }
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fsmove root build debian-13"), std::string_view::npos);
}

TEST(OsRootTest, Recipes) {
  ASSERT_NE(FindRecipe("debian-12"), nullptr);
  EXPECT_EQ(FindRecipe("debian-12")->suite, "bookworm");
  EXPECT_EQ(FindRecipe("debian-13")->suite, "trixie");
  EXPECT_EQ(FindRecipe("host"), nullptr);
  for (const RootRecipe& r : KnownRoots()) {
    EXPECT_NE(std::find(r.packages.begin(), r.packages.end(), "puppet-agent"), r.packages.end());
    EXPECT_NE(std::find(r.packages.begin(), r.packages.end(), "strace"), r.packages.end());
    // Priority important's, named for a mirror without priorities.
    for (const char* p : {"procps", "iproute2", "cron", "logrotate"}) {
      EXPECT_NE(std::find(r.packages.begin(), r.packages.end(), p), r.packages.end()) << p;
    }
  }
}

}  // namespace
}  // namespace fsmove::exec
