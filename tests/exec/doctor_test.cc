// fsmove doctor's checks on a fake machine: /proc and /etc text, tools and probes given here.
#include "fsmove/exec/doctor.h"

#include <map>
#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

using ::testing::HasSubstr;

// A Debian 12 machine with everything, run by an ordinary user.
class DoctorTest : public ::testing::Test {
 protected:
  DoctorTest() {
    files_["/proc/sys/user/max_user_namespaces"] = "63398\n";
    files_["/proc/sys/kernel/unprivileged_userns_clone"] = "1\n";
    files_["/proc/filesystems"] =
        "nodev\tsysfs\nnodev\tcgroup\nnodev\tcgroup2\n\text4\nnodev\toverlay\n";
    files_["/sys/fs/cgroup/cgroup.controllers"] = "cpuset cpu io memory hugetlb pids rdma misc\n";
    files_["/proc/self/status"] =
        "Name:\tfsmove\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n";
    files_["/etc/subuid"] = "alice:100000:65536\n";
    files_["/etc/subgid"] = "alice:100000:65536\n";
    for (const char* t :
         {"strace", "mmdebstrap", "slirp4netns", "newuidmap", "newgidmap", "r10k"}) {
      tools_.insert(t);
    }
    m_.read_file = [this](const std::string& path) -> std::optional<std::string> {
      auto it = files_.find(path);
      if (it == files_.end()) return std::nullopt;
      return it->second;
    };
    m_.find_tool = [this](std::string_view name) -> std::optional<std::string> {
      if (!tools_.contains(std::string(name))) return std::nullopt;
      return "/usr/bin/" + std::string(name);
    };
    m_.kernel_release = "6.1.0-18-amd64";
    m_.uid = 1000;
    m_.user = "alice";
    m_.seccomp_prctl = true;
    m_.user_namespace = [] { return absl::OkStatus(); };
    m_.ptrace = [](const std::string&) { return absl::OkStatus(); };
    m_.open_device = [this](const std::string& device) {
      auto it = devices_.find(device);
      return it == devices_.end() ? absl::OkStatus() : it->second;
    };
    m_.root_cache_dir = "/home/alice/.cache/fsmove/roots";
    OsRoot built;
    built.name = "debian-12";
    built.dir = m_.root_cache_dir + "/debian-12";
    built.puppet_version = "7.23.0-1";
    m_.built_roots.push_back(built);
  }

  // A copy: the checks are often a temporary.
  DoctorCheck Find(const std::vector<DoctorCheck>& checks, const std::string& name) {
    for (const DoctorCheck& c : checks) {
      if (c.name == name) return c;
    }
    ADD_FAILURE() << "no check " << name;
    return {};
  }

  std::map<std::string, std::string> files_;
  std::set<std::string> tools_;
  std::map<std::string, absl::Status> devices_;  // a device's open failure; absent: it opens
  MachineProbe m_;
};

TEST_F(DoctorTest, EverythingThereIsReady) {
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  for (const DoctorCheck& c : checks) {
    EXPECT_TRUE(c.ok) << c.name << ": " << c.detail;
    EXPECT_EQ(c.fix, "") << c.name;
  }
  EXPECT_TRUE(DoctorReady(checks));
  // Rootless: the id mapping's tools are checked; puppet is not (the pinned root has its own).
  EXPECT_TRUE(Find(checks, "newuidmap").required);
  for (const DoctorCheck& c : checks) EXPECT_NE(c.name, "puppet");
  EXPECT_THAT(Find(checks, "subordinate ids").detail, HasSubstr("/etc/subuid 100000..165535"));
  EXPECT_THAT(Find(checks, "root cache").detail, HasSubstr("debian-12 built in"));
}

TEST_F(DoctorTest, NoR10kIsAWarningForControlReposOnly) {
  tools_.erase("r10k");
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  const DoctorCheck c = Find(checks, "r10k");
  EXPECT_FALSE(c.ok);
  EXPECT_FALSE(c.required);
  EXPECT_THAT(c.detail, HasSubstr("deploys a control repo's Puppetfile"));
  EXPECT_EQ(c.fix, "apt-get install r10k git");
  EXPECT_TRUE(DoctorReady(checks));
}

TEST_F(DoctorTest, UserNamespacesRefusedSayWhichSetting) {
  files_["/proc/sys/kernel/unprivileged_userns_clone"] = "0\n";
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  const DoctorCheck c = Find(checks, "user namespaces");
  EXPECT_FALSE(c.ok);
  EXPECT_THAT(c.fix, HasSubstr("sysctl -w kernel.unprivileged_userns_clone=1"));
  EXPECT_FALSE(DoctorReady(checks));

  files_["/proc/sys/kernel/unprivileged_userns_clone"] = "1\n";
  files_["/proc/sys/kernel/apparmor_restrict_unprivileged_userns"] = "1\n";
  EXPECT_THAT(Find(RunDoctor(m_, "debian-12"), "user namespaces").fix,
              HasSubstr("apparmor_restrict_unprivileged_userns=0"));

  // Root is not concerned by either setting, only by the maximum.
  m_.uid = 0;
  m_.user = "root";
  EXPECT_TRUE(Find(RunDoctor(m_, "debian-12"), "user namespaces").ok);
  files_["/proc/sys/user/max_user_namespaces"] = "0\n";
  EXPECT_THAT(Find(RunDoctor(m_, "debian-12"), "user namespaces").fix,
              HasSubstr("user.max_user_namespaces"));
}

TEST_F(DoctorTest, TheLiveProbeHasTheLastWord) {
  m_.user_namespace = [] {
    return absl::FailedPreconditionError("unshare: Operation not permitted");
  };
  const DoctorCheck c = Find(RunDoctor(m_, "debian-12"), "user namespaces");
  EXPECT_FALSE(c.ok);
  EXPECT_THAT(c.detail, HasSubstr("Operation not permitted"));
}

TEST_F(DoctorTest, NoOverlayInProcFilesystems) {
  files_["/proc/filesystems"] = "nodev\tsysfs\n\text4\nnodev\tcgroup2\n";
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  EXPECT_FALSE(Find(checks, "overlayfs").ok);
  EXPECT_EQ(Find(checks, "overlayfs").fix, "modprobe overlay (as root)");
  EXPECT_FALSE(DoctorReady(checks));
}

// A fresh Debian boot: overlay is a module nothing has loaded yet; the sandbox's first mount
// loads it.
TEST_F(DoctorTest, OverlayAsAModuleNotYetLoaded) {
  files_["/proc/filesystems"] = "nodev\tsysfs\n\text4\nnodev\tcgroup2\n";
  m_.kernel_release = "6.1.0-50-amd64";
  files_["/lib/modules/6.1.0-50-amd64/modules.alias"] =
      "alias fs-xfs xfs\nalias fs-overlay overlay\nalias char-major-10-200 tun\n";
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  EXPECT_TRUE(Find(checks, "overlayfs").ok);
  EXPECT_THAT(Find(checks, "overlayfs").detail, HasSubstr("module"));
  files_["/lib/modules/6.1.0-50-amd64/modules.alias"] = "alias fs-overlayfs2 x\n";
  EXPECT_FALSE(Find(RunDoctor(m_, "debian-12"), "overlayfs").ok);
}

TEST_F(DoctorTest, CgroupControllersMissingAreAWarning) {
  files_["/sys/fs/cgroup/cgroup.controllers"] = "cpu io\n";
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  const DoctorCheck c = Find(checks, "cgroups");
  EXPECT_FALSE(c.ok);
  EXPECT_FALSE(c.required);
  EXPECT_THAT(c.detail, HasSubstr("without memory, pids"));
  EXPECT_TRUE(DoctorReady(checks));
}

TEST_F(DoctorTest, CgroupV2ControllersMustBeEnabledBesideThisProcess) {
  files_["/proc/self/cgroup"] = "0::/user.slice/user-1000.slice/session-3.scope\n";
  const std::string control = "/sys/fs/cgroup/user.slice/user-1000.slice/cgroup.subtree_control";
  files_[control] = "cpu memory\n";
  const DoctorCheck c = Find(RunDoctor(m_, "debian-12"), "cgroups");
  EXPECT_FALSE(c.ok);
  EXPECT_FALSE(c.required);
  EXPECT_THAT(c.detail, HasSubstr("pids not enabled in /sys/fs/cgroup/user.slice/user-1000.slice"));
  EXPECT_EQ(c.fix, "as root, echo '+pids' > " + control);
  files_[control] = "cpu memory pids\n";
  EXPECT_TRUE(Find(RunDoctor(m_, "debian-12"), "cgroups").ok);
}

TEST_F(DoctorTest, CgroupV1ReadsTheEnabledColumn) {
  files_.erase("/sys/fs/cgroup/cgroup.controllers");
  files_["/proc/cgroups"] =
      "#subsys_name\thierarchy\tnum_"
      "cgroups\tenabled\ncpu\t2\t1\t1\nmemory\t3\t1\t1\npids\t4\t1\t0\n";
  const DoctorCheck c = Find(RunDoctor(m_, "debian-12"), "cgroups");
  EXPECT_FALSE(c.ok);
  EXPECT_THAT(c.detail, HasSubstr("cgroup v1 without pids"));
  files_["/proc/cgroups"] = "memory\t3\t1\t1\npids\t4\t1\t1\n";
  EXPECT_TRUE(Find(RunDoctor(m_, "debian-12"), "cgroups").ok);
  // Never required, there or not: the sandbox runs without the limits.
  EXPECT_FALSE(Find(RunDoctor(m_, "debian-12"), "cgroups").required);
}

TEST_F(DoctorTest, Seccomp) {
  files_["/proc/self/status"] = "Name:\tfsmove\n";
  EXPECT_FALSE(Find(RunDoctor(m_, "debian-12"), "seccomp").ok);
  files_["/proc/self/status"] = "Seccomp:\t2\n";
  m_.seccomp_prctl = false;
  EXPECT_THAT(Find(RunDoctor(m_, "debian-12"), "seccomp").detail, HasSubstr("PR_GET_SECCOMP"));
}

TEST_F(DoctorTest, IdmappedMountsMatterToRootOnAPinnedRoot) {
  m_.kernel_release = "5.10.0-28-amd64";
  EXPECT_FALSE(Find(RunDoctor(m_, "debian-12"), "idmapped mounts").required);
  EXPECT_TRUE(DoctorReady(RunDoctor(m_, "debian-12")));
  m_.uid = 0;
  m_.user = "root";
  const DoctorCheck c = Find(RunDoctor(m_, "debian-12"), "idmapped mounts");
  EXPECT_FALSE(c.ok);
  EXPECT_TRUE(c.required);
  EXPECT_THAT(c.detail, HasSubstr("5.12"));
  m_.kernel_release = "5.12.0";
  EXPECT_TRUE(Find(RunDoctor(m_, "debian-12"), "idmapped mounts").ok);
}

TEST_F(DoctorTest, KernelVersion) {
  EXPECT_EQ(KernelVersion("6.1.0-18-amd64"), (std::pair<int, int>{6, 1}));
  EXPECT_EQ(KernelVersion("5.12"), (std::pair<int, int>{5, 12}));
  EXPECT_EQ(KernelVersion("6"), std::nullopt);
  EXPECT_EQ(KernelVersion(""), std::nullopt);
}

TEST_F(DoctorTest, ToolsAndTheirFixes) {
  tools_.erase("newuidmap");
  tools_.erase("slirp4netns");
  tools_.insert("pasta");
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  EXPECT_EQ(Find(checks, "newuidmap").fix, "apt-get install uidmap");
  EXPECT_FALSE(DoctorReady(checks));
  const DoctorCheck net = Find(checks, "slirp4netns");
  EXPECT_FALSE(net.required);
  EXPECT_THAT(net.detail, HasSubstr("pasta is installed"));
}

// The rootless sandbox's network needs /dev/net/tun open to the user: the check names the
// device, says what is lost and how to open it, and is not required (check still runs).
TEST_F(DoctorTest, TunDeviceNotOpenToTheUser) {
  EXPECT_TRUE(Find(RunDoctor(m_, "debian-12"), "/dev/net/tun").ok);
  devices_["/dev/net/tun"] = absl::PermissionDeniedError("cannot open /dev/net/tun: denied");
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  const DoctorCheck tun = Find(checks, "/dev/net/tun");
  EXPECT_FALSE(tun.ok);
  EXPECT_FALSE(tun.required);
  EXPECT_TRUE(DoctorReady(checks));
  EXPECT_THAT(tun.detail, HasSubstr("no network"));
  EXPECT_THAT(tun.fix, HasSubstr("chmod 0666 /dev/net/tun"));
  EXPECT_THAT(tun.fix, HasSubstr("setfacl -m u:alice:rw /dev/net/tun"));
  devices_["/dev/net/tun"] = absl::NotFoundError("cannot open /dev/net/tun: no such file");
  EXPECT_THAT(Find(RunDoctor(m_, "debian-12"), "/dev/net/tun").fix, HasSubstr("modprobe tun"));
}

TEST_F(DoctorTest, NoTunCheckWithoutSlirp4netns) {
  tools_.erase("slirp4netns");
  for (const DoctorCheck& c : RunDoctor(m_, "debian-12")) EXPECT_NE(c.name, "/dev/net/tun");
}

TEST_F(DoctorTest, PuppetOnlyForTheHostRoot) {
  std::vector<DoctorCheck> checks = RunDoctor(m_, "host");
  EXPECT_FALSE(Find(checks, "puppet").ok);
  EXPECT_THAT(Find(checks, "puppet").fix, HasSubstr("apt-get install puppet-agent"));
  EXPECT_TRUE(Find(checks, "strace").required);
  EXPECT_FALSE(DoctorReady(checks));
  tools_.insert("puppet");
  EXPECT_TRUE(DoctorReady(RunDoctor(m_, "host")));
}

TEST_F(DoctorTest, PtraceRefused) {
  m_.ptrace = [](const std::string&) {
    return absl::FailedPreconditionError("strace cannot trace processes here");
  };
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  EXPECT_FALSE(Find(checks, "ptrace").ok);
  EXPECT_FALSE(DoctorReady(checks));
}

TEST_F(DoctorTest, SubordinateIdsForTheRootlessUser) {
  files_["/etc/subgid"] = "bob:100000:65536\nalice:200000:1000\n";
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  const DoctorCheck c = Find(checks, "subordinate ids");
  EXPECT_FALSE(c.ok);
  EXPECT_THAT(c.detail, HasSubstr("/etc/subgid"));
  EXPECT_THAT(c.fix,
              HasSubstr("usermod --add-subuids 100000-165535 --add-subgids 100000-165535 alice"));
  // By uid, as the files also allow.
  files_["/etc/subgid"] = "1000:300000:65536\n";
  EXPECT_TRUE(Find(RunDoctor(m_, "debian-12"), "subordinate ids").ok);
  // Root needs none.
  files_.erase("/etc/subuid");
  m_.uid = 0;
  m_.user = "root";
  EXPECT_TRUE(Find(RunDoctor(m_, "debian-12"), "subordinate ids").ok);
}

TEST_F(DoctorTest, RootCacheSaysHowToBuild) {
  m_.built_roots.clear();
  std::vector<DoctorCheck> checks = RunDoctor(m_, "debian-12");
  const DoctorCheck c = Find(checks, "root cache");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.fix, "fsmove root build debian-12");
  EXPECT_THAT(c.detail, HasSubstr("none built"));
  // check builds it itself, given mmdebstrap.
  EXPECT_TRUE(DoctorReady(checks));
  tools_.erase("mmdebstrap");
  EXPECT_FALSE(DoctorReady(RunDoctor(m_, "debian-12")));
  EXPECT_TRUE(Find(RunDoctor(m_, "host"), "root cache").ok);
}

TEST_F(DoctorTest, OutdatedRootIsRebuilt) {
  m_.built_roots[0].outdated = true;
  EXPECT_EQ(Find(RunDoctor(m_, "debian-12"), "root cache").fix,
            "fsmove root build debian-12 --rebuild");
}

}  // namespace
}  // namespace fsmove::exec
