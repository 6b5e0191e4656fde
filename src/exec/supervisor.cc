// The supervisor of one sandbox; see supervisor.h.
#include "fsmove/exec/supervisor.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/base/sha256.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/capabilities.h"
#include "fsmove/exec/local_sources.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/seccomp_filter.h"

namespace fsmove::exec {

std::vector<ProcEntry> ListProcesses(const std::string& proc_dir) {
  std::vector<ProcEntry> out;
  DIR* d = opendir(proc_dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    std::string stat = base::ReadFile(fmt::format("{}/{}/stat", proc_dir, pid)).value_or("");
    size_t open_paren = stat.find('('), close_paren = stat.rfind(')');
    if (open_paren == std::string::npos || close_paren == std::string::npos) continue;
    ProcEntry p;
    p.pid = static_cast<pid_t>(pid);
    p.comm = stat.substr(open_paren + 1, close_paren - open_paren - 1);
    // After ") ": state, then ppid.
    std::istringstream rest(stat.substr(close_paren + 1));
    std::string state, skip;
    rest >> state >> p.ppid;
    for (int field = 5; field < 22 && rest >> skip; ++field) {
    }
    rest >> p.start_ticks;
    out.push_back(std::move(p));
  }
  closedir(d);
  return out;
}

// SIGKILL to every descendant of `root` (then `root` itself), twice over: a process forked
// between the listing and the kill is found the second time (the subreaper keeps orphans
// below `root`).
void KillDescendants(pid_t root) {
  for (int pass = 0; pass < 2; ++pass) {
    std::map<pid_t, pid_t> parent_of;
    for (const ProcEntry& p : ListProcesses("/proc")) parent_of[p.pid] = p.ppid;
    for (const auto& [pid, ppid] : parent_of) {
      pid_t up = ppid;
      for (int depth = 0; up > 1 && up != root && depth < 4096; ++depth) {
        auto it = parent_of.find(up);
        up = it == parent_of.end() ? 0 : it->second;
      }
      if (up == root) kill(pid, SIGKILL);
    }
    usleep(20000);
  }
  kill(root, SIGKILL);
}

// Names what the run left running (and is being killed): the first 20, then a count.
void ReportLeftovers(StatusWriter& status, const std::vector<ProcEntry>& left) {
  for (size_t i = 0; i < left.size() && i < 20; ++i) {
    status.Send(status::Note{
        fmt::format("left running at the end (killed): {} {}", left[i].pid, left[i].comm)});
  }
  if (left.size() > 20)
    status.Send(status::Note{fmt::format("... and {} more processes", left.size() - 20)});
}

std::vector<int> ModuleCapabilities() {
  return {CAP_CHOWN,      CAP_DAC_OVERRIDE, CAP_FOWNER,      CAP_FSETID,           CAP_KILL,
          CAP_SETGID,     CAP_SETUID,       CAP_SETPCAP,     CAP_NET_BIND_SERVICE, CAP_NET_RAW,
          CAP_SYS_CHROOT, CAP_MKNOD,        CAP_AUDIT_WRITE, CAP_SETFCAP,          CAP_NET_ADMIN};
}

std::vector<int> InitCapabilities() {
  std::vector<int> caps = ModuleCapabilities();
  caps.push_back(CAP_SYS_ADMIN);
  return caps;
}

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

absl::Status Mount(const std::string& source, const std::string& target, const char* type,
                   unsigned long flags, const std::string& data = "") {
  if (mount(source.c_str(), target.c_str(), type, flags, data.empty() ? nullptr : data.c_str()) !=
      0) {
    return base::ErrnoStatus(fmt::format("mount {} on {}", type ? type : source, target));
  }
  return absl::OkStatus();
}

absl::Status BindReadOnly(const std::string& source, const std::string& target) {
  if (absl::Status st = Mount(source, target, nullptr, MS_BIND | MS_REC); !st.ok()) return st;
  return Mount("", target, nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY);
}

bool UnderFreshMount(const std::string& p) {
  for (std::string_view prefix : {"/tmp", "/run", "/dev", "/proc", "/sys"}) {
    if (p == prefix || (std::string_view(p).starts_with(prefix) && p.size() > prefix.size() &&
                        p[prefix.size()] == '/')) {
      return true;
    }
  }
  return false;
}

absl::Status WriteFile(const std::string& path, std::string_view text, mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return base::ErrnoStatus(fmt::format("write {}", path));
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fchmod(fd, mode) != 0) ok = false;
  close(fd);
  return ok ? absl::OkStatus() : base::ErrnoStatus(fmt::format("write {}", path));
}

// Copies what `in` has left into `out`, `max` bytes at most (a read stops at the chunk that
// reaches it); false when a write fell short.
bool CopyBounded(int in, int out, size_t max) {
  char buf[1 << 16];
  size_t copied = 0;
  for (ssize_t got; copied < max && (got = read(in, buf, sizeof buf)) > 0;) {
    if (write(out, buf, static_cast<size_t>(got)) != got) return false;
    copied += static_cast<size_t>(got);
  }
  return true;
}

int OpenForWriting(const std::string& path, bool append = false) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
}

// The supervisor of one sandbox: PID 1 of its namespaces, or (--sandbox none) a child
// subreaper on the host.
class Supervisor {
 public:
  Supervisor(SandboxSpec spec, SupervisorPhase phase, SupervisorFds fds)
      : spec_(std::move(spec)),
        phase_(phase),
        fds_(std::move(fds)),
        status_(fds_.status),
        done_fd_(fds_.done),
        root_("/"),
        proc_dir_("/proc") {
    // Without systemd in the sandbox, systemctl must work offline (enable/disable edit the
    // links, daemon-reload is ignored), as it did while the sandbox was a chroot, rather than
    // fail to reach a service manager. systemctl reads SYSTEMD_OFFLINE for that.
    if (spec_.mode == SandboxMode::kOverlay && !systemd()) spec_.env.push_back("SYSTEMD_OFFLINE=1");
    io_dir_ = InsideWorkDir(spec_);
  }

  int Run() {
    if (spec_.mode == SandboxMode::kOverlay) {
      status_.Send(status::Phase{"sandbox"});
      absl::Status st = SetUpOverlay();
      if (st.ok()) st = PivotRoot();
      if (st.ok()) st = LockDown();
      if (!st.ok()) {
        status_.Send(
            status::Error{fmt::format("setting up the sandbox: {}", std::string(st.message()))});
        return 2;
      }
      if (systemd() && phase_ == SupervisorPhase::kApply) return BootSystemd();
    }
    return Supervise();
  }

 private:
  bool systemd() const { return spec_.init == "systemd"; }

  int Supervise() {
    const bool compiles = phase_ != SupervisorPhase::kApply && !spec_.compile_argv.empty();
    if (phase_ == SupervisorPhase::kCompile) {
      if (compiles) Compile();
      return 0;
    }
    if (!(compiles ? Compile() : LoadGivenCatalog())) return 0;
    if (spec_.mode == SandboxMode::kOverlay && spec_.prep) PrepareAfterCompile();
    Apply();
    if (!spec_.restore_paths.empty()) RestorePaths();
    for (int k = 2; k <= 1 + spec_.reapplies && Reapply(k); ++k) {
    }
    for (const std::string& path : spec_.probe_paths) {
      status_.Send(status::Probe{ProbePath(path)});
    }
    // Replays (they probe paths) report what they leave running: which services run.
    if (!spec_.probe_paths.empty() || !spec_.restore_paths.empty()) ReportDaemons();
    if (spec_.mode == SandboxMode::kOverlay) {
      ReportLeftovers();
      ReportFullFileSystems();
      Keep();
    }
    if (systemd()) CopyOut(kSystemdLog);
    return 0;
  }

  // --init systemd: this process (PID 1) forks the supervisor, then becomes systemd. The
  // supervisor waits until systemd has booted, runs the check, and hands its exit code to
  // the keeper, which ends PID 1 and with it the namespace.
  int BootSystemd() {
    const char* systemd_path = "/lib/systemd/systemd";
    if (access(systemd_path, X_OK) != 0) {
      status_.Send(status::Error{fmt::format("--init systemd: the root has no {}", systemd_path)});
      return 2;
    }
    // No logins on consoles the sandbox does not have.
    for (const char* unit :
         {"console-getty.service", "getty@.service", "getty.target", "systemd-logind.service"}) {
      std::string mask = std::string("/etc/systemd/system/") + unit;
      unlink(mask.c_str());
      (void)!symlink("/dev/null", mask.c_str());
    }
    pid_t child = fork();
    if (child < 0) {
      status_.Send(status::Error{fmt::format("fork: {}", std::strerror(errno))});
      return 2;
    }
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      prctl(PR_SET_CHILD_SUBREAPER, 1);
      self_ = getpid();
      int code = WaitForSystemd() ? Supervise() : 2;
      unsigned char byte = static_cast<unsigned char>(code);
      if (done_fd_ >= 0) (void)!write(done_fd_, &byte, 1);
      _exit(code);
    }
    // PID 1: systemd, its output in the sandbox's work directory (copied out at the end),
    // nothing else of ours left open.
    int log = OpenForWriting(Inside(kSystemdLog));
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) dup2(null_fd, 0);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    // systemd and its units keep the init set, below strace's (see kTracerOnlyCapabilities).
    (void)LimitBoundingSet(InitCapabilities());
    // Everything else of ours goes at the exec (the status pipe stays until then, to say why
    // the exec failed).
    close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
    std::vector<std::string> env = {"container=fsmove", fmt::format("PATH={}", kSafePath),
                                    "LANG=C.UTF-8"};
    std::vector<char*> envp;
    envp.reserve(env.size() + 1);
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    char* argv[] = {const_cast<char*>(systemd_path), const_cast<char*>("--log-target=console"),
                    const_cast<char*>("--show-status=no"), nullptr};
    execve(systemd_path, argv, envp.data());
    status_.Send(status::Error{
        fmt::format("--init systemd: cannot run {}: {}", systemd_path, std::strerror(errno))});
    _exit(127);
  }

  // Until `systemctl is-system-running --wait` says running (or degraded: a unit of the root
  // failed, which the module does not care about); at most a minute.
  bool WaitForSystemd() {
    status_.Send(status::Phase{"boot"});
    const auto t0 = Clock::now();
    std::string state;
    while (SecondsSince(t0) < 60) {
      auto run = RunCaptured({"timeout", "60", "systemctl", "is-system-running", "--wait"},
                             spec_.env, 4096);
      if (run.ok()) {
        state = run->out;
        while (!state.empty() && (state.back() == '\n' || state.back() == ' ')) state.pop_back();
        if (state == "running" || state == "degraded") break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (state != "running" && state != "degraded") {
      status_.Send(status::Error{fmt::format(
          "systemd did not boot within 60 s (state '{}'; its log: {})", state, kSystemdLog)});
      return false;
    }
    status_.Send(
        status::Note{fmt::format("systemd booted ({}) in {:.1f} s", state, SecondsSince(t0))});
    return true;
  }
  // A file of the sandbox's own work directory (kSandboxWorkDir once pivoted; without the
  // sandbox, the host work directory's in/): what Puppet reads and writes.
  std::string Inside(const std::string& name) const { return io_dir_ + "/" + name; }

  // Copies the sandbox's file `name` (a log) to the out directory, as an untrusted file: no
  // link followed, only a regular file, at most kMaxOutBytes.
  void CopyOut(const std::string& name, const std::string& out_name = "") {
    if (fds_.out_dir < 0) return;
    int in = open(Inside(name).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (in < 0) return;
    struct stat st;
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
      close(in);
      return;
    }
    int out = openat(fds_.out_dir, (out_name.empty() ? name : out_name).c_str(),
                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out >= 0) {
      CopyBounded(in, out, kMaxOutBytes);
      close(out);
    }
    close(in);
  }

  // Writes `text` to the out directory's `name`.
  void WriteOut(const std::string& name, std::string_view text) {
    if (fds_.out_dir < 0) return;
    int out = openat(fds_.out_dir, name.c_str(),
                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) return;
    for (size_t at = 0; at < text.size();) {
      ssize_t put = write(out, text.data() + at, text.size() - at);
      if (put <= 0) break;
      at += static_cast<size_t>(put);
    }
    close(out);
  }

  static std::string FdPath(int fd) { return fmt::format("/proc/self/fd/{}", fd); }

  // The overlay of the OS root at WS/merged, over WS/upper, mounted in the sandbox's own
  // user namespace (overlay_mount.h's kSandbox).
  absl::Status MountOwnOverlay(const std::string& ws) {
    for (const char* d : {"lower", "upper", "work"}) mkdir((ws + "/" + d).c_str(), 0755);
    // overlayfs in a user namespace creates no redirects: renaming a directory of the OS root
    // fails with EXDEV (mv copies instead). It marks a directory removed and made again in a
    // user.* extended attribute, which tmpfs keeps only from Linux 6.6 on: before, that mkdir
    // fails. Said, not hidden; run as root, the keeper mounts the overlay instead.
    if (setxattr((ws + "/upper").c_str(), "user.fsmove.probe", "1", 1, 0) != 0) {
      status_.Send(status::Note{fmt::format(
          "this kernel's tmpfs keeps no user extended attributes ({}; Linux 6.6 or later does): "
          "in this sandbox, a directory of the OS root cannot be removed and made again",
          std::strerror(errno))});
    } else {
      removexattr((ws + "/upper").c_str(), "user.fsmove.probe");
    }
    if (absl::Status st = Mount(FdPath(fds_.lower), ws + "/lower", nullptr, MS_BIND); !st.ok()) {
      return st;
    }
    return Mount(
        "fsmove-root", root_, "overlay", 0,
        fmt::format("lowerdir={0}/lower,upperdir={0}/upper,workdir={0}/work,userxattr", ws));
  }

  // The sandbox's file systems, made in its own mount namespace (owned by its user
  // namespace, so nothing here reaches the host's mount table or the host's files): a tmpfs
  // for the overlay's upper layer, the overlay of the OS root, fresh /proc, /sys, /run, /tmp,
  // a private /dev, the inputs bound read-only, and the sandbox's work directory.
  absl::Status SetUpOverlay() {
    // Every tmpfs: owned by the sandbox's root, sized; the memory limit covers their pages.
    const std::string owner = "uid=0,gid=0";
    // A scratch place no host path leads to from here: the host's /tmp, covered in this mount
    // namespace only (the inputs and the lower layer are held by descriptors).
    const std::string ws = "/tmp";
    if (absl::Status st =
            Mount("fsmove-sandbox", ws, "tmpfs", MS_NOSUID, "mode=0755,size=75%," + owner);
        !st.ok()) {
      return st;
    }
    root_ = ws + "/merged";
    mkdir(root_.c_str(), 0755);
    if (fds_.merged >= 0) {
      // The keeper mounted the overlay (overlay_mount.h): its merged tree becomes the root.
      if (absl::Status st = Mount(FdPath(fds_.merged), root_, nullptr, MS_BIND); !st.ok()) {
        return st;
      }
    } else if (absl::Status st = MountOwnOverlay(ws); !st.ok()) {
      return st;
    }
    proc_dir_ = root_ + "/proc";
    struct Step {
      std::string source, target;
      const char* type;
      unsigned long flags;
      std::string data;
    };
    const std::vector<Step> steps = {
        {"proc", root_ + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, ""},  // this PID ns
        {"run", root_ + "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=25%," + owner},
        {"tmp", root_ + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=25%," + owner},
    };
    for (const Step& s : steps) {
      if (absl::Status st = Mount(s.source, s.target, s.type, s.flags, s.data); !st.ok()) return st;
    }
    // A fresh sysfs, read-only as a whole: the host's cgroup tree and the other file systems
    // mounted under the host's /sys are not there. (The kernel lets a user namespace mount
    // one for the network namespace it owns.)
    if (absl::Status st =
            Mount("sysfs", root_ + "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC);
        !st.ok()) {
      return st;
    }
    // systemd's cgroup tree: a pure cgroup2 whose root is the sandbox's own cgroup (this
    // process's cgroup namespace), writable, on the read-only /sys.
    if (systemd() && phase_ == SupervisorPhase::kApply) {
      if (absl::Status st = Mount("cgroup2", root_ + "/sys/fs/cgroup", "cgroup2",
                                  MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
          !st.ok()) {
        return st;
      }
    }
    // The kernel's knobs stay as they are: read-only, as container runtimes make them. (In
    // the sandbox's user namespace the host's knobs are not writable anyway: they belong to
    // the host's root.)
    for (const char* knob :
         {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/acpi"}) {
      std::string target = root_ + knob;
      if (access(target.c_str(), F_OK) != 0) continue;
      if (absl::Status st = BindReadOnly(target, target); !st.ok()) return st;
    }
    if (absl::Status st = SetUpDevices(); !st.ok()) return st;
    mkdir((root_ + "/run/lock").c_str(), 01777);
    chmod((root_ + "/run/lock").c_str(), 01777);
    if (absl::Status st = SetUpWorkDir(); !st.ok()) return st;
    // The inputs (module directories, manifests), read-only where Puppet finds them.
    for (const auto& [path, fd] : fds_.inputs) {
      struct stat st;
      if (fstat(fd, &st) != 0) continue;
      std::error_code ec;
      std::string target = root_ + path;
      if (S_ISDIR(st.st_mode)) {
        fs::create_directories(target, ec);
      } else {
        fs::create_directories(fs::path(target).parent_path(), ec);
        close(open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
      }
      if (absl::Status b = BindReadOnly(FdPath(fd), target); !b.ok()) return b;
    }
    // apt needs DNS; a resolv.conf symlink into the (now empty) /run would dangle.
    std::string resolv = root_ + "/etc/resolv.conf";
    unlink(resolv.c_str());
    // The host's resolvers, unless they are on its loopback (a local stub resolver), which the
    // sandbox's own network cannot reach: then slirp4netns's DNS forwarder.
    std::string resolvers = base::ReadFile("/etc/resolv.conf").value_or("");
    if (resolvers.find("nameserver 127.") != std::string::npos ||
        resolvers.find("nameserver ::1") != std::string::npos || resolvers.empty()) {
      resolvers = "# fsmove sandbox: slirp4netns's DNS forwarder\nnameserver 10.0.2.3\n";
    }
    if (absl::Status st = WriteFile(resolv, resolvers, 0644); !st.ok()) return st;
    return SetPolicyRc();
  }

  // The sandbox's work directory (kSandboxWorkDir, on its own /run): the manifest and module
  // links from the host's in/ (copied: nothing of the host's disk is writable here), the
  // graph directory, and the trace FIFO bound from the host for strace alone.
  absl::Status SetUpWorkDir() {
    const std::string dir = root_ + kSandboxWorkDir;
    mkdir(dir.c_str(), 0755);
    mkdir((dir + "/" + kGraphDir).c_str(), 0755);
    if (fds_.in_dir >= 0) {
      if (auto text = base::ReadUntrustedFile(fds_.in_dir, kManifestFile, "the manifest",
                                              catalog::kMaxCatalogBytes);
          text.ok()) {
        if (absl::Status st = WriteFile(dir + "/" + kManifestFile, *text, 0644); !st.ok()) {
          return st;
        }
      }
      int links =
          openat(fds_.in_dir, kModuleLinks, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (links >= 0) {
        mkdir((dir + "/" + kModuleLinks).c_str(), 0755);
        if (DIR* d = fdopendir(links)) {
          while (dirent* e = readdir(d)) {
            char target[4096];
            ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
            if (n <= 0) continue;
            target[n] = '\0';
            (void)!symlink(target, (dir + "/" + kModuleLinks + "/" + e->d_name).c_str());
          }
          closedir(d);
        } else {
          close(links);
        }
      }
    }
    if (fds_.trace_fifo >= 0 && phase_ != SupervisorPhase::kCompile) {
      const std::string fifo = dir + "/" + kTraceFifo;
      close(open(fifo.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
      if (absl::Status st = Mount(FdPath(fds_.trace_fifo), fifo, nullptr, MS_BIND); !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  }

  // The overlay becomes the root of the namespace and the host's root is detached: nothing in
  // the sandbox (this process included) can reach the host's files any more, by `..` out of
  // a chroot, /proc/1/root or a mount namespace it enters. For --keep-sandbox, the overlay's
  // upper layer stays reachable (bound inside); the directory it is copied to is bound only
  // at the end (Keep).
  absl::Status PivotRoot() {
    if (!spec_.keep_dir.empty()) {
      mkdir((root_ + kKeepUpperDir).c_str(), 0700);
      const std::string upper = fds_.upper >= 0 ? FdPath(fds_.upper) : "/tmp/upper";
      if (absl::Status st = Mount(upper, root_ + kKeepUpperDir, nullptr, MS_BIND); !st.ok())
        return st;
    }
    const std::string old_root = root_ + "/.fsmove-old-root";
    mkdir(old_root.c_str(), 0700);
    if (syscall(SYS_pivot_root, root_.c_str(), old_root.c_str()) != 0) {
      return base::ErrnoStatus(fmt::format("pivot_root to {}", root_));
    }
    if (chdir("/") != 0) return base::ErrnoStatus("chdir / after pivot_root");
    if (umount2("/.fsmove-old-root", MNT_DETACH) != 0)
      return base::ErrnoStatus("detaching the old root");
    rmdir("/.fsmove-old-root");
    root_ = "/";
    proc_dir_ = "/proc";
    io_dir_ = kSandboxWorkDir;
    return absl::OkStatus();
  }

  // Capabilities strace keeps and what it traces does not. The kernel lets a process reach
  // another's descriptors through /proc/PID/fd (and attach to it) without CAP_SYS_PTRACE only
  // when it holds every capability the other holds (cap_ptrace_access_check): with these
  // three fewer, no process of the module can open strace's trace FIFO that way, nor write
  // lines of its own into the analysis. None of them is anything a Puppet run uses.
  static constexpr int kTracerOnlyCapabilities[] = {CAP_BPF, CAP_PERFMON, CAP_CHECKPOINT_RESTORE};
  static constexpr const char* kTracerOnlyBoundingSet = "-bpf,-perfmon,-checkpoint_restore";

  // The bounding set strace runs with: what it traces holds, and kTracerOnlyCapabilities.
  std::vector<int> TracerCapabilities() const {
    std::vector<int> caps = systemd() ? InitCapabilities() : ModuleCapabilities();
    caps.insert(caps.end(), std::begin(kTracerOnlyCapabilities), std::end(kTracerOnlyCapabilities));
    return caps;
  }

  // Before anything of the module runs: this process is not dumpable (nothing in the sandbox
  // can look into it through /proc/1: root, fd, ns), and it and all it starts run with
  // no_new_privs and the seccomp filter (seccomp_filter.h). Each program it starts gets its
  // own bounding set (ModuleCapabilities, TracerCapabilities, InitCapabilities).
  absl::Status LockDown() {
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return base::ErrnoStatus("prctl(PR_SET_DUMPABLE)");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
      return base::ErrnoStatus("prctl(PR_SET_NO_NEW_PRIVS)");
    return InstallSandboxSeccomp();
  }

  // A private /dev with only the harmless devices (no disks, no host terminals), bound from
  // the host's (a user namespace cannot make device nodes), its own pseudo-terminals and
  // shared memory.
  absl::Status SetUpDevices() {
    const std::string dev = root_ + "/dev";
    if (absl::Status st = Mount("fsmove-dev", dev, "tmpfs", MS_NOSUID | MS_NOEXEC,
                                "mode=0755,size=64k,uid=0,gid=0");
        !st.ok()) {
      return st;
    }
    for (const char* name : {"null", "zero", "full", "random", "urandom", "tty"}) {
      const std::string path = dev + "/" + name;
      close(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666));
      if (absl::Status st = Mount(std::string("/dev/") + name, path, nullptr, MS_BIND); !st.ok())
        return st;
    }
    for (const char* d : {"/pts", "/shm", "/mqueue"}) mkdir((dev + d).c_str(), 0755);
    if (absl::Status st = Mount("devpts", dev + "/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                                "newinstance,ptmxmode=0666,mode=0620,gid=5");
        !st.ok()) {
      return st;
    }
    if (absl::Status st = Mount("shm", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV,
                                "mode=1777,size=25%,uid=0,gid=0");
        !st.ok()) {
      return st;
    }
    struct Link {
      const char* target;
      const char* name;
    };
    for (const Link& l :
         {Link{"pts/ptmx", "ptmx"}, Link{"/proc/self/fd", "fd"}, Link{"/proc/self/fd/0", "stdin"},
          Link{"/proc/self/fd/1", "stdout"}, Link{"/proc/self/fd/2", "stderr"}}) {
      if (symlink(l.target, (dev + "/" + l.name).c_str()) != 0) {
        return base::ErrnoStatus(fmt::format("symlink {}/{}", dev, l.name));
      }
    }
    return absl::OkStatus();
  }

  // Service starts by maintainer scripts go through invoke-rc.d, which asks policy-rc.d. In a
  // chroot, without a policy, invoke-rc.d learns no runlevel and starts nothing; Debian's
  // container images ship one that denies everything. Service resources are not affected.
  absl::Status SetPolicyRc() {
    std::string policy = root_ + "/usr/sbin/policy-rc.d";
    if (spec_.policy_rc == "allow") {
      unlink(policy.c_str());
      return WriteFile(
          policy, "#!/bin/sh\n# fsmove sandbox: allow every init script action\nexit 0\n", 0755);
    }
    if (spec_.policy_rc == "deny") {
      if (access(policy.c_str(), F_OK) == 0) return absl::OkStatus();
      return WriteFile(
          policy, "#!/bin/sh\n# fsmove sandbox: deny every init script action\nexit 101\n", 0755);
    }
    unlink(policy.c_str());
    return absl::OkStatus();
  }

  // How everything the sandbox runs starts: in its root, at /, with Puppet's environment.
  // Module code in the sandbox keeps ModuleCapabilities only.
  SpawnOptions InSandbox(int out_fd, int err_fd) const {
    SpawnOptions o;
    o.root = root_ == "/" ? "" : root_;
    o.cwd = "/";
    o.env = spec_.env;
    o.stdout_fd = out_fd;
    o.stderr_fd = err_fd;
    if (spec_.mode == SandboxMode::kOverlay) o.bounding_set = ModuleCapabilities();
    return o;
  }

  // Runs argv to its end (inside the sandbox's root), reaping every orphan meanwhile.
  int RunToEnd(const std::vector<std::string>& argv, int out_fd, int err_fd) {
    auto pid = Spawn(argv, InSandbox(out_fd, err_fd));
    if (!pid.ok()) {
      status_.Send(status::Note{std::string(pid.status().message())});
      return 127 << 8;
    }
    return WaitReaping(*pid);
  }

  // Waits for `pid`; other children (orphans reparented to us) are reaped on the way, and
  // strace's own end is remembered.
  int WaitReaping(pid_t pid) {
    for (;;) {
      int status = 0;
      pid_t r = waitpid(-1, &status, 0);
      if (r < 0) {
        if (errno == EINTR) continue;
        return 255 << 8;  // ECHILD: it is gone already
      }
      if (r == strace_pid_ && !strace_reaped_) {
        strace_reaped_ = true;
        strace_status_ = status;
      }
      if (r == pid) return status;
    }
  }

  void ReapAvailable() {
    int status;
    pid_t r;
    while ((r = waitpid(-1, &status, WNOHANG)) > 0) {
      if (r == strace_pid_ && !strace_reaped_) {
        strace_reaped_ = true;
        strace_status_ = status;
      }
    }
  }

  void PrepareAfterCompile() {
    // Keep multi-megabyte binary reads out of the trace (untraced preparation):
    // - container images disable apt's binary cache (docker-clean), so every apt run would
    //   re-read the package lists (~130 MB of escaped trace each): re-enable and build it;
    // - man-db's dpkg trigger re-indexes every man page (~200 MB of trace): turn it off;
    // - without package lists (images ship none) a Package resource cannot install: fetch them.
    status_.Send(status::Phase{"prep"});
    std::string docker_clean = root_ + "/etc/apt/apt.conf.d/docker-clean";
    if (unlink(docker_clean.c_str()) == 0)
      status_.Send(status::Note{"prep: removed docker-clean apt config"});
    std::string man_db = root_ + "/var/lib/man-db/auto-update";
    if (unlink(man_db.c_str()) == 0) status_.Send(status::Note{"prep: man-db auto-update off"});
    int log = OpenForWriting(Inside(kPrepLog), /*append=*/true);
    if (catalog_has_packages_) {
      bool lists = false;
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(root_ + "/var/lib/apt/lists", ec)) {
        if (e.path().filename().string().find("_Packages") != std::string::npos) lists = true;
      }
      if (!lists) {
        int st = RunToEnd({"apt-get", "update", "-qq"}, log, log);
        status_.Send(status::Note{
            fmt::format("prep: no apt package lists; apt-get update: {}", DescribeWaitStatus(st))});
      }
    }
    int st = RunToEnd({"apt-cache", "gencaches"}, log, log);
    if (st != 0)
      status_.Send(
          status::Note{fmt::format("prep: apt-cache gencaches: {}", DescribeWaitStatus(st))});
    if (log >= 0) close(log);
    CopyOut(kPrepLog);
  }

  // `puppet catalog find`: the catalog's JSON (empty when there is none), its exit code and
  // time. Log lines Puppet prints before the JSON document go to `log_name` (appended).
  struct Compiled {
    int code = 1;
    double seconds = 0;
    std::string json;
  };
  Compiled RunCompile(const std::string& log_name, bool append) {
    Compiled c;
    int raw = OpenForWriting(Inside("catalog.raw"));
    int log = OpenForWriting(Inside(log_name), append);
    auto t0 = Clock::now();
    int st = RunToEnd(spec_.compile_argv, raw, log);
    c.seconds = SecondsSince(t0);
    if (raw >= 0) close(raw);
    if (log >= 0) close(log);
    c.code = ShellExitCode(st);
    std::string text =
        base::ReadFile(Inside("catalog.raw"), "", catalog::kMaxCatalogBytes).value_or("");
    unlink(Inside("catalog.raw").c_str());
    size_t at = 0;
    bool found = false;
    while (at < text.size()) {
      size_t first = text.find_first_not_of(" \t", at);
      if (first != std::string::npos && first < text.size() && text[first] == '{') {
        found = true;
        break;
      }
      size_t nl = text.find('\n', at);
      at = nl == std::string::npos ? text.size() : nl + 1;
    }
    if (at > 0) {
      int l = OpenForWriting(Inside(log_name), /*append=*/true);
      if (l >= 0) {
        ssize_t ignored = write(l, text.data(), at);
        (void)ignored;
        close(l);
      }
    }
    if (found) c.json = text.substr(at);
    if (c.code == 0 && !found) c.code = 1;
    return c;
  }

  bool Compile() {
    status_.Send(status::Phase{"compile"});
    Compiled c = RunCompile(kCompileLog, /*append=*/false);
    CopyOut(kCompileLog);
    if (!c.json.empty()) {
      catalog_text_ = std::move(c.json);
      // The apply sandbox's copy first, then the executor's, which it takes on `Compiled`.
      if (phase_ == SupervisorPhase::kCompile) WriteOut(kCompiledForApplyFile, catalog_text_);
      WriteOut(kCatalogFile, catalog_text_);
      NoteCatalogPackages();
    }
    status_.Send(status::Compiled{c.code, c.seconds});
    return c.code == 0;
  }

  void NoteCatalogPackages() {
    catalog_has_packages_ = catalog_text_.find("\"type\":\"Package\"") != std::string::npos ||
                            catalog_text_.find("\"type\": \"Package\"") != std::string::npos;
  }

  // The apply sandbox's catalog: the one the compile sandbox left in the out directory, or a
  // replay's, which the executor put in the in directory (said like a compiled one).
  bool LoadGivenCatalog() {
    const bool replay = spec_.compile_argv.empty();
    if (replay) status_.Send(status::Phase{"compile"});
    absl::StatusOr<std::string> text =
        replay ? base::ReadUntrustedFile(fds_.in_dir, kCatalogFile, "the catalog to replay",
                                         catalog::kMaxCatalogBytes)
               : base::ReadUntrustedFile(fds_.out_dir, kCompiledForApplyFile,
                                         "the compiled catalog", catalog::kMaxCatalogBytes);
    if (!replay && fds_.out_dir >= 0) unlinkat(fds_.out_dir, kCompiledForApplyFile, 0);
    catalog_text_ = text.ok() ? std::move(*text) : std::string();
    const bool found = !catalog_text_.empty();
    if (found) {
      NoteCatalogPackages();
      if (replay) WriteOut(kCatalogFile, catalog_text_);
    } else if (replay) {
      WriteOut(kCompileLog, "Error: the catalog to replay is missing or empty\n");
    } else {
      status_.Send(status::Error{"the apply sandbox found no compiled catalog"});
    }
    if (replay) status_.Send(status::Compiled{found ? 0 : 1, 0.0});
    return found;
  }

  // strace -D execs Puppet in the process we started and traces it from a grandchild, which
  // is reparented to us (we are PID 1 or a subreaper).
  // `puppet` is the process we started: it is called strace too until it execs Puppet.
  pid_t FindStrace() {
    for (const ProcEntry& p : ListProcesses(proc_dir_)) {
      if (p.ppid == self_ && p.pid != puppet_pid_ && p.comm == "strace") return p.pid;
    }
    return 0;
  }

  // Puppet applies its own copy of the compiled catalog (the executor took the compiled one).
  // `puppet apply --catalog` cannot serve puppet:///modules/ sources (its environment is a
  // remote one): in the copy they name the modules' files (see local_sources.h).
  void WriteApplyCatalog(std::vector<std::string>* apply_argv) {
    const std::string original = InsideWorkDir(spec_) + "/" + kCatalogFile;
    for (std::string& arg : *apply_argv) {
      if (arg == original) arg = InsideWorkDir(spec_) + "/" + kApplyCatalogFile;
    }
    std::vector<std::string> modulepath;
    for (size_t i = 0; i + 1 < apply_argv->size(); ++i) {
      if ((*apply_argv)[i] != "--modulepath") continue;
      std::stringstream parts((*apply_argv)[i + 1]);
      for (std::string p; std::getline(parts, p, ':');) modulepath.push_back(p);
    }
    // Our root is the sandbox's (pivoted), so its paths are the ones Puppet will see.
    auto exists = [](const std::string& path) {
      struct stat st;
      return stat(path.c_str(), &st) == 0;
    };
    absl::StatusOr<LocalizedSources> localized;
    if (catalog_text_.find("puppet://") != std::string::npos) {
      localized = LocalizePuppetSources(catalog_text_, modulepath, exists);
    }
    bool served = localized.ok() && localized->rewritten > 0;
    (void)WriteFile(Inside(kApplyCatalogFile), served ? localized->catalog_json : catalog_text_,
                    0644);
    if (!served) return;
    status_.Send(status::Note{
        fmt::format("apply: {} puppet:/// source{} served from the modulepath{}",
                    localized->rewritten, localized->rewritten == 1 ? "" : "s",
                    localized->unresolved.empty()
                        ? std::string()
                        : fmt::format(" ({} not found there)", localized->unresolved.size()))});
  }

  void Apply() {
    status_.Send(status::Phase{"apply"});
    int log = OpenForWriting(Inside(kPuppetLog));
    std::vector<std::string> apply_argv = spec_.apply_argv;
    WriteApplyCatalog(&apply_argv);
    std::vector<std::string> argv = spec_.strace_argv;
    if (!argv.empty() && spec_.mode == SandboxMode::kOverlay) {
      // util-linux's setpriv (in every Debian root) lowers the bounding set of Puppet and all
      // it starts below strace's own (see kTracerOnlyCapabilities).
      if (access("/usr/bin/setpriv", X_OK) == 0) {
        argv.insert(argv.end(), {"/usr/bin/setpriv",
                                 fmt::format("--bounding-set={}", kTracerOnlyBoundingSet), "--"});
      } else {
        status_.Send(
            status::Note{"the root has no /usr/bin/setpriv: root processes of the module can "
                         "reach strace's trace FIFO through /proc"});
      }
    }
    argv.insert(argv.end(), apply_argv.begin(), apply_argv.end());
    applied_argv_ = apply_argv;
    SpawnOptions o = InSandbox(log, log);
    if (!spec_.strace_argv.empty() && spec_.trace_cpu >= 0) o.cpus = {spec_.trace_cpu};
    if (!spec_.strace_argv.empty() && spec_.mode == SandboxMode::kOverlay) {
      o.bounding_set = TracerCapabilities();
    }
    const pid_t catcher = CatchPuppetGraph();
    auto t0 = Clock::now();
    auto pid = Spawn(argv, o);
    if (log >= 0) close(log);
    if (!pid.ok()) {
      if (catcher > 0) kill(catcher, SIGKILL);
      status_.Send(status::Error{std::string(pid.status().message())});
      return;
    }
    puppet_pid_ = *pid;
    for (int i = 0; i < 50 && strace_pid_ == 0 && !spec_.strace_argv.empty(); ++i) {
      strace_pid_ = FindStrace();
      if (strace_pid_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (strace_pid_ != 0) UnlinkTraceFifoOnceOpen();
    int st = WaitReaping(*pid);
    double seconds = SecondsSince(t0);
    std::string strace_end = spec_.strace_argv.empty() ? "none" : EndStrace();
    EndGraphCatcher(catcher);
    CopyOut(kPuppetLog);
    status_.Send(status::Applied{ShellExitCode(st), seconds, strace_end});
  }

  // Puppet writes the graph it applies (--graph: expanded_relationships.dot) before it
  // evaluates the first resource. Its name in the graph directory is a FIFO whose reader, a
  // child of this process (not dumpable, out of reach of ptrace), copies what Puppet writes
  // to the out directory and exits at the end of that first writing: an exec that rewrites
  // the file later writes into nothing the analysis reads.
  pid_t CatchPuppetGraph() {
    const std::string path = Inside(std::string(kGraphDir) + "/" + kExpandedGraphFile);
    unlink(path.c_str());
    if (mkfifo(path.c_str(), 0600) != 0 || fds_.out_dir < 0) return -1;
    pid_t pid = fork();
    if (pid != 0) return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int in = open(path.c_str(), O_RDONLY | O_CLOEXEC);  // until Puppet opens it
    unlink(path.c_str());
    int out = openat(fds_.out_dir, kExpandedGraphFile,
                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (in < 0 || out < 0) _exit(1);
    _exit(CopyBounded(in, out, kMaxOutBytes) ? 0 : 1);
  }

  // Puppet has exited: a catcher still waiting (no graph was written) is ended.
  void EndGraphCatcher(pid_t catcher) {
    if (catcher <= 0) return;
    for (int i = 0; i < 50; ++i) {
      int st;
      if (waitpid(catcher, &st, WNOHANG) == catcher) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(catcher, SIGKILL);
    waitpid(catcher, nullptr, 0);
  }

  // --idempotence: the k-th agent run, untraced, in the same sandbox: the catalog compiled
  // afresh (as an agent does on every run: what the first apply changed is in its facts, and
  // a value computed at compile time, such as the time, changes) and applied, its log going
  // to ReapplyLogName(k). Returns whether it changed or failed a resource (other than a
  // notify, which logs on every run): if not, a further apply would tell nothing more.
  // (`puppet apply --catalog` ignores --detailed-exitcodes: its log says what changed.)
  bool Reapply(int k) {
    if (applied_argv_.empty()) return false;
    status_.Send(status::Phase{status::ReapplyPhase(k)});
    const std::string log_name = ReapplyLogName(k);
    // A replay (no compile_argv) applies the catalog it was given again.
    if (!spec_.compile_argv.empty()) {
      Compiled c = RunCompile(log_name, /*append=*/false);
      if (c.code != 0) {
        status_.Send(
            status::Note{fmt::format("apply {}: the catalog did not compile again (exit code "
                                     "{}; see {} in the work directory)",
                                     k, c.code, log_name)});
        return false;
      }
      catalog_text_ = std::move(c.json);
    } else {
      close(OpenForWriting(Inside(log_name)));
    }
    std::vector<std::string> argv = spec_.apply_argv;
    // The graph the check reads is the traced apply's: a later apply writes none.
    for (size_t i = 0; i < argv.size();) {
      if (argv[i] == "--graph") {
        argv.erase(argv.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (argv[i] == "--graphdir" && i + 1 < argv.size()) {
        argv.erase(argv.begin() + static_cast<std::ptrdiff_t>(i),
                   argv.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      } else {
        ++i;
      }
    }
    WriteApplyCatalog(&argv);
    // Read back through the descriptor Puppet wrote to: the module's code may have replaced
    // the name (with a FIFO, a symlink) meanwhile.
    int log =
        open(Inside(log_name).c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    auto t0 = Clock::now();
    auto pid = Spawn(argv, InSandbox(log, log));
    if (!pid.ok()) {
      if (log >= 0) close(log);
      status_.Send(status::Note{
          fmt::format("apply {} could not start: {}", k, std::string(pid.status().message()))});
      return false;
    }
    const int code = ShellExitCode(WaitReaping(*pid));
    status_.Send(status::Reapplied{k, code, SecondsSince(t0)});
    std::string text;
    constexpr size_t kMaxLog = size_t{64} << 20;
    char buf[1 << 16];
    for (ssize_t got; log >= 0 && text.size() < kMaxLog &&
                      (got = pread(log, buf, sizeof buf, static_cast<off_t>(text.size()))) > 0;) {
      text.append(buf, static_cast<size_t>(got));
    }
    if (log >= 0) close(log);
    WriteOut(log_name, text);
    const ApplyOutcomes outcomes = ParseApplyOutcomes(text);
    for (const auto& [ref, o] : outcomes.resources) {
      if (!ref.starts_with("Notify[") && (o.failed || !o.changes.empty())) return true;
    }
    return false;
  }

  // --confirm of a missing notifier: each path is put back as the OS root had it before the
  // first apply (copied from the overlay's lower layer, or removed when it had none), so
  // that the next apply changes it again. The lower layer is reached through a descriptor
  // opened before pivot_root, and paths resolve inside it (RESOLVE_IN_ROOT).
  void RestorePaths() {
    for (const std::string& path : spec_.restore_paths) {
      std::string what = RestorePath(path);
      status_.Send(status::Note{fmt::format("restored {}: {}", path, what)});
    }
  }

  std::string RestorePath(const std::string& path) {
    struct stat now;
    if (lstat(path.c_str(), &now) == 0 && S_ISDIR(now.st_mode)) return "a directory: left as it is";
    // /tmp, /run, /dev, ... are the sandbox's own, empty before the apply (the lower layer's
    // are not what Puppet saw, and may be the host's): as it was is absent. The work
    // directory (under /run) is fsmove's, never the module's.
    if (UnderFreshMount(path)) {
      if (std::string_view(path).starts_with(kSandboxWorkDir))
        return "fsmove's work directory: left as it is";
      if (unlink(path.c_str()) == 0) return "removed (a fresh file system of the sandbox)";
      return errno == ENOENT ? "absent" : fmt::format("cannot remove: {}", std::strerror(errno));
    }
    if (fds_.lower < 0) return "the OS root is out of reach: left as it is";
    open_how how{};
    how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    const std::string rel = path.substr(path.find_first_not_of('/'));
    int fd = static_cast<int>(syscall(SYS_openat2, fds_.lower, rel.c_str(), &how, sizeof how));
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
      if (unlink(path.c_str()) == 0) return "removed (the OS root has none)";
      return errno == ENOENT ? "absent, as in the OS root"
                             : fmt::format("cannot remove: {}", std::strerror(errno));
    }
    if (fd < 0) return fmt::format("not readable in the OS root: {}", std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      close(fd);
      return "not a regular file in the OS root: left as it is";
    }
    const std::string tmp = path + ".fsmove-restore";
    int out = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) {
      close(fd);
      return fmt::format("cannot write: {}", std::strerror(errno));
    }
    bool ok = CopyBounded(fd, out, SIZE_MAX);
    close(fd);
    ok = ok && fchown(out, st.st_uid, st.st_gid) == 0 && fchmod(out, st.st_mode & 07777) == 0;
    close(out);
    if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
      unlink(tmp.c_str());
      return "cannot put the OS root's copy in place";
    }
    return fmt::format("the OS root's copy ({} bytes)", st.st_size);
  }

  // The processes left running (the daemons the applies started), with their start time
  // (seconds since the epoch): "daemon PID START COMM".
  void ReportDaemons() {
    double boot = 0;
    std::istringstream stat(base::ReadFile(proc_dir_ + "/stat").value_or(""));
    for (std::string line; std::getline(stat, line);) {
      if (line.starts_with("btime ")) boot = std::atof(line.c_str() + 6);
    }
    const long ticks = sysconf(_SC_CLK_TCK);
    for (const ProcEntry& p : ListProcesses(proc_dir_)) {
      if (p.pid == self_ || (systemd() && p.pid == 1) || ticks <= 0) continue;
      status_.Send(
          status::LeftRunning{{p.pid, boot + static_cast<double>(p.start_ticks) / ticks, p.comm}});
    }
  }

  // What a path is at the end of the run, for replays to compare: the sandbox's own view
  // (its root is ours), sent on the status pipe, which code in the sandbox cannot write to.
  static PathState ProbePath(const std::string& path) {
    PathState p;
    p.path = path;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) {
      p.exists = false;
      if (errno != ENOENT) p.error = std::strerror(errno);
      return p;
    }
    p.exists = true;
    p.mode = st.st_mode & 07777;
    p.uid = st.st_uid;
    p.gid = st.st_gid;
    p.mtime = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
    if (S_ISLNK(st.st_mode)) {
      p.type = "symlink";
      std::error_code ec;
      p.target = fs::read_symlink(path, ec).string();
    } else if (S_ISDIR(st.st_mode)) {
      p.type = "directory";
    } else if (S_ISREG(st.st_mode)) {
      p.type = "file";
      p.size = static_cast<uint64_t>(st.st_size);
      // Content by digest; a file larger than the cap is compared by size and mtime only.
      constexpr off_t kMaxHashed = off_t{256} << 20;
      int fd = st.st_size <= kMaxHashed
                   ? open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                   : -1;
      if (fd >= 0) {
        base::Sha256 h;
        char buf[1 << 16];
        ssize_t got;
        while ((got = read(fd, buf, sizeof buf)) > 0)
          h.Update(std::string_view(buf, static_cast<size_t>(got)));
        close(fd);
        p.sha256 = h.FinishHex();
      }
    } else {
      p.type = "other";
    }
    return p;
  }

  // Once strace holds the trace FIFO open, its name goes: code in the sandbox can no longer
  // open it from the work directory to write lines of its own into the analysis.
  void UnlinkTraceFifoOnceOpen() {
    const std::string fifo_inside = InsideWorkDir(spec_) + "/" + kTraceFifo;
    const std::string fds = proc_dir_ + "/" + std::to_string(strace_pid_) + "/fd";
    for (int i = 0; i < 250; ++i) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(fds, ec)) {
        std::error_code rec;
        if (fs::read_symlink(e.path(), rec).string() == fifo_inside) {
          // The host's FIFO was bound there (overlay): unbound, then the placeholder goes.
          umount2(Inside(kTraceFifo).c_str(), MNT_DETACH);
          unlink(Inside(kTraceFifo).c_str());
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    status_.Send(status::Note{"strace was not seen opening the trace FIFO: its name stays"});
  }

  // Puppet has exited. strace ends by itself when nothing else is traced; with daemons still
  // running it is made to detach (SIGINT), and killed if it does not.
  std::string EndStrace() {
    if (strace_pid_ == 0) strace_pid_ = FindStrace();
    if (strace_pid_ == 0) return "exited";
    if (strace_reaped_) {
      bool clean = WIFEXITED(strace_status_) && WEXITSTATUS(strace_status_) == 0;
      return clean ? "exited" : "died:" + Token(DescribeWaitStatus(strace_status_));
    }
    auto wait_for = [&](std::chrono::milliseconds limit) {
      auto until = Clock::now() + limit;
      while (Clock::now() < until) {
        ReapAvailable();
        if (strace_reaped_) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      return false;
    };
    if (wait_for(std::chrono::milliseconds(1000))) return "exited";
    kill(strace_pid_, SIGINT);
    if (wait_for(std::chrono::seconds(30))) return "SIGINT";
    kill(strace_pid_, SIGKILL);
    wait_for(std::chrono::seconds(5));
    return "SIGKILL";
  }

  static std::string Token(std::string s) {
    for (char& c : s) {
      if (c == ' ') c = '_';
    }
    return s;
  }

  void ReportLeftovers() {
    std::vector<ProcEntry> left = ListProcesses(proc_dir_);
    std::erase_if(left,
                  [&](const ProcEntry& p) { return p.pid == self_ || (systemd() && p.pid == 1); });
    exec::ReportLeftovers(status_, left);
  }

  // The sandbox's file systems are tmpfs with size limits (the root's writable layer, /run,
  // /tmp, /dev, /dev/shm): one that is full when the run ends made writes fail with ENOSPC,
  // which the report must say (a resource that failed for it is not a module bug).
  void ReportFullFileSystems() {
    for (const char* dir : {"/", "/run", "/tmp", "/dev", "/dev/shm"}) {
      struct statvfs fs;
      if (statvfs(dir, &fs) != 0 || fs.f_blocks == 0) continue;
      const uint64_t unit = fs.f_frsize != 0 ? fs.f_frsize : fs.f_bsize;
      const uint64_t total = uint64_t{fs.f_blocks} * unit, avail = uint64_t{fs.f_bavail} * unit;
      if (avail > 2 * unit && avail * 100 > total) continue;
      const bool kib = total < (uint64_t{1} << 20);
      status_.Send(status::Limit{fmt::format(
          "the sandbox's {} ({}, {} {}) was full when the run ended: writes into it failed "
          "(ENOSPC)",
          dir, std::string_view(dir) == "/" ? "its writable layer" : "a tmpfs",
          kib ? total >> 10 : total >> 20, kib ? "KiB" : "MiB")});
    }
  }

  // --keep-sandbox: the overlay's upper layer as a tar archive in the out directory (the
  // executor unpacks it into the directory the user named): no host directory is ever
  // writable from the sandbox, and the archive is bounded by the upper layer's tmpfs.
  void Keep() {
    if (spec_.keep_dir.empty() || fds_.out_dir < 0) return;
    int out = openat(fds_.out_dir, kKeepArchive,
                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    int st = RunToEnd({"tar", "--numeric-owner", "-C", kKeepUpperDir, "-cf", "-", "."}, out, -1);
    if (out >= 0) close(out);
    if (st != 0) {
      status_.Send(status::Note{fmt::format("archiving the sandbox's changes for {} failed: {}",
                                            spec_.keep_dir, DescribeWaitStatus(st))});
    }
  }

  SandboxSpec spec_;
  SupervisorPhase phase_;
  SupervisorFds fds_;
  StatusWriter status_;
  int done_fd_ = -1;
  std::string io_dir_;
  std::string root_;
  std::string proc_dir_;
  pid_t self_ = getpid();
  pid_t strace_pid_ = 0;
  pid_t puppet_pid_ = 0;
  bool strace_reaped_ = false;
  int strace_status_ = 0;
  bool catalog_has_packages_ = false;
  std::string catalog_text_;               // as compiled; Puppet applies a copy
  std::vector<std::string> applied_argv_;  // the apply's own arguments (without strace)
};

}  // namespace

int RunSupervisor(SandboxSpec spec, SupervisorPhase phase, SupervisorFds fds) {
  return Supervisor(std::move(spec), phase, std::move(fds)).Run();
}

}  // namespace fsmove::exec
