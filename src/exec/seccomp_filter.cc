// The sandbox's seccomp filter, generated from one table of refused calls; see
// seccomp_filter.h.
#include "fsmove/exec/seccomp_filter.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"

namespace fsmove::exec {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
#error "the sandbox's seccomp filter knows the numbers of x86_64 and aarch64 only"
#endif

// A row whose name is the call's: the number cannot be another call's.
#define FSMOVE_DENY(call, error) \
  SeccompDenial { #call, __NR_##call, error }

// Docker's and podman's default profile, as a denylist. Calls only some architectures have
// (or only some kernel headers) are under #ifdef.
constexpr SeccompDenial kDenied[] = {
    // A file handle opens any file of the mount by its inode, past the sandbox's root (the
    // "shocker" escape).
    FSMOVE_DENY(open_by_handle_at, EPERM),
    FSMOVE_DENY(name_to_handle_at, EPERM),
    // The kernel keyrings are not namespaced: keys of the host's users would be in reach.
    FSMOVE_DENY(keyctl, EPERM),
    FSMOVE_DENY(add_key, EPERM),
    FSMOVE_DENY(request_key, EPERM),
    // Programs in the kernel, kernel tracing, and what exploits use to stall the kernel.
    FSMOVE_DENY(bpf, EPERM),
    FSMOVE_DENY(perf_event_open, EPERM),
    FSMOVE_DENY(userfaultfd, EPERM),
#ifdef __NR_lookup_dcookie
    FSMOVE_DENY(lookup_dcookie, EPERM),
#endif
    // Kernel modules and another kernel.
    FSMOVE_DENY(kexec_load, EPERM),
    FSMOVE_DENY(kexec_file_load, EPERM),
    FSMOVE_DENY(init_module, EPERM),
    FSMOVE_DENY(finit_module, EPERM),
    FSMOVE_DENY(delete_module, EPERM),
#ifdef __NR_create_module
    FSMOVE_DENY(create_module, EPERM),
#endif
#ifdef __NR_get_kernel_syms
    FSMOVE_DENY(get_kernel_syms, EPERM),
#endif
#ifdef __NR_query_module
    FSMOVE_DENY(query_module, EPERM),
#endif
    // The machine's state, shared with the host: accounting, swap, power, clocks, the
    // kernel's log and tunables, quotas, the old NFS server.
    FSMOVE_DENY(acct, EPERM),
    FSMOVE_DENY(swapon, EPERM),
    FSMOVE_DENY(swapoff, EPERM),
    FSMOVE_DENY(reboot, EPERM),
    FSMOVE_DENY(settimeofday, EPERM),
    FSMOVE_DENY(clock_settime, EPERM),
    FSMOVE_DENY(clock_adjtime, EPERM),
    FSMOVE_DENY(adjtimex, EPERM),
    FSMOVE_DENY(syslog, EPERM),
#ifdef __NR__sysctl
    FSMOVE_DENY(_sysctl, EPERM),
#endif
    FSMOVE_DENY(quotactl, EPERM),
#ifdef __NR_quotactl_fd
    FSMOVE_DENY(quotactl_fd, EPERM),
#endif
#ifdef __NR_nfsservctl
    FSMOVE_DENY(nfsservctl, EPERM),
#endif
// Raw hardware and old interfaces.
#ifdef __NR_ioperm
    FSMOVE_DENY(ioperm, EPERM),
#endif
#ifdef __NR_iopl
    FSMOVE_DENY(iopl, EPERM),
#endif
#ifdef __NR_vm86
    FSMOVE_DENY(vm86, EPERM),
#endif
#ifdef __NR_vm86old
    FSMOVE_DENY(vm86old, EPERM),
#endif
#ifdef __NR_uselib
    FSMOVE_DENY(uselib, EPERM),
#endif
// io_uring: file calls that worker threads of the kernel make on a process's behalf,
// past seccomp and past ptrace, so past strace: a module would write and read files
// the trace never shows (and a large attack surface; Docker and podman refuse it too).
#ifdef __NR_io_uring_setup
    FSMOVE_DENY(io_uring_setup, EPERM),
    FSMOVE_DENY(io_uring_enter, EPERM),
    FSMOVE_DENY(io_uring_register, EPERM),
#endif
    // Its flags are in memory, which a filter cannot read: ENOSYS makes glibc fall back to
    // clone, whose flags the row below checks (as Docker does).
    FSMOVE_DENY(clone3, ENOSYS),
    // A nested user namespace is how container escapes start: its root holds every
    // capability over what the namespace owns. CLONE_UNTRACED makes a child strace -f does
    // not follow: its calls would be missing from the trace the verdict rests on.
    SeccompDenial{"clone", __NR_clone, EPERM, CLONE_NEWUSER | CLONE_UNTRACED},
    SeccompDenial{"unshare", __NR_unshare, EPERM, CLONE_NEWUSER},
};

#undef FSMOVE_DENY

sock_filter Statement(uint16_t code, uint32_t k) { return sock_filter{code, 0, 0, k}; }

sock_filter Jump(uint16_t code, uint32_t k, uint8_t if_true, uint8_t if_false) {
  return sock_filter{code, if_true, if_false, k};
}

uint32_t Errno(int error) {
  return SECCOMP_RET_ERRNO | (static_cast<uint32_t>(error) & SECCOMP_RET_DATA);
}

// The low 32 bits of the first argument, where clone's and unshare's flags are.
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
constexpr uint32_t kArg0Low = offsetof(seccomp_data, args) + sizeof(uint32_t);
#else
constexpr uint32_t kArg0Low = offsetof(seccomp_data, args);
#endif

std::string FlagsName(uint32_t flags) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {CLONE_NEWUSER, "CLONE_NEWUSER"}, {CLONE_UNTRACED, "CLONE_UNTRACED"}};
  std::string names;
  for (const auto& [bit, name] : kNames) {
    if ((flags & bit) == 0) continue;
    names += fmt::format("{}{}", names.empty() ? "" : " or ", name);
    flags &= ~bit;
  }
  if (flags != 0) names += fmt::format("{}{:#x}", names.empty() ? "" : " or ", flags);
  return names;
}

std::string BuildSummary() {
  std::string always;
  std::string conditional;
  std::string other_errors;
  for (const SeccompDenial& row : kDenied) {
    if (row.error != EPERM) {
      other_errors +=
          fmt::format("{}{} fails with {}", other_errors.empty() ? "" : "; ", row.name,
                      row.error == ENOSYS ? "ENOSYS" : fmt::format("errno {}", row.error));
    } else if (row.arg0_flags != 0) {
      conditional += fmt::format("{}{} with {}", conditional.empty() ? "" : ", ", row.name,
                                 FlagsName(row.arg0_flags));
    } else {
      always += fmt::format("{}{}", always.empty() ? "" : ", ", row.name);
    }
  }
  return fmt::format(
      "seccomp (the container runtimes' default profile): EPERM for other architectures' "
      "calls{}, {}, {}; {}; everything else allowed",
#if defined(__x86_64__)
      " (i386, x32)",
#else
      "",
#endif
      always, conditional, other_errors);
}

}  // namespace

std::span<const SeccompDenial> SeccompDeniedSyscalls() { return kDenied; }

std::vector<sock_filter> SandboxSeccompProgram() {
  std::vector<sock_filter> program;
  const uint32_t allow = SECCOMP_RET_ALLOW;
  // Numbers mean other calls on another architecture: the arch is checked before any number.
  program.push_back(Statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  program.push_back(Jump(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0));
  program.push_back(Statement(BPF_RET | BPF_K, Errno(EPERM)));
  program.push_back(Statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
  // x32 shares AUDIT_ARCH_X86_64 and marks its numbers with this bit.
  program.push_back(Jump(BPF_JMP | BPF_JSET | BPF_K, __X32_SYSCALL_BIT, 0, 1));
  program.push_back(Statement(BPF_RET | BPF_K, Errno(EPERM)));
#endif
  for (const SeccompDenial& row : kDenied) {
    const auto nr = static_cast<uint32_t>(row.nr);
    if (row.arg0_flags == 0) {
      program.push_back(Jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
      program.push_back(Statement(BPF_RET | BPF_K, Errno(row.error)));
      continue;
    }
    // The accumulator then holds the argument, not the number: this call's verdict is given
    // here, allowed without the flags.
    program.push_back(Jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
    program.push_back(Statement(BPF_LD | BPF_W | BPF_ABS, kArg0Low));
    program.push_back(Jump(BPF_JMP | BPF_JSET | BPF_K, row.arg0_flags, 0, 1));
    program.push_back(Statement(BPF_RET | BPF_K, Errno(row.error)));
    program.push_back(Statement(BPF_RET | BPF_K, allow));
  }
  program.push_back(Statement(BPF_RET | BPF_K, allow));
  return program;
}

absl::Status InstallSandboxSeccomp() {
  std::vector<sock_filter> program = SandboxSeccompProgram();
  sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
  if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0) return absl::OkStatus();
  if (errno == ENOSYS) {
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0) return absl::OkStatus();
  }
  if (errno == EACCES) {
    return base::ErrnoStatus(
        "installing the sandbox's seccomp filter (needs PR_SET_NO_NEW_PRIVS or CAP_SYS_ADMIN)");
  }
  return base::ErrnoStatus("installing the sandbox's seccomp filter");
}

std::string_view SeccompDeniedSummary() {
  static const std::string summary = BuildSummary();
  return summary;
}

}  // namespace fsmove::exec
