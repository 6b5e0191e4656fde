// The capabilities left to what runs in the sandbox: podman's default set, and limiting the
// bounding, ambient and inheritable sets to it with raw prctl/capget/capset (no libcap).
#pragma once

#include <linux/capability.h>

#include <array>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace fsmove::exec {

// podman's default_capabilities (containers.conf): what a container's root keeps.
inline constexpr std::array<int, 11> kContainerDefaultCapabilities = {
    CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FOWNER,  CAP_FSETID, CAP_KILL,      CAP_NET_BIND_SERVICE,
    CAP_SETFCAP, CAP_SETGID,       CAP_SETPCAP, CAP_SETUID, CAP_SYS_CHROOT};

// Drops from the calling process's bounding set every capability up to the kernel's last
// (/proc/sys/kernel/cap_last_cap, else this build's CAP_LAST_CAP) that is not in `keep`,
// clears its ambient set and lowers its inheritable set to what `keep` holds. Its own
// permitted and effective sets stay: the bounding set limits what the programs it execs get.
// Dropping needs CAP_SETPCAP, except for capabilities already out of the bounding set.
absl::Status LimitBoundingSet(std::span<const int> keep);

// "CAP_SYS_ADMIN"; a number this build does not know is written as the number ("41"), as
// libcap does.
std::string CapabilityName(int cap);

// The calling process's bounding set (CapBnd in /proc/self/status), in increasing order;
// empty if it cannot be read.
std::vector<int> BoundingSet();

// The capabilities module code keeps: a container runtime's default set (Docker's: podman's
// and AUDIT_WRITE, NET_RAW, MKNOD) and NET_ADMIN, which in the sandbox's own user and network
// namespaces configures only that network (firewall and interface modules need it). systemd
// as PID 1 (--init systemd) keeps this set too, so the units it starts get no more than
// Puppet's execs: it runs as under podman, whose units' PrivateTmp= and the like are skipped
// ("assuming containerized execution") where they would need SYS_ADMIN.
std::vector<int> ModuleCapabilities();

}  // namespace fsmove::exec
