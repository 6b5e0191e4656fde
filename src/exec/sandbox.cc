// The sandbox keeper: one sandbox for the compile, one for the apply, each in a user
// namespace of its own; see sandbox.h.
#include "fsmove/exec/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/memory_limit.h"
#include "fsmove/exec/overlay_mount.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/sandbox_network.h"
#include "fsmove/exec/status_message.h"
#include "fsmove/exec/supervisor.h"
#include "fsmove/exec/target.h"
#include "fsmove/exec/user_namespace.h"

namespace fsmove::exec {
namespace {

// Says whether `memory`'s limit made the kernel kill processes of `who` ("the sandbox").
void ReportMemoryLimitHits(StatusWriter& status, const MemoryLimit& memory, std::string_view who) {
  const uint64_t hits = memory.TimesHit();
  if (hits == 0 || memory.limit_bytes() == 0) return;
  status.Send(
      status::Limit{fmt::format("{} hit its memory limit ({} MiB): the kernel killed {} process{} "
                                "in it (--memory-limit)",
                                who, memory.limit_bytes() >> 20, hits, hits == 1 ? "" : "es")});
}

// One byte over a pipe, for the steps the keeper and the sandbox's first process take in turn.
bool SendByte(int fd, char byte) {
  while (write(fd, &byte, 1) < 0) {
    if (errno != EINTR) return false;
  }
  return true;
}
char ReceiveByte(int fd) {
  char byte = 0;
  ssize_t got;
  while ((got = read(fd, &byte, 1)) < 0 && errno == EINTR) {
  }
  return got == 1 ? byte : '\0';
}

// An idmapped view of `source` (open as `source_fd`; the lower layer: files owned by uid 0 on disk)
// at `target`, in which the sandbox's user namespace `userns_pid` sees them as its own root's: a
// clone of the one mount (not its submounts), mapped (mount_setattr), and attached in this (the
// keeper's private) mount namespace.
absl::Status IdmappedMount(int source_fd, const std::string& source, const std::string& target,
                           pid_t userns_pid) {
  int ns = open(fmt::format("/proc/{}/ns/user", userns_pid).c_str(), O_RDONLY | O_CLOEXEC);
  if (ns < 0) return base::ErrnoStatus("open the sandbox's user namespace");
  int tree = static_cast<int>(
      syscall(SYS_open_tree, source_fd, "", AT_EMPTY_PATH | OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
  const int e = errno;
  if (tree < 0) {
    close(ns);
    return base::ErrnoStatus(fmt::format("open_tree {}", source), e);
  }
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_IDMAP;
  attr.userns_fd = static_cast<uint64_t>(ns);
  absl::Status st = absl::OkStatus();
  if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0) {
    st = base::ErrnoStatus(fmt::format(
        "an idmapped mount of {} (the kernel or its file system cannot map ids)", source));
  } else if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target.c_str(), MOVE_MOUNT_F_EMPTY_PATH) !=
             0) {
    st = base::ErrnoStatus(fmt::format("move_mount onto {}", target));
  }
  close(tree);
  close(ns);
  return st;
}

// The first process of one sandbox, after unshare(CLONE_NEWUSER): it waits for its id maps,
// makes the other namespaces, opens what the supervisor needs of the host as the host user
// (who can still reach it), becomes the sandbox's root, waits for its network and cgroups,
// then starts PID 1 and waits for it.
[[noreturn]] void SandboxFirstProcess(SandboxSpec spec, SupervisorPhase phase, int status_fd,
                                      int to_keeper, int from_keeper, const std::string& lower_path,
                                      const std::vector<std::string>& staged_inputs,
                                      const std::string& keeper_overlay) {
  StatusWriter status(status_fd);
  auto fail = [&](const std::string& what) {
    status.Send(status::Error{fmt::format("setting up the sandbox: {}", what)});
    _exit(2);
  };
  if (unshare(CLONE_NEWUSER) != 0)
    fail(fmt::format("cannot create a user namespace: {}", std::strerror(errno)));
  SendByte(to_keeper, 'u');
  // For each input, whether the keeper staged an idmapped view of it ('i') or not ('p').
  std::vector<bool> staged(spec.input_paths.size());
  // Whether the keeper mounted the overlay ('k') or the sandbox mounts its own ('s').
  const bool keeper_mounted = ReceiveByte(from_keeper) == 'k';
  for (size_t i = 0; i < staged.size(); ++i) staged[i] = ReceiveByte(from_keeper) == 'i';
  if (ReceiveByte(from_keeper) != 'm') _exit(2);
  if (unshare(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET) != 0)
    fail(fmt::format("cannot create the sandbox's namespaces (unshare): {}", std::strerror(errno)));
  if (mount("", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    fail(fmt::format("mount --make-rprivate /: {}", std::strerror(errno)));
  // As the host user: what the supervisor reaches only through these descriptors.
  SupervisorFds fds;
  fds.status = status_fd;
  auto open_or_fail = [&](const std::string& path, int flags, const char* what) {
    int fd = open(path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) fail(fmt::format("cannot open {} {}: {}", what, path, std::strerror(errno)));
    return fd;
  };
  fds.lower = open_or_fail(lower_path, O_PATH | O_DIRECTORY, "the OS root");
  if (keeper_mounted) {
    fds.merged = open_or_fail(keeper_overlay + "/merged", O_PATH | O_DIRECTORY, "the overlay");
    fds.upper = open_or_fail(keeper_overlay + "/layers/upper", O_PATH | O_DIRECTORY, "the overlay");
  }
  fds.in_dir = open_or_fail(spec.work_dir + "/in", O_RDONLY | O_DIRECTORY, "the work directory");
  fds.out_dir =
      open_or_fail(spec.work_dir + "/" + kOutDir, O_RDONLY | O_DIRECTORY, "the work directory");
  if (phase == SupervisorPhase::kApply && !spec.strace_argv.empty()) {
    fds.trace_fifo = open_or_fail(spec.work_dir + "/in/" + kTraceFifo, O_PATH, "the trace FIFO");
  }
  for (size_t i = 0; i < spec.input_paths.size(); ++i) {
    const std::string& p = spec.input_paths[i];
    const bool moved = i < spec.input_at.size() && !spec.input_at[i].empty();
    int fd = -1;
    if (staged[i]) {
      fd = open(staged_inputs[i].c_str(), O_PATH | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT) continue;
      if (fd < 0) fail(fmt::format("cannot open the input {}: {}", p, std::strerror(errno)));
    } else {
      absl::StatusOr<int> opened = OpenResolvedInput(p);
      if (!opened.ok() && absl::IsNotFound(opened.status())) continue;
      if (!opened.ok()) {
        fail(fmt::format("cannot open the input {} as the user running fsmove: {}", p,
                         std::string(opened.status().message())));
      }
      fd = *opened;
    }
    // A module a modulepath link leads to: still one now (see AddModulepathDir).
    if (moved && !LooksLikeModule(fd))
      fail(
          fmt::format("the input {} is no Puppet module any more: it changed while fsmove ran", p));
    fds.inputs.emplace_back(moved ? spec.input_at[i] : p, fd);
  }
  // Root of the sandbox from here on: every id inside is one of its range.
  if (setgroups(0, nullptr) != 0 || setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0)
    fail(fmt::format("cannot become the sandbox's root: {}", std::strerror(errno)));
  // The change of ids made this process not dumpable, which would keep the keeper's
  // slirp4netns (run by the user, rootless) from its namespaces in /proc. Nothing in the
  // sandbox sees this process (it stays outside the PID namespace); PID 1 is not dumpable.
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  SendByte(to_keeper, 'n');
  if (ReceiveByte(from_keeper) != 'g') _exit(2);
  close(to_keeper);
  close(from_keeper);
  if (unshare(CLONE_NEWPID) != 0) {
    fail(fmt::format("cannot create the sandbox's PID namespace (unshare): {}",
                     std::strerror(errno)));
  }
  // Processes of the sandbox that outlive their parent come back to us, so that we reap them
  // before the cgroups are removed (a zombie still counts as a member).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  int done[2];
  if (pipe2(done, O_CLOEXEC) != 0) fail(fmt::format("pipe: {}", std::strerror(errno)));
  pid_t init = fork();
  if (init < 0) fail(fmt::format("fork: {}", std::strerror(errno)));
  if (init == 0) {
    // PID 1 of the new namespace: when it exits, the kernel kills every process left in it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (unshare(CLONE_NEWCGROUP) != 0) {
      status.Send(status::Error{
          fmt::format("cannot create the sandbox's cgroup namespace: {}", std::strerror(errno))});
      _exit(2);
    }
    close(done[0]);
    fds.done = done[1];
    _exit(RunSupervisor(std::move(spec), phase, std::move(fds)));
  }
  close(done[1]);
  // The run is over when the supervisor hands over its exit code (systemd: then PID 1 is
  // ended here) or when every holder of `done` has gone (PID 1 exited: end of file).
  unsigned char byte = 0;
  ssize_t got;
  while ((got = read(done[0], &byte, 1)) < 0 && errno == EINTR) {
  }
  const int code = got == 1 ? byte : -1;
  if (spec.init == "systemd") kill(init, SIGKILL);
  int st = 0;
  while (waitpid(init, &st, 0) < 0 && errno == EINTR) {
  }
  while (waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {
  }
  _exit(code >= 0 ? code : ShellExitCode(st));
}

// The cgroups one sandbox runs in, those asked for, made before its first process.
struct SandboxCgroups {
  std::optional<MemoryLimit> memory;
  std::optional<PidsLimit> pids;
  std::optional<SystemdCgroup> systemd;
};

// Makes the sandbox's cgroups. A memory or pids limit the host cannot give is a note; a
// systemd cgroup it cannot give is an error, and false: the sandbox cannot run.
bool MakeSandboxCgroups(const SandboxSpec& spec, SupervisorPhase phase, const IdMapping& ids,
                        StatusWriter& status, SandboxCgroups* cgroups) {
  // A memory limit for everything in the sandbox (its tmpfs pages included).
  if (spec.memory_limit > 0) {
    absl::StatusOr<MemoryLimit> made = MemoryLimit::Make(spec.memory_limit, spec.cgroup_name);
    if (made.ok()) {
      cgroups->memory.emplace(std::move(*made));
    } else {
      status.Send(
          status::Note{fmt::format("no memory limit: {}", std::string(made.status().message()))});
    }
  }
  // A limit on all its processes together (RLIMIT_NPROC, in the first process, counts per
  // user).
  if (spec.pids_limit > 0) {
    absl::StatusOr<PidsLimit> made = PidsLimit::Make(
        spec.pids_limit,
        spec.cgroup_name.empty() ? fmt::format("fsmove-{}-pids", getpid()) : spec.cgroup_name);
    if (made.ok()) {
      cgroups->pids.emplace(std::move(*made));
    } else {
      status.Send(
          status::Note{fmt::format("no cgroup pids limit ({}): processes are limited per "
                                   "user only (RLIMIT_NPROC)",
                                   std::string(made.status().message()))});
    }
  }
  // --init systemd: systemd needs a cgroup2 tree of its own, delegated to the sandbox's root.
  const bool boots = BootsSystemd(spec, phase);
  if (boots) {
    const std::string name = spec.cgroup_name.empty() ? fmt::format("fsmove-{}-init", getpid())
                                                      : spec.cgroup_name + "-init";
    // Under cgroup v2, inside the limits' cgroup: every unit systemd starts counts against
    // them (a process is in one cgroup2 cgroup only).
    std::string limits_dir;
    if (cgroups->memory && cgroups->memory->v2()) {
      limits_dir = cgroups->memory->dir();
    } else if (cgroups->pids && cgroups->pids->v2()) {
      limits_dir = cgroups->pids->dir();
    }
    auto make = [&]() -> absl::StatusOr<SystemdCgroup> {
      if (!limits_dir.empty()) return SystemdCgroup::MakeIn(limits_dir, "init");
      if (ids.rootless) {
        return SystemdCgroup::MakeInDelegated(name,
                                              base::ReadFile("/proc/self/mountinfo").value_or(""),
                                              base::ReadFile("/proc/self/cgroup").value_or(""));
      }
      return SystemdCgroup::Make(spec.work_dir + "/cgroup2", name);
    };
    absl::StatusOr<SystemdCgroup> made = make();
    if (!made.ok()) {
      status.Send(
          status::Error{fmt::format("--init systemd: {}", std::string(made.status().message()))});
      return false;
    }
    cgroups->systemd.emplace(std::move(*made));
  }
  return true;
}

// Where one sandbox's mounts go (round: which sandbox of the check), and who mounts its
// overlay.
struct SandboxMounts {
  // The lower layer: the root itself when its files are owned by the sandbox's range (a
  // rootless root), else an idmapped view of it made after the user namespace exists.
  bool idmap = false;
  std::string idmapped;
  std::string lower_path;
  // The inputs (module directories, manifests), idmapped too when run as root: files of the
  // host's users, a private directory of root's, are then readable by the sandbox's root.
  std::string inputs_dir;
  std::vector<std::string> staged_inputs;
  // Run as root, the overlay is mounted here (overlay_mount.h); if that fails and nobody
  // asked for it, the sandbox mounts its own.
  std::string overlay_dir;
  OverlayMount wanted = OverlayMount::kAuto;
  bool keeper_mounts = false;
};

SandboxMounts LayoutSandbox(const SandboxSpec& spec, const IdMapping& ids, int round) {
  SandboxMounts layout;
  layout.idmap = spec.lower_id_base != ids.uid_first;
  layout.idmapped = fmt::format("{}/lower-{}", spec.scratch_dir, round);
  layout.lower_path = layout.idmap ? layout.idmapped : spec.lower_dir;
  layout.inputs_dir = fmt::format("{}/inputs-{}", spec.scratch_dir, round);
  for (size_t i = 0; i < spec.input_paths.size(); ++i) {
    layout.staged_inputs.push_back(fmt::format("{}/{}", layout.inputs_dir, i));
  }
  layout.overlay_dir = fmt::format("{}/overlay-{}", spec.scratch_dir, round);
  layout.wanted = ParseOverlayMount(spec.overlay_mount).value_or(OverlayMount::kAuto);
  layout.keeper_mounts = layout.wanted == OverlayMount::kKeeper ||
                         (layout.wanted == OverlayMount::kAuto && !ids.rootless);
  return layout;
}

// The idmapped view of the lower layer, at layout.idmapped.
absl::Status MountIdmappedLower(const SandboxSpec& spec, const SandboxMounts& layout, pid_t first) {
  mkdir(spec.scratch_dir.c_str(), 0700);
  mkdir(layout.idmapped.c_str(), 0755);
  const int lower = open(spec.lower_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  absl::Status st = lower < 0 ? base::ErrnoStatus(fmt::format("open {}", spec.lower_dir))
                              : IdmappedMount(lower, spec.lower_dir, layout.idmapped, first);
  if (lower >= 0) close(lower);
  return st;
}

// The keeper's overlay, into *overlay. When it cannot be mounted and nobody asked for it, the
// sandbox mounts its own (a note, once per check): no error then, and no overlay.
absl::Status MountKeeperOverlay(const SandboxSpec& spec, const IdMapping& ids, int round,
                                const SandboxMounts& layout, StatusWriter& status,
                                std::optional<KeeperOverlay>* overlay) {
  absl::StatusOr<KeeperOverlay> made =
      KeeperOverlay::Make(layout.overlay_dir, layout.lower_path, ids.uid_first, ids.gid_first);
  if (made.ok()) {
    overlay->emplace(std::move(*made));
  } else if (layout.wanted == OverlayMount::kKeeper) {
    return made.status();
  } else if (round == 1 || spec.compile_argv.empty()) {
    status.Send(status::Note{fmt::format(
        "the sandbox mounts its overlay itself ({}): directories of the OS root cannot be "
        "renamed in it",
        std::string(made.status().message()))});
  }
  return absl::OkStatus();
}

// Idmapped views of the inputs under layout.inputs_dir: (*staged)[i] becomes 'i' for each
// input mapped; one that cannot be is bound as it is (a note). An error: an input that cannot
// be opened as fsmove resolved it.
absl::Status StageIdmappedInputs(const SandboxSpec& spec, const SandboxMounts& layout, pid_t first,
                                 StatusWriter& status, std::vector<char>* staged) {
  mkdir(layout.inputs_dir.c_str(), 0700);
  for (size_t i = 0; i < spec.input_paths.size(); ++i) {
    struct stat in;
    if (stat(spec.input_paths[i].c_str(), &in) != 0) continue;
    if (S_ISDIR(in.st_mode)) {
      mkdir(layout.staged_inputs[i].c_str(), 0755);
    } else {
      close(open(layout.staged_inputs[i].c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    }
    // The input as fsmove resolved it, with no link followed: not what a link put there
    // since (a directory swapped for one is refused).
    absl::StatusOr<int> source = OpenResolvedInput(spec.input_paths[i]);
    if (!source.ok()) return source.status();
    absl::Status mapped =
        IdmappedMount(*source, spec.input_paths[i], layout.staged_inputs[i], first);
    close(*source);
    if (mapped.ok()) {
      (*staged)[i] = 'i';
    } else {
      status.Send(status::Note{fmt::format("{} is bound as it is: {}", spec.input_paths[i],
                                           std::string(mapped.message()))});
    }
  }
  return absl::OkStatus();
}

// The keeper's part once the first process has made its user namespace: its id maps, the
// idmapped lower layer, the keeper's overlay and the idmapped inputs, each step only if the
// ones before went well, and what the first process must know of them sent over `to_sandbox`
// ('k' or 's' for the overlay, then 'i' or 'p' for each input).
absl::Status PrepareUserNamespace(const SandboxSpec& spec, const IdMapping& ids, int round,
                                  const SandboxMounts& layout, pid_t first, int to_sandbox,
                                  StatusWriter& status, std::optional<KeeperOverlay>* overlay) {
  absl::Status st = WriteIdMaps(first, ids);
  if (st.ok() && layout.idmap) st = MountIdmappedLower(spec, layout, first);
  if (st.ok() && layout.keeper_mounts) {
    st = MountKeeperOverlay(spec, ids, round, layout, status, overlay);
  }
  if (st.ok() && !SendByte(to_sandbox, *overlay ? 'k' : 's')) {
    st = absl::InternalError("the sandbox is gone");
  }
  std::vector<char> staged(spec.input_paths.size(), 'p');
  if (st.ok() && !ids.rootless) st = StageIdmappedInputs(spec, layout, first, status, &staged);
  for (char c : staged) {
    if (st.ok() && !SendByte(to_sandbox, c)) st = absl::InternalError("the sandbox is gone");
  }
  return st;
}

// The keeper's part once the first process is the sandbox's root: the sandbox's network
// (*slirp: its process) and cgroups. True when they are in place and the first process was
// told to go on ('g').
bool ConnectSandbox(const IdMapping& ids, const SandboxCgroups& cgroups, pid_t first,
                    int to_sandbox, StatusWriter& status, pid_t* slirp) {
  *slirp = StartUserModeNetwork(status, first);
  bool entered = true;
  if (cgroups.memory && !cgroups.memory->EnterPid(first)) {
    status.Send(status::Note{"could not move the sandbox into its memory limit's cgroup"});
  }
  if (cgroups.pids && !cgroups.pids->EnterPid(first)) {
    status.Send(status::Note{"could not move the sandbox into its pids limit's cgroup"});
  }
  // Rootless, the cgroup is the user's already (MakeInDelegated).
  if (cgroups.systemd &&
      !(cgroups.systemd->EnterPid(first) &&
        (ids.rootless || cgroups.systemd->Delegate(ids.uid_first, ids.gid_first)))) {
    status.Send(status::Error{"--init systemd: could not hand the sandbox its cgroup2 cgroup"});
    entered = false;
  }
  return entered && SendByte(to_sandbox, 'g');
}

// After the sandbox: the keeper's overlay, the idmapped lower layer and the staged inputs
// are unmounted and removed.
void RemoveSandboxMounts(const SandboxMounts& layout, std::optional<KeeperOverlay>* overlay) {
  if (*overlay) (*overlay)->Remove();
  if (layout.idmap) {
    umount2(layout.idmapped.c_str(), MNT_DETACH);
    rmdir(layout.idmapped.c_str());
  }
  for (const std::string& staged : layout.staged_inputs) {
    umount2(staged.c_str(), MNT_DETACH);
    if (rmdir(staged.c_str()) != 0) unlink(staged.c_str());
  }
  rmdir(layout.inputs_dir.c_str());
}

// After the sandbox: what is left in its cgroups is killed, the limits it hit are said, and
// the cgroups are removed.
void RemoveSandboxCgroups(const IdMapping& ids, StatusWriter& status, SandboxCgroups* cgroups) {
  if (cgroups->memory) {
    cgroups->memory->KillAll();
    ReportMemoryLimitHits(status, *cgroups->memory, "the sandbox");
  }
  if (cgroups->pids) {
    if (uint64_t hits = cgroups->pids->TimesHit(); hits > 0) {
      status.Send(status::Limit{fmt::format(
          "the sandbox hit its process limit ({} processes): the kernel refused {} fork{}",
          cgroups->pids->max(), hits, hits == 1 ? "" : "s")});
    }
  }
  // systemd's cgroup first: under cgroup v2 it is inside the limits' one (MakeSandboxCgroups).
  if (cgroups->systemd) {
    // Rootless, the cgroups systemd made below ours are the sandbox root's: removed as it.
    if (ids.rootless) {
      if (absl::Status st = RunInUserNamespace(ids, [&] { cgroups->systemd->Remove(); });
          !st.ok()) {
        status.Send(status::Note{
            fmt::format("systemd's cgroups could not be removed: {}", std::string(st.message()))});
      }
    }
    cgroups->systemd->Remove();
  }
  if (cgroups->memory) cgroups->memory->Remove();
  if (cgroups->pids) cgroups->pids->Remove();
}

// One sandbox, start to end: its cgroups, its first process, its id maps and network.
int RunSandbox(const SandboxSpec& spec, SupervisorPhase phase, const IdMapping& ids, int status_fd,
               int round) {
  StatusWriter status(status_fd);
  SandboxCgroups cgroups;
  if (!MakeSandboxCgroups(spec, phase, ids, status, &cgroups)) return 2;
  const SandboxMounts layout = LayoutSandbox(spec, ids, round);
  std::optional<KeeperOverlay> overlay;
  int to_keeper[2], from_keeper[2];
  if (pipe2(to_keeper, O_CLOEXEC) != 0 || pipe2(from_keeper, O_CLOEXEC) != 0) {
    status.Send(status::Error{fmt::format("pipe: {}", std::strerror(errno))});
    return 2;
  }
  pid_t first = fork();
  if (first < 0) {
    status.Send(status::Error{fmt::format("fork: {}", std::strerror(errno))});
    return 2;
  }
  if (first == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(to_keeper[0]);
    close(from_keeper[1]);
    // Processes per user inside (the kernel counts them per user namespace and refuses a
    // fork past the limit to all but the host's root; the sandbox cannot raise it).
    // With the pids cgroup (all users together) in place, this only backs it up, above it:
    // the cgroup says when its limit was hit.
    if (spec.pids_limit > 0) {
      const rlim_t per_user = cgroups.pids ? rlim_t{spec.pids_limit} + 64 : rlim_t{spec.pids_limit};
      rlimit limit{per_user, per_user};
      setrlimit(RLIMIT_NPROC, &limit);
    }
    SandboxFirstProcess(spec, phase, status_fd, to_keeper[1], from_keeper[0], layout.lower_path,
                        layout.staged_inputs, layout.overlay_dir);
  }
  close(to_keeper[1]);
  close(from_keeper[0]);
  pid_t slirp = -1;
  bool set_up = false;
  if (ReceiveByte(to_keeper[0]) == 'u') {
    absl::Status st =
        PrepareUserNamespace(spec, ids, round, layout, first, from_keeper[1], status, &overlay);
    if (!st.ok()) {
      status.Send(status::Error{
          fmt::format("setting up the sandbox's user namespace: {}", std::string(st.message()))});
    } else if (SendByte(from_keeper[1], 'm') && ReceiveByte(to_keeper[0]) == 'n') {
      set_up = ConnectSandbox(ids, cgroups, first, from_keeper[1], status, &slirp);
    }
  }
  close(to_keeper[0]);
  close(from_keeper[1]);
  if (!set_up) kill(first, SIGKILL);
  int st = 0;
  while (waitpid(first, &st, 0) < 0 && errno == EINTR) {
  }
  if (slirp > 0) {
    kill(slirp, SIGTERM);
    waitpid(slirp, nullptr, 0);
  }
  RemoveSandboxMounts(layout, &overlay);
  RemoveSandboxCgroups(ids, status, &cgroups);
  if (!set_up) return 2;
  return WIFEXITED(st) ? WEXITSTATUS(st) : ShellExitCode(st);
}

}  // namespace

volatile sig_atomic_t g_keeper_ended = 0;

// --sandbox none: no PID namespace ends what the check leaves running, and Puppet's execs
// setsid their children out of any session. The supervisor runs in a cgroup of its own (with
// the memory limit, if any), which every process it starts stays in; whatever ends the check
// kills the cgroup's members: the run's end (here), fsmove's death (its SIGTERM, here), or a
// timeout or Ctrl-C (the executor, which SIGKILLs this keeper: RemoveLeftoverMemoryLimit).
// --pids-limit is a pids cgroup as in the sandbox (v2: the same cgroup), never RLIMIT_NPROC:
// on the host that counts every process of the user's, not the check's.
int RunOnHost(SandboxSpec spec, int status_fd) {
  StatusWriter status(status_fd);
  std::optional<MemoryLimit> group;
  if (absl::StatusOr<MemoryLimit> made = MemoryLimit::Make(spec.memory_limit, spec.cgroup_name);
      made.ok()) {
    group.emplace(std::move(*made));
  } else {
    status.Send(
        status::Note{fmt::format("no cgroup for the check ({}): processes that leave Puppet's "
                                 "session may outlive it",
                                 std::string(made.status().message()))});
  }
  std::optional<PidsLimit> pids;
  if (spec.pids_limit > 0) {
    if (absl::StatusOr<PidsLimit> made = PidsLimit::Make(spec.pids_limit, spec.cgroup_name);
        made.ok()) {
      pids.emplace(std::move(*made));
    } else {
      status.Send(
          status::Note{fmt::format("no cgroup pids limit ({}): the check's processes "
                                   "are not limited",
                                   std::string(made.status().message()))});
    }
  }
  const pid_t executor = getppid();
  struct sigaction on_end {};
  on_end.sa_handler = [](int) { g_keeper_ended = 1; };  // no SA_RESTART: waitpid returns
  sigaction(SIGTERM, &on_end, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != executor) g_keeper_ended = 1;
  pid_t child = g_keeper_ended ? -1 : fork();
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (group && !group->Enter()) status.Send(status::Note{"could not enter the check's cgroup"});
    if (pids && !pids->EnterPid(getpid())) {
      status.Send(status::Note{"could not enter the check's pids limit's cgroup"});
    }
    // Orphans (strace's tracer, daemons' intermediate processes) come back to the supervisor.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    SupervisorFds fds;
    fds.status = status_fd;
    fds.in_dir = open((spec.work_dir + "/in").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    fds.out_dir = open((spec.work_dir + "/" + kOutDir).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _exit(RunSupervisor(std::move(spec), SupervisorPhase::kBoth, std::move(fds)));
  }
  int st = 0;
  bool reaped = false;
  while (child > 0 && !reaped) {
    if (waitpid(child, &st, 0) == child) {
      reaped = true;
    } else if (errno != EINTR) {
      break;
    } else if (g_keeper_ended) {
      KillDescendants(child);  // the tree, whatever cgroup it is in
      if (group) group->KillAll();
    }
  }
  if (group) {
    std::vector<ProcEntry> left;
    for (pid_t pid : group->Members()) {
      std::string comm = base::ReadFile(fmt::format("/proc/{}/comm", pid)).value_or("");
      while (!comm.empty() && comm.back() == '\n') comm.pop_back();
      left.push_back(ProcEntry{pid, 0, std::move(comm)});
    }
    ReportLeftovers(status, left);
    group->KillAll();
    ReportMemoryLimitHits(status, *group, "the check");
    group->Remove();
  }
  if (pids) {
    if (uint64_t hits = pids->TimesHit(); hits > 0) {
      status.Send(status::Limit{fmt::format(
          "the check hit its process limit ({} processes): the kernel refused {} fork{}",
          pids->max(), hits, hits == 1 ? "" : "s")});
    }
    pids->Remove();
  }
  if (g_keeper_ended) return 2;
  return reaped ? (WIFEXITED(st) ? WEXITSTATUS(st) : ShellExitCode(st)) : 2;
}

int SandboxMain(const std::string& spec_file, int status_fd) {
  fcntl(status_fd, F_SETFD, FD_CLOEXEC);  // Puppet and strace must not hold it
  StatusWriter status(status_fd);
  absl::StatusOr<std::string> text = base::ReadFile(spec_file, "the sandbox spec");
  if (!text.ok()) {  // not "not JSON": a missing spec is a missing spec
    status.Send(status::Error{std::string(text.status().message())});
    return 2;
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  absl::StatusOr<SandboxSpec> spec =
      j.is_discarded() ? absl::InvalidArgumentError("not JSON") : SandboxSpecFromJson(j);
  if (!spec.ok()) {
    status.Send(
        status::Error{fmt::format("{}: {}", spec_file, std::string(spec.status().message()))});
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  if (spec->mode == SandboxMode::kNone) return RunOnHost(std::move(*spec), status_fd);
  absl::StatusOr<IdMapping> ids = SandboxIdMapping();
  if (!ids.ok()) {
    status.Send(status::Error{std::string(ids.status().message())});
    return 2;
  }
  if (ids->rootless && spec->lower_id_base != ids->uid_first) {
    status.Send(status::Error{fmt::format(
        "the OS root {} has files owned by host uid {} where the rootless sandbox maps its root "
        "to {}: use a root built by this user (fsmove root build NAME; --root host needs root)",
        spec->lower_dir, spec->lower_id_base, ids->uid_first)});
    return 2;
  }
  // Run as root, the keeper's own mount namespace holds the idmapped lower layers and the
  // cgroup2 mount, out of the host's mount table.
  if (!ids->rootless) {
    if (unshare(CLONE_NEWNS) != 0 || mount("", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      status.Send(status::Error{
          fmt::format("cannot create the keeper's mount namespace: {}", std::strerror(errno))});
      return 2;
    }
  }
  if (spec->overlay_mount == OverlayMountName(OverlayMount::kKeeper) && ids->rootless) {
    status.Send(status::Error{"the keeper can mount the sandbox's overlay only when run as root"});
    return 2;
  }
  // The compile in a sandbox of its own: nothing the module's code did then is in the apply's.
  if (!spec->compile_argv.empty()) {
    int code = RunSandbox(*spec, SupervisorPhase::kCompile, *ids, status_fd, 1);
    if (code != 0) return code;
    struct stat st;
    const std::string compiled = spec->work_dir + "/" + kOutDir + "/" + kCompiledForApplyFile;
    if (stat(compiled.c_str(), &st) != 0) return 0;  // it did not compile: said already
  }
  return RunSandbox(*spec, SupervisorPhase::kApply, *ids, status_fd, 2);
}

}  // namespace fsmove::exec
