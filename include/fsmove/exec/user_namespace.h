// The sandbox's user namespace: which host ids its root and the users of the OS root map to,
// and writing that map for a process that has just unshared CLONE_NEWUSER.
//
// Root inside is never the host's root. Run by root, fsmove maps the sandbox's ids 0..65535
// to an unprivileged host range (root's entry in /etc/subuid and /etc/subgid if it has one,
// else kRootModeIdBase) and writes the maps itself; the pinned root (files owned by uid 0 on
// disk) is shown through an idmapped mount. Run by an ordinary user (rootless), the range is
// the user's subordinate ids, written by newuidmap/newgidmap (Debian's `uidmap`), and the
// roots are built by `mmdebstrap --mode=unshare`, whose files are already owned by that range.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fsmove::exec {

// How many ids the sandbox maps: every uid and gid a Debian root uses (nobody is 65534).
inline constexpr uint32_t kSandboxIdCount = 65536;
// Run by root without an /etc/subuid entry for root: far above the ranges useradd hands out
// (SUB_UID_MIN 100000 .. SUB_UID_MAX 600100000), so no user's subordinate ids collide.
inline constexpr uint32_t kRootModeIdBase = 1000000000;

// A host range [first, first + count) from /etc/subuid or /etc/subgid.
struct IdRange {
  uint32_t first = 0;
  uint32_t count = 0;
};

// The first range of at least `min_count` ids that /etc/subuid-format `text` gives the user
// named `user` or with the numeric id `uid` (both forms are valid there).
std::optional<IdRange> FindSubordinateRange(std::string_view text, std::string_view user, uid_t uid,
                                            uint32_t min_count = kSandboxIdCount);

// The sandbox's mapping: inside 0..count-1 to host uid_first.., gid_first...
struct IdMapping {
  uint32_t uid_first = 0;
  uint32_t gid_first = 0;
  uint32_t count = kSandboxIdCount;
  bool rootless = false;  // written by newuidmap/newgidmap
  // Rootless: the user's own uid and gid, mapped to kSandboxIdCount inside (as mmdebstrap's
  // unshare mode does), so that root inside reads the user's own inputs (their module in a
  // private home directory) through its DAC_OVERRIDE over mapped owners.
  std::optional<uint32_t> own_uid, own_gid;
  // The /proc/PID/uid_map (gid_map) lines: "0 FIRST COUNT\n" (and "COUNT OWN 1\n").
  std::string UidMapLine() const;
  std::string GidMapLine() const;
};

// The mapping for this process: root's (subordinate range or kRootModeIdBase), or the
// calling user's subordinate ranges. Errors say what is missing and how to add it.
absl::StatusOr<IdMapping> SandboxIdMapping();

// Writes `mapping` for `pid` (which has unshared CLONE_NEWUSER and waits): directly when
// root, else through newuidmap and newgidmap. setgroups stays allowed (Puppet and apt call it).
absl::Status WriteIdMaps(pid_t pid, const IdMapping& mapping);

// Runs `work` in a forked child made root of a fresh user namespace with `mapping`, so that
// it may change what the sandbox's users own (rootless, the host user cannot: e.g. remove the
// cgroups systemd made in the sandbox). The child makes no system call of its own after
// `work`: it exits. Errors: the namespace or its maps could not be made, or the child failed.
absl::Status RunInUserNamespace(const IdMapping& mapping, const std::function<void()>& work);

// Whether this kernel lets this process make a user namespace (unshare in a child); why not.
absl::Status ProbeUserNamespace();

}  // namespace fsmove::exec
