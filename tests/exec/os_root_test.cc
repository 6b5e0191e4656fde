// Pinned OS roots: which directories are roots, their Puppet version, and the errors that
// tell a user what to do. (Building one with mmdebstrap is covered end to end:
// e2e.example-roots.)
#include "fsmove/exec/os_root.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "../scan/scan_test_dir.h"

namespace fsmove::exec {
namespace {
namespace fs = std::filesystem;

// A fresh temporary directory, removed at the end of the test.
using TempDir = scan::ScanTestDir;

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
  }
}

}  // namespace
}  // namespace fsmove::exec
