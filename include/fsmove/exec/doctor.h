// `fsmove doctor`: what `fsmove check` needs on this machine (kernel features, tools,
// subordinate ids, the root cache), each check with what to do when it is missing.
//
// The checks read the machine through MachineProbe, so that tests feed them fake /proc text;
// ProbeThisMachine() fills it from the real one (Preflight's own probes: user namespaces,
// ptrace, the id mapping's files).
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fsmove/exec/os_root.h"

namespace fsmove::exec {

// One line of the doctor's answer.
struct DoctorCheck {
  std::string name;      // "user namespaces"
  bool ok = false;       // what it looks for is there
  bool required = true;  // check cannot run in its default mode without it (else: a warning)
  std::string detail;    // what was found
  std::string fix;       // the command (or setting) that supplies it; empty when ok
};

// This machine as the checks see it. Every field has a fake in the tests.
struct MachineProbe {
  // The text of a file by its absolute path (/proc/filesystems, /etc/subuid); nullopt when it
  // cannot be read (absent: the kernel has no such setting).
  std::function<std::optional<std::string>(const std::string& path)> read_file;
  // The path of the executable `name` (PATH, then the fixed PATH Puppet runs with); nullopt.
  std::function<std::optional<std::string>(std::string_view name)> find_tool;
  std::string kernel_release;  // uname -r: "6.1.0-18-amd64"
  uid_t uid = 0;
  std::string user;
  bool seccomp_prctl = false;  // prctl(PR_GET_SECCOMP) answered
  // Live probes: a user namespace can be made; `strace` (a path) can trace.
  std::function<absl::Status()> user_namespace;
  std::function<absl::Status(const std::string& strace)> ptrace;
  // A device opened for reading and writing as this user, and closed (/dev/net/tun, which
  // slirp4netns opens as the user to make the sandbox's interface).
  std::function<absl::Status(const std::string& device)> open_device;
  std::string root_cache_dir;
  std::vector<OsRoot> built_roots;
};

// The real machine: files under `/`, $PATH then kSafePath, uname, geteuid, the root cache.
MachineProbe ProbeThisMachine();

// The checks for a `fsmove check --root ROOT` (a known root's name, or "host"), in order:
// kernel, tools, subordinate ids, root cache.
std::vector<DoctorCheck> RunDoctor(const MachineProbe& machine, std::string_view root);

// Whether `fsmove check` can run: every required check is ok.
bool DoctorReady(const std::vector<DoctorCheck>& checks);

// "6.1.0-18-amd64" -> {6, 1}; nullopt if it does not start with MAJOR.MINOR.
std::optional<std::pair<int, int>> KernelVersion(std::string_view release);

}  // namespace fsmove::exec
