// The command lines the sandbox runs: strace's, with its kernel-side filter of the traced
// calls, and the node name Puppet compiles for.
#pragma once

#include <string>
#include <vector>

namespace fsmove::exec {

// The string limit (strace's -s) fsmove traces with: long enough for any marker's title.
inline constexpr int kStraceStringLimit = 65535;

// The strace command line (without the traced command): -f, the kernel-side filter of
// `traced_syscalls` (--seccomp-bpf; readlink is always left out; empty: every call), the
// string limit (-s; the paper's protocol recorded with 300, which can cut a marker's title)
// and, with `timestamps`, -ttt -T -yy: each line's time and its call's duration, and each
// descriptor's path (the parser reads all three; a trace for a person to read, or a test).
std::vector<std::string> StraceArguments(const std::string& strace, const std::string& output,
                                         const std::vector<std::string>& traced_syscalls,
                                         int string_limit = kStraceStringLimit,
                                         bool timestamps = false);

// Puppet's node name for compiling: the lower-cased fully qualified host name.
std::string CertName();

}  // namespace fsmove::exec
