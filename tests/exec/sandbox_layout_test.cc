// The sandbox's file systems, laid out over a small OS root in a child's private mount
// namespace (root only): the overlay both ways (the keeper's and the sandbox's own), fresh
// /proc and read-only /sys and kernel knobs, a /dev without disks, inputs read-only, the work
// directory copied in, the policy-rc.d, and the pivot that leaves nothing of the host.
#include "fsmove/exec/sandbox_layout.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fsmove/exec/overlay_mount.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ReadOnly(const std::string& path) {
  struct statvfs st {};
  return statvfs(path.c_str(), &st) == 0 && (st.f_flag & ST_RDONLY) != 0;
}

// A small OS root, an in/ directory as the executor writes it, and an input module.
class SandboxLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "laying out a sandbox needs root";
    char tmpl[] = "/var/tmp/fsmove-layout-XXXXXX";  // not under the scratch /tmp it covers
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    base_ = tmpl;
    lower_ = base_ + "/lower";
    for (const char* d : {"proc", "sys", "dev", "run", "tmp", "etc/systemd/system", "usr/sbin"}) {
      fs::create_directories(lower_ + "/" + d);
    }
    std::ofstream(lower_ + "/etc/hostname") << "lower\n";
    fs::create_directories(base_ + "/in/modules");
    std::ofstream(base_ + "/in/site.pp") << "include mymod\n";
    fs::create_symlink("/opt/mods/mymod", base_ + "/in/modules/mymod");
    fs::create_directories(base_ + "/input");
    std::ofstream(base_ + "/input/init.pp") << "class mymod {}\n";
    fs::create_directories(base_ + "/scratch");
  }
  void TearDown() override {
    if (!base_.empty()) fs::remove_all(base_);
  }

  // Runs `body` with the layout built, in a child with a private mount namespace; returns
  // the child's exit code (the number of failed checks, or a setup failure >= 100).
  int InChild(bool keeper_overlay, const std::function<int(SandboxLayout&)>& body) {
    pid_t child = fork();
    if (child == 0) {
      if (unshare(CLONE_NEWNS) != 0 || mount("", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        _exit(100);
      std::optional<KeeperOverlay> overlay;
      SupervisorFds fds;
      if (keeper_overlay) {
        auto made = KeeperOverlay::Make(base_ + "/overlay", lower_, 0, 0);
        if (!made.ok()) _exit(101);
        overlay.emplace(std::move(*made));
        fds.merged = open(overlay->merged().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        fds.upper = open(overlay->upper().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      }
      fds.lower = open(lower_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      fds.in_dir = open((base_ + "/in").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      fds.inputs.emplace_back("/opt/mods/mymod",
                              open((base_ + "/input").c_str(), O_PATH | O_CLOEXEC));
      for (const auto& [at, host] : moved_inputs_) {
        fds.inputs.emplace_back(at, open(host.c_str(), O_PATH | O_CLOEXEC));
      }
      SandboxSpec spec;
      spec.linked_module_dirs = linked_module_dirs_;
      spec.policy_rc = "deny";
      const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
      StatusWriter status(null_fd);
      SandboxLayout layout(spec, SupervisorPhase::kApply, fds, status, base_ + "/scratch");
      if (absl::Status st = layout.Build(); !st.ok()) {
        std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
        _exit(102);
      }
      _exit(body(layout));
    }
    int st = 0;
    waitpid(child, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
  }

  static int CheckLayout(SandboxLayout& layout, const std::string& lower) {
    const std::string& r = layout.root();
    int bad = 0;
    auto expect = [&](bool ok, const char* what) {
      if (!ok) {
        std::fprintf(stderr, "failed: %s\n", what);
        ++bad;
      }
    };
    expect(fs::exists(r + "/proc/self/status"), "a fresh /proc");
    expect(ReadOnly(r + "/sys"), "/sys read-only");
    expect(ReadOnly(r + "/proc/sys"), "/proc/sys read-only");
    struct stat st {};
    expect(stat((r + "/dev/null").c_str(), &st) == 0 && S_ISCHR(st.st_mode), "/dev/null");
    expect(
        !fs::exists(r + "/dev/sda") && !fs::exists(r + "/dev/vda") && !fs::exists(r + "/dev/mem"),
        "no disks in /dev");
    expect(Slurp(r + "/run/fsmove/site.pp") == "include mymod\n", "the manifest copied in");
    std::error_code ec;
    expect(fs::read_symlink(r + "/run/fsmove/modules/mymod", ec) == "/opt/mods/mymod",
           "the module link copied in");
    expect(Slurp(r + "/opt/mods/mymod/init.pp") == "class mymod {}\n", "the input bound");
    int w = open((r + "/opt/mods/mymod/init.pp").c_str(), O_WRONLY | O_CLOEXEC);
    expect(w < 0 && errno == EROFS, "the input read-only");
    if (w >= 0) close(w);
    expect(Slurp(r + "/usr/sbin/policy-rc.d").find("exit 101") != std::string::npos,
           "policy-rc.d denies");
    expect(fs::exists(r + "/etc/resolv.conf"), "a resolv.conf");
    std::ofstream(r + "/etc/hostname") << "changed\n";
    expect(Slurp(lower + "/etc/hostname") == "lower\n", "the lower layer untouched");
    return bad;
  }

  std::string base_, lower_;
  // A modulepath directory of symlinks: the directories shown as ones of their own, and the
  // inputs bound into them (sandbox path, host directory).
  std::vector<std::string> linked_module_dirs_;
  std::vector<std::pair<std::string, std::string>> moved_inputs_;
};

TEST_F(SandboxLayoutTest, TheSandboxsOwnOverlay) {
  const std::string lower = lower_;
  EXPECT_EQ(InChild(false,
                    [&](SandboxLayout& l) {
                      int bad = CheckLayout(l, lower);
                      // What an overlay of a user namespace's (here: without redirects) says.
                      bad += !(rename((l.root() + "/etc/systemd").c_str(),
                                      (l.root() + "/etc/systemd.old").c_str()) != 0 &&
                               errno == EXDEV);
                      return bad;
                    }),
            0);
}

TEST_F(SandboxLayoutTest, TheKeepersOverlay) {
  const std::string lower = lower_;
  EXPECT_EQ(InChild(true,
                    [&](SandboxLayout& l) {
                      int bad = CheckLayout(l, lower);
                      bad += rename((l.root() + "/etc/systemd").c_str(),
                                    (l.root() + "/etc/systemd.old").c_str()) != 0;
                      return bad;
                    }),
            0);
}

TEST_F(SandboxLayoutTest, PivotLeavesNothingOfTheHost) {
  const std::string base = base_;
  EXPECT_EQ(InChild(false,
                    [&](SandboxLayout& l) {
                      if (!l.Pivot().ok()) return 50;
                      int bad = 0;
                      bad += l.root() != "/";
                      bad += fs::exists("/.fsmove-old-root");
                      bad += fs::exists(base);  // the host's /var/tmp is out of reach
                      bad += Slurp("/run/fsmove/site.pp") != "include mymod\n";
                      return bad;
                    }),
            0);
}

// Debian's /usr/share/puppet/modules: links through /etc/alternatives, which lead nowhere in
// the sandbox. It shows the directory as one of its own: each module the directory its link
// resolved to on the host, at the link's name, read-only; nothing of the OS root's directory.
TEST_F(SandboxLayoutTest, AModulepathDirectoryOfLinksShowsTheirModules) {
  const std::string modules = "/usr/share/puppet/modules";
  fs::create_directories(lower_ + modules + "/stale");
  fs::create_symlink("/etc/alternatives/puppet-module-concat", lower_ + modules + "/concat");
  const std::string concat = base_ + "/available/puppetlabs-concat";
  fs::create_directories(concat + "/manifests");
  std::ofstream(concat + "/manifests/init.pp") << "class concat {}\n";
  linked_module_dirs_ = {modules};
  moved_inputs_ = {{modules + "/concat", concat}};
  EXPECT_EQ(InChild(false,
                    [&](SandboxLayout& l) {
                      const std::string dir = l.root() + modules;
                      int bad = 0;
                      auto expect = [&](bool ok, const char* what) {
                        if (!ok) {
                          std::fprintf(stderr, "failed: %s\n", what);
                          ++bad;
                        }
                      };
                      expect(Slurp(dir + "/concat/manifests/init.pp") == "class concat {}\n",
                             "the module at its link's name");
                      std::vector<std::string> names;
                      for (const auto& e : fs::directory_iterator(dir)) {
                        names.push_back(e.path().filename().string());
                      }
                      expect(names == std::vector<std::string>{"concat"},
                             "only the modules bound (not the OS root's)");
                      int w =
                          open((dir + "/concat/manifests/init.pp").c_str(), O_WRONLY | O_CLOEXEC);
                      expect(w < 0 && errno == EROFS, "the module read-only");
                      if (w >= 0) close(w);
                      w = open((dir + "/planted").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                      expect(w < 0 && errno == EROFS, "the directory read-only");
                      if (w >= 0) close(w);
                      return bad;
                    }),
            0);
}

}  // namespace
}  // namespace fsmove::exec

namespace fsmove::exec {
namespace {

// The sandbox's host name resolves without the network, as on a machine Debian's installer
// set up; a hosts file that names it already is left as it is.
TEST(HostsWithOwnNameTest, AddsTheHostNameOnceAsDebiansInstallerDoes) {
  const std::string pinned = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
  EXPECT_EQ(HostsWithOwnName(pinned, "vm"),
            pinned +
                "# fsmove sandbox: its own host name, as Debian's installer maps it\n"
                "127.0.1.1\tvm\n");
  EXPECT_EQ(HostsWithOwnName("127.0.0.1 localhost", "web1.example.org"),
            "127.0.0.1 localhost\n# fsmove sandbox: its own host name, as Debian's installer "
            "maps it\n127.0.1.1\tweb1.example.org web1\n");
  const std::string named = "127.0.0.1 localhost\n127.0.1.1  web1.example.org\tweb1 # mine\n";
  EXPECT_EQ(HostsWithOwnName(named, "web1.example.org"), named);
  EXPECT_EQ(HostsWithOwnName(named, "web1"), named);
  // A name in a comment, or as an address, is no mapping of it.
  EXPECT_NE(HostsWithOwnName("# vm\n", "vm"), "# vm\n");
  EXPECT_NE(HostsWithOwnName("vm localhost\n", "vm"), "vm localhost\n");
  // A qualified name is mapped with its first label, which `hostname` gives.
  EXPECT_EQ(HostsWithOwnName("", "vm.localdomain"),
            "# fsmove sandbox: its own host name, as Debian's installer maps it\n"
            "127.0.1.1\tvm.localdomain vm\n");
}

// The sandbox's name has a domain whatever the machine is called, taken where Facter would
// find the machine's: its hosts file, then resolv.conf, else localdomain.
TEST(QualifiedHostNameTest, GivesTheMachinesDomainOrLocaldomain) {
  EXPECT_EQ(QualifiedHostName("web1.example.org", "", ""), "web1.example.org");
  EXPECT_EQ(QualifiedHostName("vm", "127.0.0.1 localhost\n127.0.0.1 vm\n", ""), "vm.localdomain");
  EXPECT_EQ(QualifiedHostName("web1", "127.0.1.1\tweb1.corp.example web1 # installer\n", ""),
            "web1.corp.example");
  // Another host's qualified name, or one in a comment, is not this one's.
  EXPECT_EQ(QualifiedHostName("web1", "10.0.0.2 web10.corp.example web10 web1x\n", ""),
            "web1.localdomain");
  EXPECT_EQ(QualifiedHostName("web1", "# 127.0.1.1 web1.corp.example web1\n", ""),
            "web1.localdomain");
  EXPECT_EQ(
      QualifiedHostName("web1", "", "nameserver 10.0.0.1\nsearch lab.example other.example\n"),
      "web1.lab.example");
  EXPECT_EQ(QualifiedHostName("web1", "", "domain corp.example.\nnameserver 10.0.0.1\n"),
            "web1.corp.example");
  EXPECT_EQ(QualifiedHostName("web1", "", "search .\n"), "web1.localdomain");
  EXPECT_EQ(QualifiedHostName("", "", ""), "");
}

}  // namespace
}  // namespace fsmove::exec
