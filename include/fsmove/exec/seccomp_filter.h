// The sandbox's seccomp filter: the container runtimes' default profile (Docker, podman) as a
// hand-written BPF denylist, generated from one table of the calls it refuses.
#pragma once

#include <linux/filter.h>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace fsmove::exec {

// One row of the table: the call, its number on this build's architecture, and the errno it
// fails with. With `arg0_flags` set, the call is refused only when its first argument (the
// flags of clone and unshare) has one of those bits; otherwise always.
struct SeccompDenial {
  std::string_view name;
  int nr;
  int error;
  uint32_t arg0_flags = 0;
};

// The table, in the order the program tests it.
std::span<const SeccompDenial> SeccompDeniedSyscalls();

// The BPF program (pure: no system call). It refuses with EPERM every call made with another
// architecture's numbers (i386 compat, and x32 on x86_64), then every row of the table, and
// allows the rest: ptrace (strace needs it), mount and the new mount API, pivot_root and
// fanotify stay allowed, the user namespace and the capabilities decide on those.
std::vector<sock_filter> SandboxSeccompProgram();

// Installs the program on the calling thread (the sandbox's processes are single-threaded
// when they call it, so no TSYNC), with seccomp(2), or prctl(PR_SET_SECCOMP) on a kernel
// without it. It does not set PR_SET_NO_NEW_PRIVS: without it, or CAP_SYS_ADMIN in the
// process's user namespace, the kernel refuses (EACCES).
absl::Status InstallSandboxSeccomp();

// One line for the run's notes and the documentation: what the filter refuses.
std::string_view SeccompDeniedSummary();

}  // namespace fsmove::exec
