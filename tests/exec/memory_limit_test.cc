// --memory-limit's sizes.
#include "fsmove/exec/memory_limit.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace fsmove::exec {
namespace {

TEST(MemoryLimitTest, Sizes) {
  EXPECT_EQ(ParseMemorySize("512M"), uint64_t{512} << 20);
  EXPECT_EQ(ParseMemorySize("4G"), uint64_t{4} << 30);
  EXPECT_EQ(ParseMemorySize("64k"), uint64_t{64} << 10);
  EXPECT_EQ(ParseMemorySize("1048576"), uint64_t{1048576});
  EXPECT_EQ(ParseMemorySize("none"), uint64_t{0});
  EXPECT_EQ(ParseMemorySize("0"), uint64_t{0});
  EXPECT_FALSE(ParseMemorySize("").has_value());
  EXPECT_FALSE(ParseMemorySize("G4").has_value());
  EXPECT_FALSE(ParseMemorySize("4T").has_value());
  EXPECT_FALSE(ParseMemorySize("-1").has_value());
  EXPECT_FALSE(ParseMemorySize("99999999999999999999G").has_value());
}

TEST(MemoryLimitTest, AutoIsTheMachinesBudgetSharedByTheChecksAtOnce) {
  const uint64_t machine = uint64_t{16} << 30;
  EXPECT_EQ(MemoryBudget(machine), uint64_t{12} << 30);
  EXPECT_EQ(MemoryLimitPerCheck("auto", machine, 1), uint64_t{12} << 30);
  // fsmove scan -j 4: four checks at once, 3 GiB each, not 12 GiB each.
  EXPECT_EQ(MemoryLimitPerCheck("auto", machine, 4), uint64_t{3} << 30);
  EXPECT_EQ(MemoryLimitPerCheck("auto", machine, 0), uint64_t{12} << 30);
  // A size or none is each check's own, whatever the jobs.
  EXPECT_EQ(MemoryLimitPerCheck("2G", machine, 4), uint64_t{2} << 30);
  EXPECT_EQ(MemoryLimitPerCheck("none", machine, 4), uint64_t{0});
  EXPECT_FALSE(MemoryLimitPerCheck("lots", machine, 4).has_value());
  // Unknown machine memory: no limit rather than a tiny one.
  EXPECT_EQ(MemoryLimitPerCheck("auto", 0, 4), uint64_t{0});
  EXPECT_GT(MachineMemory(), uint64_t{0});
}

constexpr const char* kHybridMountinfo =
    "25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "26 25 0:24 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:8 - tmpfs tmpfs ro,mode=755\n"
    "27 26 0:25 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 "
    "cgroup2 rw,nsdelegate\n"
    "28 26 0:26 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:10 - cgroup "
    "cgroup rw,pids\n";

TEST(SystemdCgroupTest, Cgroup2MountPoint) {
  EXPECT_EQ(Cgroup2MountPoint(kHybridMountinfo), "/sys/fs/cgroup/unified");
  EXPECT_EQ(Cgroup2MountPoint("30 1 0:27 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 "
                              "rw,nsdelegate,memory_recursiveprot\n"),
            "/sys/fs/cgroup");
  // v1 only; a cgroup2 bind of a subtree is not the hierarchy's root.
  EXPECT_EQ(Cgroup2MountPoint("28 26 0:26 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"), "");
  EXPECT_EQ(Cgroup2MountPoint("40 1 0:27 /user.slice /mnt/c rw - cgroup2 cgroup2 rw\n"), "");
  EXPECT_EQ(Cgroup2MountPoint(""), "");
}

TEST(SystemdCgroupTest, RootlessWithoutCgroup2IsRefusedWithTheWayOut) {
  absl::StatusOr<SystemdCgroup> made = SystemdCgroup::MakeInDelegated(
      "fsmove-1-init", "28 26 0:26 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
      "8:pids:/\n");
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("--init none"), std::string::npos)
      << made.status().message();
  EXPECT_FALSE(SystemdCgroup::MakeInDelegated("../x", kHybridMountinfo, "0::/\n").ok());
}

// The cgroup goes below this process's own cgroup (the delegated one), not beside it: a
// directory stands in for the hierarchy.
TEST(SystemdCgroupTest, RootlessCgroupIsMadeBelowTheOwnCgroup) {
  char dir[] = "/tmp/fsmove-cgroup-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string own = std::string(dir) + "/user.slice/app.scope";
  ASSERT_EQ(system(("mkdir -p " + own + " && touch " + own + "/cgroup.procs").c_str()), 0);
  const std::string mountinfo =
      std::string("27 26 0:25 / ") + dir + " rw,relatime shared:9 - cgroup2 cgroup2 rw\n";
  absl::StatusOr<SystemdCgroup> made =
      SystemdCgroup::MakeInDelegated("fsmove-7-init", mountinfo, "0::/user.slice/app.scope\n");
  ASSERT_TRUE(made.ok()) << made.status();
  struct stat st;
  EXPECT_EQ(stat((own + "/fsmove-7-init").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  made->Remove();
  EXPECT_NE(stat((own + "/fsmove-7-init").c_str(), &st), 0);
  ASSERT_EQ(system((std::string("rm -rf ") + dir).c_str()), 0);
}

// A fork refused by the limit's pids.max is counted in pids.events of the cgroup that forked
// (Linux before 6.13): under --init systemd, one of systemd's below the limit's. Directories
// stand in for the cgroups.
TEST(PidsLimitTest, RefusalsAreCountedInTheCgroupsBelowTheLimit) {
  char dir[] = "/tmp/fsmove-pids-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string top = dir;
  ASSERT_EQ(system(("mkdir -p " + top + "/init/system.slice/bomb.service " + top +
                    "/init/init.scope && printf 'max 2\\n' > " + top + "/pids.events && printf " +
                    "'max 5\\n' > " + top + "/init/system.slice/bomb.service/pids.events && " +
                    "printf 'max 0\\n' > " + top + "/init/init.scope/pids.events")
                       .c_str()),
            0);
  int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(PidsEventsMax(fd), uint64_t{7});
  // A kernel that counts at the limit's cgroup says so with pids.events.local.
  ASSERT_EQ(system(("printf 'max 2\\n' > " + top + "/pids.events.local").c_str()), 0);
  EXPECT_EQ(PidsEventsMax(fd), uint64_t{2});
  close(fd);
  EXPECT_EQ(PidsEventsMax(-1), uint64_t{0});
  ASSERT_EQ(system(("rm -rf " + top).c_str()), 0);
}

// --init systemd boots systemd in the compile's sandbox and then in the apply's, each with a
// cgroup2 mount the keeper makes at one place in its mount namespace: the second is made
// after the first is removed (mounting the hierarchy again over itself fails with EBUSY).
TEST(SystemdCgroupTest, ItsMountIsMadeAgainAfterRemove) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting cgroup2 needs root";
  char dir[] = "/tmp/fsmove-cgroup-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string mount_dir = std::string(dir) + "/cgroup2";
  // In a mount namespace of its own, as the keeper's; the answer in the exit code.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (unshare(CLONE_NEWNS) != 0 || mount("", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      _exit(77);
    const std::string name = "fsmove-test-" + std::to_string(getpid()) + "-init";
    for (int round = 0; round < 2; ++round) {
      absl::StatusOr<SystemdCgroup> made = SystemdCgroup::Make(mount_dir, name);
      if (!made.ok()) _exit(round == 0 ? 77 : 1);  // no cgroup2 here at all: skipped
      made->Remove();
    }
    struct stat st;
    _exit(stat(mount_dir.c_str(), &st) == 0 ? 2 : 0);  // the mount point went too
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  rmdir(mount_dir.c_str());
  rmdir(dir);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "no cgroup2 mount in a mount namespace here";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the second Make failed; 2: the mount point stayed";
}

}  // namespace
}  // namespace fsmove::exec
