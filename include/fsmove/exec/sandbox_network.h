// The sandbox's network: a namespace of its own, with outbound traffic through slirp4netns.
#pragma once

#include <sys/types.h>

#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

// Starts slirp4netns for the network namespace of `target` (a process of the sandbox that
// has unshared CLONE_NEWNET), from the calling process's own (the host's) network, and waits
// (10 s at most) until it has configured the interface: tap0, 10.0.2.100, NAT to the outside,
// a DNS forwarder at 10.0.2.3, and no port of the host's (--disable-host-loopback). It joins
// the target's user namespace to do so (rootless: the namespace is not the host's root's).
// It exits with the caller (--exit-fd). Returns its pid, or -1 when there is none (said on
// `status`): the sandbox then has no network.
pid_t StartUserModeNetwork(StatusWriter& status, pid_t target);

}  // namespace fsmove::exec
