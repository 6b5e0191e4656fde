// The sandbox's capabilities: names, the default set, and LimitBoundingSet in forked children
// that check their own sets in /proc/self/status.
#include "fsmove/exec/capabilities.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "fmt/format.h"

namespace fsmove::exec {
namespace {

uint64_t MaskOf(std::span<const int> caps) {
  uint64_t mask = 0;
  for (int cap : caps) mask |= uint64_t{1} << cap;
  return mask;
}

// A capability mask line of /proc/self/status ("CapInh", "CapAmb", ...).
uint64_t StatusMask(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoull(line.substr(key.size() + 1), nullptr, 16);
  }
  return ~uint64_t{0};
}

// Runs `body` in a forked child: what it returns is what went wrong ("" if nothing), sent
// back through a pipe; the exit code says whether the child got that far.
std::string InChild(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string failure = body();
    bool sent =
        write(fds[1], failure.data(), failure.size()) == static_cast<ssize_t>(failure.size());
    _exit(sent && failure.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string failure;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) failure.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (failure.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    failure = fmt::format("the child ended with status {:#x}", status);
  }
  return failure;
}

TEST(CapabilitiesTest, Names) {
  EXPECT_EQ(CapabilityName(CAP_SYS_ADMIN), "CAP_SYS_ADMIN");
  EXPECT_EQ(CapabilityName(CAP_CHOWN), "CAP_CHOWN");
  EXPECT_EQ(CapabilityName(CAP_NET_BIND_SERVICE), "CAP_NET_BIND_SERVICE");
  EXPECT_EQ(CapabilityName(CAP_LAST_CAP).substr(0, 4), "CAP_");
  EXPECT_EQ(CapabilityName(63), "63");
  EXPECT_EQ(CapabilityName(-1), "-1");
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap) {
    EXPECT_EQ(CapabilityName(cap).substr(0, 4), "CAP_") << cap;
  }
}

TEST(CapabilitiesTest, ContainerDefaultIsPodmans) {
  std::string names;
  for (int cap : kContainerDefaultCapabilities) names += CapabilityName(cap) + " ";
  EXPECT_EQ(names,
            "CAP_CHOWN CAP_DAC_OVERRIDE CAP_FOWNER CAP_FSETID CAP_KILL CAP_NET_BIND_SERVICE "
            "CAP_SETFCAP CAP_SETGID CAP_SETPCAP CAP_SETUID CAP_SYS_CHROOT ");
}

TEST(CapabilitiesTest, BoundingSetIsWhatTheKernelSays) {
  std::vector<int> read_back;
  for (int cap = 0; cap < 64; ++cap) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) read_back.push_back(cap);
  }
  EXPECT_EQ(BoundingSet(), read_back);
}

TEST(CapabilitiesTest, LimitsTheBoundingAmbientAndInheritableSets) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (CAP_SETPCAP)";
  const uint64_t before = MaskOf(BoundingSet());
  std::string failure = InChild([before]() -> std::string {
    // Inheritable CAP_CHOWN (kept) and CAP_SYS_ADMIN (not), and CAP_CHOWN ambient.
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
    if (syscall(SYS_capget, &header, data) != 0) return "capget failed";
    data[0].inheritable |= (1u << CAP_CHOWN) | (1u << CAP_SYS_ADMIN);
    if (syscall(SYS_capset, &header, data) != 0) return "capset failed";
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_CHOWN, 0, 0) != 0) {
      return "raising an ambient capability failed";
    }

    absl::Status limited = LimitBoundingSet(kContainerDefaultCapabilities);
    if (!limited.ok()) return limited.ToString();
    const uint64_t want = MaskOf(kContainerDefaultCapabilities) & before;
    std::string failure;
    if (uint64_t bnd = StatusMask("CapBnd"); bnd != want) {
      failure += fmt::format("CapBnd {:016x}, want {:016x}; ", bnd, want);
    }
    if (MaskOf(BoundingSet()) != want) failure += "BoundingSet() disagrees; ";
    if (uint64_t inh = StatusMask("CapInh"); inh != (uint64_t{1} << CAP_CHOWN)) {
      failure += fmt::format("CapInh {:016x}, want only CAP_CHOWN; ", inh);
    }
    if (uint64_t amb = StatusMask("CapAmb"); amb != 0) {
      failure += fmt::format("CapAmb {:016x}, want none; ", amb);
    }
    // The process's own capabilities stay: the bounding set is for what it execs.
    if (((StatusMask("CapEff") >> CAP_SYS_ADMIN) & 1) == 0) {
      failure += "CAP_SYS_ADMIN left the effective set; ";
    }
    // Again, with the bounding set already limited: nothing left to drop.
    if (absl::Status again = LimitBoundingSet(kContainerDefaultCapabilities); !again.ok()) {
      failure += again.ToString();
    }
    return failure;
  });
  EXPECT_EQ(failure, "");
}

// What is already out of the bounding set needs no CAP_SETPCAP to stay out.
TEST(CapabilitiesTest, LimitingAgainWithoutSetpcapSucceeds) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (CAP_SETPCAP)";
  std::string failure = InChild([]() -> std::string {
    if (absl::Status s = LimitBoundingSet(kContainerDefaultCapabilities); !s.ok()) {
      return s.ToString();
    }
    const int fewer[] = {CAP_CHOWN, CAP_KILL};
    // Without CAP_SETPCAP (effective), a capability still in the set cannot be dropped...
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
    if (syscall(SYS_capget, &header, data) != 0) return "capget failed";
    data[0].effective &= ~(1u << CAP_SETPCAP);
    if (syscall(SYS_capset, &header, data) != 0) return "capset failed";
    if (LimitBoundingSet(fewer).ok()) return "dropped without CAP_SETPCAP";
    // ...but the same set again is fine.
    if (absl::Status s = LimitBoundingSet(kContainerDefaultCapabilities); !s.ok()) {
      return s.ToString();
    }
    return "";
  });
  EXPECT_EQ(failure, "");
}

}  // namespace
}  // namespace fsmove::exec

namespace fsmove::exec {
namespace {

TEST(SandboxCapabilitiesTest, ModuleCodeKeepsTheContainerDefaultsAndNetAdminOnly) {
  const std::vector<int> module = ModuleCapabilities();
  auto has = [](const std::vector<int>& caps, int cap) {
    return std::find(caps.begin(), caps.end(), cap) != caps.end();
  };
  for (int cap : kContainerDefaultCapabilities) EXPECT_TRUE(has(module, cap)) << cap;
  EXPECT_TRUE(has(module, CAP_NET_ADMIN));
  for (int cap : {CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_SYS_MODULE, CAP_SYS_RAWIO,
                  CAP_BPF, CAP_PERFMON, CAP_SYS_BOOT, CAP_MAC_ADMIN}) {
    EXPECT_FALSE(has(module, cap)) << CapabilityName(cap);
  }
}

}  // namespace
}  // namespace fsmove::exec
