// Checks before a run; see preflight.h.
#include "fsmove/exec/preflight.h"

#include <unistd.h>

#include <cstdlib>

#include "fmt/format.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/user_namespace.h"

namespace fsmove::exec {
namespace {

std::string Executable(const char* env_var, std::string_view name) {
  if (const char* e = std::getenv(env_var); e != nullptr && *e != '\0') return e;
  return FindExecutable(name, kSafePath).value_or(std::string(name));
}

}  // namespace

std::string PuppetExecutable() { return Executable("FSMOVE_PUPPET", "puppet"); }
std::string StraceExecutable() { return Executable("FSMOVE_STRACE", "strace"); }

absl::Status Preflight(const CheckRequest& request) {
  std::string puppet = PuppetExecutable(), strace = StraceExecutable();
  if (!request.root.host() && request.sandbox != SandboxMode::kOverlay) {
    return absl::FailedPreconditionError(
        "--root needs the overlay sandbox (it is the sandbox's lower layer)");
  }
  if (request.init == "systemd" && request.sandbox != SandboxMode::kOverlay) {
    return absl::FailedPreconditionError("--init systemd needs the overlay sandbox");
  }
  // A pinned root brings its own Puppet and strace; this machine's strace, if it has one,
  // still tells whether ptrace is permitted here.
  if (!request.root.host() && access(strace.c_str(), X_OK) != 0) strace.clear();
  if (request.root.host() && access(puppet.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "puppet not found ({}): install it with `apt-get install puppet-agent` (Debian 12; or "
        "run tools/bootstrap), or set FSMOVE_PUPPET to its path",
        puppet.find('/') == std::string::npos ? std::string(kSafePath) : puppet));
  }
  if (!strace.empty() && access(strace.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(
        fmt::format("strace not found ({}): install it with `apt-get install strace` (or run "
                    "tools/bootstrap), or set FSMOVE_STRACE to its path",
                    strace.find('/') == std::string::npos ? std::string(kSafePath) : strace));
  }
  if (request.sandbox == SandboxMode::kOverlay) {
    // The sandbox is a user namespace, as root and as anyone else (rootless): refused here
    // with the reason, never silently replaced by an apply to this machine.
    absl::Status st = ProbeUserNamespace();
    if (st.ok()) st = SandboxIdMapping().status();
    if (!st.ok()) {
      return absl::FailedPreconditionError(
          fmt::format("no sandbox can be made here: {} (or, to apply the module to this machine "
                      "itself, --sandbox none)",
                      std::string(st.message())));
    }
  }
  if (strace.empty()) return absl::OkStatus();
  return ProbePtrace(strace);
}

absl::Status ProbePtrace(const std::string& strace) {
  // ptrace may be refused (a container's seccomp profile, kernel.yama.ptrace_scope=3).
  auto run =
      RunCaptured({strace, "-f", "-qq", "-e", "trace=none", "-o", "/dev/null", "--", "/bin/true"},
                  PuppetEnvironment(), 4096);
  if (!run.ok()) {
    return absl::FailedPreconditionError(
        fmt::format("cannot run {}: {}", strace, std::string(run.status().message())));
  }
  if (run->wait_status != 0) {
    std::string err = run->err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    return absl::FailedPreconditionError(fmt::format(
        "strace cannot trace processes here ({}{}{}). ptrace is probably not permitted: in a "
        "container, run it with --cap-add SYS_PTRACE --security-opt seccomp=unconfined; on a "
        "host, check kernel.yama.ptrace_scope (0 or 1 needed)",
        DescribeWaitStatus(run->wait_status), err.empty() ? "" : ": ", err));
  }
  return absl::OkStatus();
}

}  // namespace fsmove::exec
