// Capability sets of what runs in the sandbox: the bounding set a program is started with.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace fsmove::exec {

// Drops every capability not in `keep` from this process's bounding set, its inheritable
// set, and clears its ambient set: what it execs next (as root) holds `keep` at most.
absl::Status LimitBoundingSet(std::span<const int> keep);

// "CAP_SYS_ADMIN" (or "CAP_42").
std::string CapabilityName(int cap);

// This process's bounding set, from /proc/self/status (CapBnd).
std::vector<int> BoundingSet();

}  // namespace fsmove::exec
