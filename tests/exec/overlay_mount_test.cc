// Who mounts the sandbox's overlay: the names, and the keeper's overlay in a child's private
// mount namespace (a directory of the lower layer can be renamed in it, which an overlay
// mounted in a user namespace never allows).
#include "fsmove/exec/overlay_mount.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "fsmove/exec/sandbox.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

TEST(OverlayMountTest, NamesRoundTrip) {
  for (OverlayMount how : {OverlayMount::kAuto, OverlayMount::kSandbox, OverlayMount::kKeeper}) {
    EXPECT_EQ(ParseOverlayMount(OverlayMountName(how)), how);
  }
  EXPECT_FALSE(ParseOverlayMount("host").has_value());
  EXPECT_FALSE(ParseOverlayMount("").has_value());
}

TEST(OverlayMountTest, SpecKeepsItAndRefusesOthers) {
  SandboxSpec spec;
  EXPECT_EQ(spec.overlay_mount, "auto");
  spec.overlay_mount = "keeper";
  absl::StatusOr<SandboxSpec> back = SandboxSpecFromJson(SandboxSpecToJson(spec));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->overlay_mount, "keeper");
  nlohmann::json j = SandboxSpecToJson(spec);
  j["overlay_mount"] = "host";
  EXPECT_FALSE(SandboxSpecFromJson(j).ok());
}

// Runs `body` in a child with a private mount namespace (nothing it mounts reaches this
// process's mount table); the child's exit code is the number of failed expectations.
int InPrivateMountNamespace(const std::function<int()>& body) {
  pid_t child = fork();
  if (child == 0) {
    if (unshare(CLONE_NEWNS) != 0 || mount("", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      _exit(100);
    }
    _exit(body());
  }
  int st = 0;
  waitpid(child, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
}

TEST(OverlayMountTest, KeeperOverlayRenamesLowerDirectoriesAndKeepsTheLowerIntact) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting an overlay needs root";
  char tmpl[] = "/tmp/fsmove-keeper-overlay-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string base = tmpl;
  // A work directory's path may hold the characters overlayfs splits its options at.
  const std::string lower = base + "/lower,with:odd";
  const std::string dir = base + "/work,dir:x";
  fs::create_directories(lower + "/etc/app.d");
  std::ofstream(lower + "/etc/app.d/conf") << "lower\n";
  const uid_t uid = 1234567;
  int failures = InPrivateMountNamespace([&] {
    int bad = 0;
    absl::StatusOr<KeeperOverlay> overlay = KeeperOverlay::Make(dir, lower, uid, uid);
    if (!overlay.ok()) {
      std::fprintf(stderr, "%s\n", std::string(overlay.status().message()).c_str());
      return 50;
    }
    const std::string merged = overlay->merged();
    struct stat st {};
    bad += stat((overlay->upper()).c_str(), &st) != 0 || st.st_uid != uid;
    std::string line;
    std::getline(std::ifstream(merged + "/etc/app.d/conf"), line);
    bad += line != "lower";
    // What dpkg does when a package replaces a directory.
    bad += rename((merged + "/etc/app.d").c_str(), (merged + "/etc/app.d.old").c_str()) != 0;
    bad += !fs::exists(merged + "/etc/app.d.old/conf") || fs::exists(merged + "/etc/app.d");
    std::ofstream(merged + "/etc/new") << "upper\n";
    bad += !fs::exists(overlay->upper() + "/etc/new");
    overlay->Remove();
    bad += fs::exists(dir);
    return bad;
  });
  EXPECT_EQ(failures, 0);
  // The lower layer is as it was.
  EXPECT_TRUE(fs::exists(lower + "/etc/app.d/conf"));
  EXPECT_FALSE(fs::exists(lower + "/etc/app.d.old"));
  EXPECT_FALSE(fs::exists(lower + "/etc/new"));
  fs::remove_all(base);
}

TEST(OverlayMountTest, KeeperOverlayNamesWhatFailed) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting needs root";
  char tmpl[] = "/tmp/fsmove-keeper-overlay-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string base = tmpl;
  int code = InPrivateMountNamespace([&] {
    absl::StatusOr<KeeperOverlay> overlay =
        KeeperOverlay::Make(base + "/work", base + "/no-such-lower", 1, 1);
    if (overlay.ok()) return 1;
    const std::string message(overlay.status().message());
    if (message.find("no-such-lower") == std::string::npos) return 2;
    return fs::exists(base + "/work") ? 3 : 0;  // nothing left behind
  });
  EXPECT_EQ(code, 0);
  fs::remove_all(base);
}

}  // namespace
}  // namespace fsmove::exec
