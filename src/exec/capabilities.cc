// The sandbox's capabilities; see capabilities.h.
#include "fsmove/exec/capabilities.h"

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <string_view>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"

namespace fsmove::exec {
namespace {

struct CapabilityRow {
  int cap;
  std::string_view name;
};

#define FSMOVE_CAP(cap) \
  CapabilityRow { cap, #cap }

// Every capability linux/capability.h names, the macro's name being the one users know.
constexpr CapabilityRow kCapabilities[] = {
    FSMOVE_CAP(CAP_CHOWN),
    FSMOVE_CAP(CAP_DAC_OVERRIDE),
    FSMOVE_CAP(CAP_DAC_READ_SEARCH),
    FSMOVE_CAP(CAP_FOWNER),
    FSMOVE_CAP(CAP_FSETID),
    FSMOVE_CAP(CAP_KILL),
    FSMOVE_CAP(CAP_SETGID),
    FSMOVE_CAP(CAP_SETUID),
    FSMOVE_CAP(CAP_SETPCAP),
    FSMOVE_CAP(CAP_LINUX_IMMUTABLE),
    FSMOVE_CAP(CAP_NET_BIND_SERVICE),
    FSMOVE_CAP(CAP_NET_BROADCAST),
    FSMOVE_CAP(CAP_NET_ADMIN),
    FSMOVE_CAP(CAP_NET_RAW),
    FSMOVE_CAP(CAP_IPC_LOCK),
    FSMOVE_CAP(CAP_IPC_OWNER),
    FSMOVE_CAP(CAP_SYS_MODULE),
    FSMOVE_CAP(CAP_SYS_RAWIO),
    FSMOVE_CAP(CAP_SYS_CHROOT),
    FSMOVE_CAP(CAP_SYS_PTRACE),
    FSMOVE_CAP(CAP_SYS_PACCT),
    FSMOVE_CAP(CAP_SYS_ADMIN),
    FSMOVE_CAP(CAP_SYS_BOOT),
    FSMOVE_CAP(CAP_SYS_NICE),
    FSMOVE_CAP(CAP_SYS_RESOURCE),
    FSMOVE_CAP(CAP_SYS_TIME),
    FSMOVE_CAP(CAP_SYS_TTY_CONFIG),
    FSMOVE_CAP(CAP_MKNOD),
    FSMOVE_CAP(CAP_LEASE),
    FSMOVE_CAP(CAP_AUDIT_WRITE),
    FSMOVE_CAP(CAP_AUDIT_CONTROL),
    FSMOVE_CAP(CAP_SETFCAP),
    FSMOVE_CAP(CAP_MAC_OVERRIDE),
    FSMOVE_CAP(CAP_MAC_ADMIN),
    FSMOVE_CAP(CAP_SYSLOG),
    FSMOVE_CAP(CAP_WAKE_ALARM),
    FSMOVE_CAP(CAP_BLOCK_SUSPEND),
    FSMOVE_CAP(CAP_AUDIT_READ),
#ifdef CAP_PERFMON
    FSMOVE_CAP(CAP_PERFMON),
#endif
#ifdef CAP_BPF
    FSMOVE_CAP(CAP_BPF),
#endif
#ifdef CAP_CHECKPOINT_RESTORE
    FSMOVE_CAP(CAP_CHECKPOINT_RESTORE),
#endif
};

#undef FSMOVE_CAP

// The capability sets are 64-bit masks (two 32-bit words in capget's data).
constexpr int kMaskBits = 64;

uint64_t MaskOf(std::span<const int> caps) {
  uint64_t mask = 0;
  for (int cap : caps) {
    if (cap >= 0 && cap < kMaskBits) mask |= uint64_t{1} << cap;
  }
  return mask;
}

// The kernel's last capability: it may know more (or fewer) than this build's headers.
int LastCapability() {
  int last = CAP_LAST_CAP;
  absl::StatusOr<std::string> text = base::ReadFile("/proc/sys/kernel/cap_last_cap");
  if (text.ok()) {
    int read = 0;
    auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), read);
    if (error == std::errc() && end != text->data()) last = read;
  }
  return last < kMaskBits ? last : kMaskBits - 1;
}

}  // namespace

std::string CapabilityName(int cap) {
  for (const CapabilityRow& row : kCapabilities) {
    if (row.cap == cap) return std::string(row.name);
  }
  return fmt::format("{}", cap);
}

absl::Status LimitBoundingSet(std::span<const int> keep) {
  const uint64_t kept = MaskOf(keep);
  const int last = LastCapability();
  for (int cap = 0; cap <= last; ++cap) {
    if ((kept >> cap) & 1) continue;
    // One already out needs no CAP_SETPCAP to stay out; one the kernel does not know is
    // EINVAL either way.
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) <= 0) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
      return base::ErrnoStatus(
          fmt::format("dropping {} from the bounding set", CapabilityName(cap)));
    }
  }
  // A kernel before 4.3 has no ambient set (EINVAL): nothing to clear.
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return base::ErrnoStatus("clearing the ambient capabilities");
  }
  // Lowering the inheritable set needs no privilege; the permitted and effective sets are
  // written back as they are.
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  if (syscall(SYS_capget, &header, data) != 0) {
    return base::ErrnoStatus("reading the capabilities (capget)");
  }
  data[0].inheritable &= static_cast<uint32_t>(kept);
  data[1].inheritable &= static_cast<uint32_t>(kept >> 32);
  if (syscall(SYS_capset, &header, data) != 0) {
    return base::ErrnoStatus("lowering the inheritable capabilities (capset)");
  }
  return absl::OkStatus();
}

std::vector<int> BoundingSet() {
  std::vector<int> caps;
  absl::StatusOr<std::string> status = base::ReadFile("/proc/self/status");
  if (!status.ok()) return caps;
  constexpr std::string_view kKey = "\nCapBnd:";
  size_t at = status->find(kKey);
  if (at == std::string::npos) return caps;
  const char* begin = status->data() + at + kKey.size();
  const char* end = status->data() + status->size();
  while (begin < end && (*begin == ' ' || *begin == '\t')) ++begin;
  uint64_t mask = 0;
  if (std::from_chars(begin, end, mask, 16).ec != std::errc()) return caps;
  for (int cap = 0; cap < kMaskBits; ++cap) {
    if ((mask >> cap) & 1) caps.push_back(cap);
  }
  return caps;
}

std::vector<int> ModuleCapabilities() {
  return {CAP_CHOWN,      CAP_DAC_OVERRIDE, CAP_FOWNER,      CAP_FSETID,           CAP_KILL,
          CAP_SETGID,     CAP_SETUID,       CAP_SETPCAP,     CAP_NET_BIND_SERVICE, CAP_NET_RAW,
          CAP_SYS_CHROOT, CAP_MKNOD,        CAP_AUDIT_WRITE, CAP_SETFCAP,          CAP_NET_ADMIN};
}

}  // namespace fsmove::exec
