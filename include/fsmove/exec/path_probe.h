// What a path is at the end of a run, for replays to compare (--confirm): its type, owner,
// mode, size, modification time, link target and, for a file up to 256 MiB, the SHA-256 of
// its content. The supervisor probes the sandbox's own view (its root is the sandbox's) and
// sends the states on the status pipe, which code in the sandbox cannot write to.
#pragma once

#include <string>

#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

// Never follows a link at `path` itself; an absent path is `exists = false`, another lstat
// error is said in `error`.
PathState ProbePath(const std::string& path);

}  // namespace fsmove::exec
