// A memory limit for the whole sandbox (the keeper and everything under it): a cgroup of its
// own, under the one fsmove runs in, in the memory controller of cgroup v2 or v1. Module code
// that allocates without end is then killed inside the sandbox, not the machine's other
// work, and the run's notes say the limit was hit.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

class MemoryLimit {
 public:
  // Makes the cgroup `name` (next to the calling process's) and sets the limit (0: none, the
  // cgroup then only holds the processes together). Errors say why no limit could be set
  // (no memory controller, not delegated, a bad name, ...).
  static absl::StatusOr<MemoryLimit> Make(uint64_t limit_bytes, const std::string& name);
  // Moves the calling process (and so what it forks later) into the cgroup.
  bool Enter() const;
  // Moves process `pid` (and so what it forks later) into the cgroup.
  bool EnterPid(pid_t pid) const;

  MemoryLimit(MemoryLimit&& other) noexcept;
  MemoryLimit& operator=(MemoryLimit&&) = delete;
  ~MemoryLimit();

  // How often the limit made the kernel kill a process (or reclaim at the limit, where the
  // controller counts no kills); 0 if never.
  uint64_t TimesHit() const;
  // The processes in it now, and SIGKILL to each until none is left (how many were sent).
  // Processes cannot leave a cgroup by themselves (setsid, daemonizing): this ends a whole
  // process tree without a PID namespace.
  std::vector<pid_t> Members() const;
  size_t KillAll() const;
  // Removes the cgroup (once it holds no process).
  void Remove();

  const std::string& dir() const { return dir_; }
  bool v2() const { return v2_; }
  uint64_t limit_bytes() const { return limit_bytes_; }

 private:
  MemoryLimit() = default;
  std::string dir_;   // the cgroup made for the sandbox
  std::string name_;  // its last component
  // Opened when made: the sandbox's pivot_root leaves this process no path to the cgroup
  // tree, so the counters are read and the cgroup removed through these.
  int dir_fd_ = -1;
  int parent_fd_ = -1;
  bool v2_ = false;
  uint64_t limit_bytes_ = 0;
};

// The cgroup2 cgroup that --init systemd runs under, delegated to the sandbox's root. Under
// cgroup v2 the limits' cgroup (memory, pids) is one too, of the same hierarchy, and a
// process is in one cgroup of it only: systemd's goes inside the limits' (MakeIn), so that
// every unit it starts counts against them. Otherwise (cgroup v1's controllers, whose
// hierarchies are apart, or no limit) the cgroup2 hierarchy is mounted at `mount_dir` (in the
// caller's private mount namespace) and `name` made beside the caller's own cgroup2 cgroup.
class SystemdCgroup {
 public:
  static absl::StatusOr<SystemdCgroup> Make(const std::string& mount_dir, const std::string& name);
  // `name` inside the cgroup2 cgroup `dir` (a limit's, MemoryLimit::dir or PidsLimit::dir),
  // which holds no process of its own once the sandbox's first one has moved in here.
  static absl::StatusOr<SystemdCgroup> MakeIn(const std::string& dir, const std::string& name);
  // Rootless: no cgroup2 of its own can be mounted, and nothing beside this process's cgroup
  // is the user's. The cgroup is made below this process's own cgroup on the host's cgroup2
  // mount, which must have been delegated to the user (systemd's user@.service, or
  // `systemd-run --user --scope -p Delegate=yes`): its files are then the user's, whom the
  // sandbox maps (uid 65536 inside), so its root may write them; no Delegate() is needed.
  // `mountinfo` and `own_cgroup` are /proc/self/mountinfo's and /proc/self/cgroup's text.
  static absl::StatusOr<SystemdCgroup> MakeInDelegated(const std::string& name,
                                                       std::string_view mountinfo,
                                                       std::string_view own_cgroup);
  SystemdCgroup(SystemdCgroup&& other) noexcept;
  SystemdCgroup& operator=(SystemdCgroup&&) = delete;
  ~SystemdCgroup();
  // Moves process `pid` into it.
  bool EnterPid(pid_t pid) const;
  // Hands it to the user namespace whose root is host uid `uid` (gid `gid`): the cgroup and
  // the files a delegate writes (cgroup.procs, cgroup.subtree_control, cgroup.threads) become
  // theirs, so that systemd inside can make its own cgroups below it.
  bool Delegate(uid_t uid, gid_t gid) const;
  // Once its processes are gone: removes it with whatever systemd made below it, and the
  // cgroup2 mount Make made for it (the next sandbox of the check, the apply's after the
  // compile's, mounts its own there: the same hierarchy cannot be mounted twice at one place).
  void Remove();

 private:
  SystemdCgroup() = default;
  // The sandbox's pivot_root changes this process's root too (same mount namespace): the
  // cgroup is reached through a descriptor of its parent, opened when made.
  int parent_fd_ = -1;
  std::string name_;
  std::string mount_dir_;  // the cgroup2 mount Make made, or "" (MakeIn, MakeInDelegated)
};

// The mount point of the host's cgroup2 hierarchy in /proc/self/mountinfo's text
// (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host), or "" without one.
std::string Cgroup2MountPoint(std::string_view mountinfo);

// A limit on the processes (and threads) of the sandbox, all users together: a cgroup of the
// pids controller (v1's hierarchy, or under cgroup v2 the memory limit's cgroup), next to the
// calling process's. Forks past it fail with EAGAIN, and pids.events counts them.
class PidsLimit {
 public:
  static absl::StatusOr<PidsLimit> Make(uint32_t max, const std::string& name);
  PidsLimit(PidsLimit&& other) noexcept;
  PidsLimit& operator=(PidsLimit&&) = delete;
  ~PidsLimit();
  bool EnterPid(pid_t pid) const;
  // How many forks the limit refused, in its cgroup and below (PidsEventsMax).
  uint64_t TimesHit() const;
  uint32_t max() const { return max_; }
  const std::string& dir() const { return dir_; }
  bool v2() const { return v2_; }
  // Kills what is left in it, then removes it.
  void Remove();

 private:
  PidsLimit() = default;
  std::string dir_;
  bool v2_ = false;
  std::string name_;
  int dir_fd_ = -1;
  int parent_fd_ = -1;
  uint32_t max_ = 0;
};

// How many forks the pids controller refused in the cgroup `dir_fd` (a directory descriptor,
// O_PATH will do) and the cgroups below it. Before Linux 6.13 pids.events' "max" counts at the
// cgroup of the process that forked, not at the one whose pids.max refused it: under cgroup
// v2 with --init systemd the sandbox's processes are in systemd's cgroups below the limit's.
// A kernel that counts at the limit's cgroup (it has pids.events.local) is read there only.
uint64_t PidsEventsMax(int dir_fd);

// Removes the memory cgroup `name` of a sandbox, if it is still there, killing what is still
// in it: a keeper killed (timeout, Ctrl-C) could not remove it itself.
void RemoveLeftoverMemoryLimit(const std::string& name);

// Removes the cgroup2 cgroup `name` a --init systemd sandbox made beside this process's own
// (SystemdCgroup), with the cgroups systemd made inside it, when its keeper was killed. It
// needs this machine's cgroup2 hierarchy mounted (as on cgroup v2 and hybrid hosts).
void RemoveLeftoverSystemdCgroup(const std::string& name);

// The name of the memory cgroup for run `run` of this fsmove process: fsmove-<pid>-<run>.
std::string MemoryCgroupName(unsigned run);

// "512M", "4G", "1073741824" -> bytes; "0" or "none" -> 0 (no limit). Nullopt if malformed.
std::optional<uint64_t> ParseMemorySize(const std::string& text);

// The memory all checks running at once may use together: three quarters of the machine
// (`machine_bytes`, MachineMemory()), so that a runaway module is stopped before the machine
// is; 0 when the machine's memory is unknown.
uint64_t MemoryBudget(uint64_t machine_bytes);
// This machine's physical memory in bytes (0 if unknown).
uint64_t MachineMemory();

// One check's --memory-limit: "auto" is its share of MemoryBudget when `jobs` checks run at
// once (`fsmove scan -j N`: the budget divided by N; a check alone: all of it), anything else
// ParseMemorySize's (each check's own). Nullopt if malformed.
std::optional<uint64_t> MemoryLimitPerCheck(const std::string& text, uint64_t machine_bytes,
                                            int jobs);

}  // namespace fsmove::exec
