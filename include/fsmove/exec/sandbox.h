// The process that runs Puppet for `fsmove check`: compile the catalog, then apply exactly that
// catalog under strace, inside throw-away sandboxes, and report each step on a status pipe.
//
// The executor starts it as a fresh process with a clean environment (`fsmove __sandbox SPEC
// STATUS_FD`), so that it is single-threaded when it makes namespaces and forks, and nothing
// of fsmove's environment (a CI token) is in reach of module code. Layout of a run:
//   fsmove (host) --fork/exec--> keeper (host; root, or the user: rootless)
//     keeper --fork--> C: unshare(user); the keeper writes C's id maps (user_namespace.h)
//       and, run as root, mounts the overlay of the idmapped OS root (overlay_mount.h)
//       C: unshare(mount, UTS, IPC, net, cgroup) + slirp4netns, unshare(pid), fork PID 1
//         PID 1, the supervisor (supervisor.h): the file systems (sandbox_layout.h),
//         pivot_root, seccomp, systemd (systemd_boot.h) with --init systemd,
//         then one phase: `puppet catalog find` (the compile sandbox), or the apply
//         sandbox's strace -D -f ... -- puppet apply --catalog ... (Puppet is its child).
//   The compile and the apply run in two sandboxes, one after the other: nothing the
//   module's code did at compile time (a replaced strace, a planted file) is in the apply's.
//   When the supervisor exits the kernel kills every process left in the PID namespace, and
//   the mount namespace with its tmpfs and overlay disappears with it.
// What comes out goes through the status pipe and the out directory of the work directory
// (kOutDir), which only the supervisor reaches, through a descriptor; nothing of the host's
// disk is writable from inside.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {

enum class SandboxMode { kOverlay, kNone };

struct SandboxSpec {
  SandboxMode mode = SandboxMode::kOverlay;
  std::string work_dir;     // host path: spec, trace FIFO, catalog, logs
  std::string scratch_dir;  // host path: an empty directory for the overlay's tmpfs
  // Host paths Puppet reads (module directories, manifest): those the overlay would not show
  // as they are (another file system, or under the fresh /tmp, /run) are bound read-only.
  std::vector<std::string> input_paths;
  // Where the sandbox shows input_paths[i] when not at that path ("", or none given: there),
  // and the directories shown as read-only ones of their own holding only the inputs bound
  // into them: every modulepath directory (target.h's input_at, linked_module_dirs).
  std::vector<std::string> input_at;
  std::vector<std::string> linked_module_dirs;
  std::string policy_rc = "allow";  // allow | deny | none (service starts by maintainer scripts)
  bool prep = true;                 // untraced apt/man-db preparation inside the sandbox
  // The catalog's packages the root already has: "remove" them in the preparation, so that
  // their install is traced (preinstalled_packages.h), or "keep" them.
  std::string preinstalled = "remove";
  std::string keep_dir;  // copy the overlay's upper layer here at the end
  // Run strace and everything it traces on this one CPU (-1: no pinning). Every ptrace stop
  // hands the CPU from tracee to tracer and back; on one CPU that is a plain context switch,
  // across CPUs a wake-up of the other CPU each time (an inter-processor interrupt, costly in
  // a VM): measured 4.5 s pinned against 14.5 s unpinned for one traced apply.
  int trace_cpu = -1;
  // The whole sandbox's memory (a cgroup of its own); 0: no limit.
  uint64_t memory_limit = 0;
  // The memory cgroup's name, chosen by the executor (it removes a killed keeper's):
  // fsmove-<fsmove's pid>-<run>, so whoever finds one knows which fsmove made it.
  std::string cgroup_name;
  // The overlay's lower layer: "/" (the host) or a pinned OS root (see os_root.h).
  std::string lower_dir = "/";
  // PID 1 of the sandbox: "none" (the supervisor; systemctl works offline) or "systemd"
  // (booted before the apply; strace also follows PID 1, so the daemons it starts are traced).
  std::string init = "none";
  std::vector<std::string> env;
  // Empty: a replay, which applies the catalog the executor put in the work directory.
  std::vector<std::string> compile_argv;  // paths as seen inside the sandbox
  std::vector<std::string> strace_argv;   // ends with "--"
  std::vector<std::string> apply_argv;
  // --idempotence: compile and apply again, untraced, as an agent run would, up to this many
  // times (stopping after an apply that changed nothing), each logged to ReapplyLogName(k)
  // for the k-th apply (2, 3, ...).
  int reapplies = 0;
  // Paths whose final state (type, mode, owner, content digest, mtime) is reported at the end.
  std::vector<std::string> probe_paths;
  // --confirm of missing notifiers: after the first apply, these paths are put back as the
  // OS root had them (or removed), before the next apply. With these or probe_paths, the
  // processes left running are reported at the end ("daemon" lines).
  // A replay of missing notifiers: the second and the refresh catalog are in the work
  // directory (kSecondCatalogFile, kRefreshCatalogFile): see CheckRequest::refresh_catalog.
  bool refresh = false;
  // Processes (and threads) in the sandbox at once: a cgroup's pids.max where there is a pids
  // controller, and RLIMIT_NPROC for each user inside in any case; 0: no limit.
  uint32_t pids_limit = 0;
  // The host uid that owns the lower layer's root-owned files (os_root.h's id_base): 0 for a
  // root built as root or the host, which the sandbox shows through an idmapped mount.
  uint32_t lower_id_base = 0;
  // Who mounts the overlay of the OS root (overlay_mount.h): "auto" (the keeper when run as
  // root, falling back to the sandbox if its mount fails; the sandbox when rootless),
  // "sandbox" or "keeper". The executor takes it from FSMOVE_SANDBOX_OVERLAY (tests).
  std::string overlay_mount = "auto";
  // The sandbox's fully qualified host name (CertName): its /etc/hosts maps it and its first
  // label (the name `hostname` gives, the machine's) to 127.0.1.1. Empty: the machine's name.
  std::string host_name;
};

// The log of the k-th apply (k >= 2) in the work directory.
inline std::string ReapplyLogName(int k) { return "puppet-apply-" + std::to_string(k) + ".log"; }

// Where the work directory appears to Puppet.
std::string InsideWorkDir(const SandboxSpec& spec);
inline constexpr const char* kSandboxWorkDir = "/run/fsmove";
// systemd's own output (--init systemd), drained into the work directory's out/ (systemd_boot.h).
inline constexpr const char* kSystemdLog = "systemd.log";
// The compile sandbox's systemd's output (--init systemd boots it there too), in the work
// directory's out/.
inline constexpr const char* kCompileSystemdLog = "systemd-compile.log";
// With --keep-sandbox: the overlay's upper layer and the host directory it is copied to, as
// the pivoted sandbox sees them.
inline constexpr const char* kKeepUpperDir = "/run/fsmove-upper";
// Processes and threads in the sandbox at once, all users together (its pids cgroup; each user
// inside also gets RLIMIT_NPROC a little above it): podman's default pids limit, far above
// what a Puppet run with its daemons starts, far below what would hurt the machine.
inline constexpr uint32_t kSandboxPidsLimit = 2048;
// The upper layer's archive in the out directory, unpacked by the executor into keep_dir.
inline constexpr const char* kKeepArchive = "keep.tar";
// The prep steps' output (apt-get update, apt-cache gencaches), in the out directory.
inline constexpr const char* kPrepLog = "prep.log";
// The most the supervisor copies of one file into the out directory.
inline constexpr size_t kMaxOutBytes = size_t{1} << 30;
// Puppet's log of one run (--debug: large runs write tens of MB): the most the supervisor
// keeps of it and the executor reads, so that a log cut there is still read.
inline constexpr size_t kMaxPuppetLogBytes = size_t{512} << 20;

nlohmann::json SandboxSpecToJson(const SandboxSpec& spec);
absl::StatusOr<SandboxSpec> SandboxSpecFromJson(const nlohmann::json& j);

// Names of files in the work directory.
// The directory the supervisor writes its outputs into (the compiled catalog, Puppet's logs,
// Puppet's graph): reached from the sandbox only through the supervisor's descriptor.
inline constexpr const char* kOutDir = "out";
inline constexpr const char* kTraceFifo = "trace.fifo";
inline constexpr const char* kCatalogFile = "catalog.json";
// The compiled catalog as the compile sandbox hands it to the apply sandbox (kOutDir).
inline constexpr const char* kCompiledForApplyFile = "catalog-for-apply.json";
// The copy of the compiled catalog Puppet applies (with puppet:/// sources served from the
// modulepath); the compiled one is taken by the executor before the apply.
inline constexpr const char* kApplyCatalogFile = "catalog-apply.json";
// A replay of missing notifiers: the catalog that refreshes their services.
inline constexpr const char* kRefreshCatalogFile = "catalog-refresh.json";
inline constexpr const char* kSecondCatalogFile = "catalog-second.json";
inline constexpr const char* kRefreshLog = "refresh.log";
inline constexpr const char* kCompileLog = "compile.log";
inline constexpr const char* kPuppetLog = "puppet.log";
inline constexpr const char* kManifestFile = "site.pp";
inline constexpr const char* kModuleLinks = "modules";
// The apply's modulepath, a link per directory (0, 1, ...): Puppet's command line, which a
// Service's `ps` pattern status greps, names no directory of the host.
inline constexpr const char* kApplyModulepathLinks = "modulepath";
inline constexpr const char* kGraphDir = "graphs";  // puppet apply --graphdir
// A control repo's environment (control_repo.h): in/environments/production.
inline constexpr const char* kEnvironments = "environments";
inline constexpr const char* kEnvironmentName = "production";
inline constexpr const char* kExpandedGraphFile = "expanded_relationships.dot";

// The supervisor reports each step on the status pipe: the messages of status_message.h
// (phases, compiled, applied, reapplied, probes, daemons left running, notes, limits, errors).

// Entry point of `fsmove __sandbox SPEC_FILE STATUS_FD`; returns the process exit code.
int SandboxMain(const std::string& spec_file, int status_fd);

}  // namespace fsmove::exec
