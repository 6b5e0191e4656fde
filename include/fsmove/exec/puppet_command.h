// The command lines the sandbox runs: strace's, with its kernel-side filter of the traced
// calls, and the node name Puppet compiles for.
#pragma once

#include <string>
#include <vector>

namespace fsmove::exec {

// The strace command line (without the traced command): -f, the kernel-side filter of
// `traced_syscalls` (--seccomp-bpf; readlink is always left out; empty: every call), a string
// limit long enough for any marker.
std::vector<std::string> StraceArguments(const std::string& strace, const std::string& output,
                                         const std::vector<std::string>& traced_syscalls);

// Puppet's node name for compiling: the lower-cased fully qualified host name.
std::string CertName();

}  // namespace fsmove::exec
