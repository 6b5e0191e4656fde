// What `fsmove check` verifies before it runs anything: Puppet and strace are there (or the
// pinned root brings its own), the sandbox can be made, ptrace is permitted. Errors say what
// to do, in a second rather than after a long run.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "fsmove/exec/check_request.h"

namespace fsmove::exec {

// Everything that can be known before running: tools installed, root for the sandbox, a
// pinned root or systemd only in the overlay sandbox, ptrace permitted. The error says what
// to do. RunCheck expects a request that passed it.
absl::Status Preflight(const CheckRequest& request);

// The puppet and strace executables: $FSMOVE_PUPPET / $FSMOVE_STRACE if set, else searched
// in the fixed PATH that Puppet runs with (the bare name when not found).
std::string PuppetExecutable();
std::string StraceExecutable();

// Whether `strace` (a path) can trace a process here (ptrace may be refused); why not, and
// what to do.
absl::Status ProbePtrace(const std::string& strace);

}  // namespace fsmove::exec
