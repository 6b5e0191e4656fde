// Bounding sets; see capabilities.h.
#include "fsmove/exec/capabilities.h"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <sstream>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"

namespace fsmove::exec {
namespace {

int LastCapability() {
  std::string text = base::ReadFile("/proc/sys/kernel/cap_last_cap").value_or("");
  int last = CAP_LAST_CAP;
  if (!text.empty()) last = std::max(0, std::atoi(text.c_str()));
  return std::min(last, 63);
}

}  // namespace

absl::Status LimitBoundingSet(std::span<const int> keep) {
  auto kept = [&](int cap) { return std::find(keep.begin(), keep.end(), cap) != keep.end(); };
  for (int cap = 0; cap <= LastCapability(); ++cap) {
    if (kept(cap)) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
      return base::ErrnoStatus(
          fmt::format("dropping {} from the bounding set", CapabilityName(cap)));
    }
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return base::ErrnoStatus("clearing the ambient capabilities");
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &header, data) != 0) return base::ErrnoStatus("capget");
  uint64_t mask = 0;
  for (int cap : keep) {
    if (cap >= 0 && cap < 64) mask |= uint64_t{1} << cap;
  }
  data[0].inheritable &= static_cast<uint32_t>(mask);
  data[1].inheritable &= static_cast<uint32_t>(mask >> 32);
  if (syscall(SYS_capset, &header, data) != 0) return base::ErrnoStatus("capset");
  return absl::OkStatus();
}

std::string CapabilityName(int cap) {
  static constexpr const char* kNames[] = {"CHOWN",
                                           "DAC_OVERRIDE",
                                           "DAC_READ_SEARCH",
                                           "FOWNER",
                                           "FSETID",
                                           "KILL",
                                           "SETGID",
                                           "SETUID",
                                           "SETPCAP",
                                           "LINUX_IMMUTABLE",
                                           "NET_BIND_SERVICE",
                                           "NET_BROADCAST",
                                           "NET_ADMIN",
                                           "NET_RAW",
                                           "IPC_LOCK",
                                           "IPC_OWNER",
                                           "SYS_MODULE",
                                           "SYS_RAWIO",
                                           "SYS_CHROOT",
                                           "SYS_PTRACE",
                                           "SYS_PACCT",
                                           "SYS_ADMIN",
                                           "SYS_BOOT",
                                           "SYS_NICE",
                                           "SYS_RESOURCE",
                                           "SYS_TIME",
                                           "SYS_TTY_CONFIG",
                                           "MKNOD",
                                           "LEASE",
                                           "AUDIT_WRITE",
                                           "AUDIT_CONTROL",
                                           "SETFCAP",
                                           "MAC_OVERRIDE",
                                           "MAC_ADMIN",
                                           "SYSLOG",
                                           "WAKE_ALARM",
                                           "BLOCK_SUSPEND",
                                           "AUDIT_READ",
                                           "PERFMON",
                                           "BPF",
                                           "CHECKPOINT_RESTORE"};
  if (cap >= 0 && static_cast<size_t>(cap) < std::size(kNames)) {
    return std::string("CAP_") + kNames[cap];
  }
  return fmt::format("CAP_{}", cap);
}

std::vector<int> BoundingSet() {
  std::istringstream lines(base::ReadFile("/proc/self/status").value_or(""));
  std::vector<int> caps;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("CapBnd:")) continue;
    const uint64_t mask = std::stoull(line.substr(7), nullptr, 16);
    for (int cap = 0; cap < 64; ++cap) {
      if (mask & (uint64_t{1} << cap)) caps.push_back(cap);
    }
  }
  return caps;
}

}  // namespace fsmove::exec
