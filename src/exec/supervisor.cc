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
#include <sys/wait.h>
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
#include "fsmove/base/seconds.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/capabilities.h"
#include "fsmove/exec/local_sources.h"
#include "fsmove/exec/output_drain.h"
#include "fsmove/exec/path_probe.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/process_tree.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/sandbox_layout.h"
#include "fsmove/exec/seccomp_filter.h"
#include "fsmove/exec/service_observation.h"
#include "fsmove/exec/systemd_boot.h"

namespace fsmove::exec {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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

// How long the drain of a program's output waits, once the program has ended, for the
// processes that outlived it and hold a copy of its output to close it.
constexpr std::chrono::milliseconds kDrainGrace{500};

// Where `puppet catalog find` writes the catalog (in the out directory) before it is read.
constexpr const char* kCatalogRaw = "catalog.raw";

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
      SandboxLayout layout(spec_, phase_, fds_, status_);
      absl::Status st = layout.Build();
      if (st.ok()) st = layout.Pivot();
      if (st.ok()) {
        root_ = "/";
        proc_dir_ = "/proc";
        io_dir_ = kSandboxWorkDir;
        st = LockDown();
      }
      if (!st.ok()) {
        status_.Send(
            status::Error{fmt::format("setting up the sandbox: {}", std::string(st.message()))});
        return 2;
      }
      if (BootsSystemd(spec_, phase_)) return BootSystemd();
    }
    return Supervise();
  }

 private:
  bool systemd() const { return spec_.init == "systemd"; }

  int Supervise() {
    const bool compiles = phase_ != SupervisorPhase::kApply && !spec_.compile_argv.empty();
    if (phase_ == SupervisorPhase::kCompile) {
      if (compiles) Compile();
      if (systemd()) CopyOut(kSystemdLog, kCompileSystemdLog);
      return 0;
    }
    if (!(compiles ? Compile() : LoadGivenCatalog())) return 0;
    if (spec_.mode == SandboxMode::kOverlay && spec_.prep) PrepareAfterCompile();
    Apply();
    for (int k = 2; k <= 1 + spec_.reapplies && Reapply(k); ++k) {
    }
    // A replay of missing notifiers: the services as the second apply left them, refreshed.
    if (spec_.refresh) {
      Observe(1);
      Refresh();
      Observe(2);
    }
    for (const std::string& path : spec_.probe_paths) {
      status_.Send(status::Probe{ProbePath(path)});
    }
    // Forced-order replays (they probe paths) report what they leave running: which services
    // run. One of missing notifiers has said more already (Observe).
    if (!spec_.probe_paths.empty() && !spec_.refresh) ReportDaemons();
    if (spec_.mode == SandboxMode::kOverlay) {
      ReportLeftovers();
      ReportFullFileSystems();
      Keep();
    }
    if (systemd()) CopyOut(kSystemdLog);
    return 0;
  }

  // --init systemd: this process (PID 1) becomes systemd; a child of it waits until systemd
  // has booted, runs the phase (the compile, or the apply and what follows), and hands its
  // exit code to the keeper (systemd_boot.h).
  int BootSystemd() {
    const char* for_what = phase_ == SupervisorPhase::kCompile ? " for the compile" : "";
    return BootSystemdAsPid1(Inside(kSystemdLog), spec_.env, for_what, status_, done_fd_, [this] {
      self_ = getpid();
      return Supervise();
    });
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

  // Capabilities strace keeps and what it traces does not. The kernel lets a process reach
  // another's descriptors through /proc/PID/fd (and attach to it) without CAP_SYS_PTRACE only
  // when it holds every capability the other holds (cap_ptrace_access_check): with these
  // fewer, no process of the module can open strace's trace FIFO that way, nor write lines of
  // its own into the analysis. None of them is anything a Puppet run uses.
  //
  // CAP_SYS_PTRACE is strace's alone for another reason too: a process that changed its user
  // (Puppet's `user =>` exec between setuid and exec, apt's methods as _apt, a daemon's
  // workers) is not dumpable, and the kernel lets its tracer read its memory only with
  // CAP_SYS_PTRACE held when it attached (ptracer_capable). Without it strace prints the
  // addresses of such a process's paths instead of the paths, and what it did is lost.
  static constexpr int kTracerOnlyCapabilities[] = {CAP_SYS_PTRACE, CAP_BPF, CAP_PERFMON,
                                                    CAP_CHECKPOINT_RESTORE};
  static constexpr const char* kTracerOnlyBoundingSet =
      "-sys_ptrace,-bpf,-perfmon,-checkpoint_restore";

  // The bounding set strace runs with: what it traces holds (ModuleCapabilities: Puppet's,
  // and with --init systemd systemd's and its units'), and kTracerOnlyCapabilities.
  static std::vector<int> TracerCapabilities() {
    std::vector<int> caps = ModuleCapabilities();
    caps.insert(caps.end(), std::begin(kTracerOnlyCapabilities), std::end(kTracerOnlyCapabilities));
    return caps;
  }

  // Before anything of the module runs: this process is not dumpable (nothing in the sandbox
  // can look into it through /proc/1: root, fd, ns), and it and all it starts run with
  // no_new_privs and the seccomp filter (seccomp_filter.h). Each program it starts gets its
  // own bounding set (ModuleCapabilities, TracerCapabilities).
  absl::Status LockDown() {
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return base::ErrnoStatus("prctl(PR_SET_DUMPABLE)");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
      return base::ErrnoStatus("prctl(PR_SET_NO_NEW_PRIVS)");
    return InstallSandboxSeccomp();
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
      const bool drain = AnyDrainOpen();
      pid_t r = waitpid(-1, &status, drain ? WNOHANG : 0);
      if (r == 0) {
        OutputDrain::PumpAll(draining_, 50);
        continue;
      }
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

  bool AnyDrainOpen() const {
    return std::any_of(draining_.begin(), draining_.end(),
                       [](const OutputDrain* d) { return d != nullptr && d->open(); });
  }

  // Lets `ms` pass, copying the output being drained meanwhile.
  void Pause(std::chrono::milliseconds ms) {
    const auto until = Clock::now() + ms;
    for (auto now = Clock::now(); now < until; now = Clock::now()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now);
      if (!AnyDrainOpen()) {
        std::this_thread::sleep_for(left);
        return;
      }
      OutputDrain::PumpAll(draining_, static_cast<int>(std::max<int64_t>(left.count(), 1)));
    }
  }

  // A file of the out directory for a drain to fill: appended to, or emptied first.
  // Without an out directory (never in a check), the sandbox's own file of that name.
  int OpenOut(const std::string& name, bool append) {
    const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
    if (fds_.out_dir >= 0) return openat(fds_.out_dir, name.c_str(), flags, 0644);
    return open(Inside(name).c_str(), flags, 0644);
  }

  // The out directory's file `name`, as an untrusted file (see OpenOut).
  absl::StatusOr<std::string> ReadOut(const std::string& name, size_t max_bytes) const {
    if (fds_.out_dir >= 0) return base::ReadUntrustedFile(fds_.out_dir, name, name, max_bytes);
    return base::ReadFile(Inside(name), "", max_bytes);
  }

  // A program's output through a socket into the out directory's `name` (output_drain.h):
  // module code can neither reopen nor truncate it. Null when no socket could be made (the
  // output is then lost, and said).
  std::unique_ptr<OutputDrain> DrainInto(const std::string& name, bool append, uint64_t max_bytes) {
    absl::StatusOr<std::unique_ptr<OutputDrain>> drain =
        OutputDrain::Start(OpenOut(name, append), max_bytes);
    if (!drain.ok()) {
      status_.Send(status::Note{
          fmt::format("{} not kept: {}", name, std::string(drain.status().message()))});
      return nullptr;
    }
    return std::move(*drain);
  }

  // The drains' programs have ended: what is left is copied, and a cut is said.
  void FinishDrains(const std::string& what) {
    for (OutputDrain* d : draining_) {
      if (d == nullptr) continue;
      d->Finish(kDrainGrace);
      if (d->dropped() > 0) {
        status_.Send(status::Note{fmt::format("{} was cut after {} MiB ({} bytes dropped)", what,
                                              d->kept() >> 20, d->dropped())});
      }
    }
    draining_.clear();
  }

  // Runs argv to its end like RunToEnd, its stdout and stderr drained (either may be null):
  // its wait status, or none when it could not start (said in a note).
  std::optional<int> RunDrained(const std::vector<std::string>& argv, OutputDrain* out,
                                OutputDrain* err, const std::string& what) {
    auto pid = Spawn(
        argv, InSandbox(out != nullptr ? out->writer() : -1, err != nullptr ? err->writer() : -1));
    for (OutputDrain* d : {out, err}) {
      if (d != nullptr) d->CloseWriter();
    }
    if (!pid.ok()) {
      status_.Send(status::Note{fmt::format("{}: {}", what, std::string(pid.status().message()))});
      return std::nullopt;
    }
    draining_ = {out, err};
    const int status = WaitReaping(*pid);
    FinishDrains(what);
    return status;
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
  // time. Its stdout and stderr are drained into the out directory (output_drain.h); log
  // lines Puppet prints before the JSON document go to the log `log_name` too (appended).
  struct Compiled {
    int code = 1;
    double seconds = 0;
    std::string json;
  };
  Compiled RunCompile(const std::string& log_name, bool append) {
    Compiled c;
    // One byte over the catalog's limit: a catalog that is too big fails to read as such.
    std::unique_ptr<OutputDrain> raw = DrainInto(kCatalogRaw, false, catalog::kMaxCatalogBytes + 1);
    std::unique_ptr<OutputDrain> log = DrainInto(log_name, append, kMaxPuppetLogBytes);
    auto t0 = Clock::now();
    int st = RunDrained(spec_.compile_argv, raw.get(), log.get(), "the compile's output")
                 .value_or(127 << 8);
    c.seconds = base::SecondsSince(t0);
    raw.reset();
    log.reset();
    c.code = ShellExitCode(st);
    std::string text = ReadOut(kCatalogRaw, catalog::kMaxCatalogBytes).value_or("");
    if (fds_.out_dir >= 0) {
      unlinkat(fds_.out_dir, kCatalogRaw, 0);
    } else {
      unlink(Inside(kCatalogRaw).c_str());
    }
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
      int l = OpenOut(log_name, /*append=*/true);
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
    (void)WriteFileWithMode(Inside(kApplyCatalogFile),
                            served ? localized->catalog_json : catalog_text_, 0644);
    if (!served) return;
    status_.Send(status::Note{
        fmt::format("apply: {} puppet:/// source{} served from the modulepath{}",
                    localized->rewritten, localized->rewritten == 1 ? "" : "s",
                    localized->unresolved.empty()
                        ? std::string()
                        : fmt::format(" ({} not found there)", localized->unresolved.size()))});
  }

  // Puppet's output (and strace's) goes through a socket into the out directory's log
  // (output_drain.h): module code can add lines to it, never truncate it or take a line away.
  void Apply() {
    status_.Send(status::Phase{"apply"});
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
    // The graph's catcher first: it is forked, and must not hold a copy of the log's socket.
    const pid_t catcher = CatchPuppetGraph();
    std::unique_ptr<OutputDrain> log = DrainInto(kPuppetLog, false, kMaxPuppetLogBytes);
    const int log_fd = log != nullptr ? log->writer() : -1;
    SpawnOptions o = InSandbox(log_fd, log_fd);
    if (!spec_.strace_argv.empty() && spec_.trace_cpu >= 0) o.cpus = {spec_.trace_cpu};
    if (!spec_.strace_argv.empty() && spec_.mode == SandboxMode::kOverlay) {
      o.bounding_set = TracerCapabilities();
    }
    auto t0 = Clock::now();
    auto pid = Spawn(argv, o);
    if (log != nullptr) log->CloseWriter();
    if (!pid.ok()) {
      if (catcher > 0) kill(catcher, SIGKILL);
      status_.Send(status::Error{std::string(pid.status().message())});
      return;
    }
    draining_ = {log.get()};
    puppet_pid_ = *pid;
    for (int i = 0; i < 50 && strace_pid_ == 0 && !spec_.strace_argv.empty(); ++i) {
      strace_pid_ = FindStrace();
      if (strace_pid_ == 0) Pause(std::chrono::milliseconds(20));
    }
    if (strace_pid_ != 0) UnlinkTraceFifoOnceOpen();
    int st = WaitReaping(*pid);
    double seconds = base::SecondsSince(t0);
    std::string strace_end = spec_.strace_argv.empty() ? "none" : EndStrace();
    EndGraphCatcher(catcher);
    FinishDrains("Puppet's log");
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
    // A replay (no compile_argv) applies the catalog it was given again; one of missing
    // notifiers, the second catalog it was given (the first held their sources back).
    if (spec_.refresh) {
      absl::StatusOr<std::string> second = base::ReadUntrustedFile(
          fds_.in_dir, kSecondCatalogFile, "the second catalog", catalog::kMaxCatalogBytes);
      if (!second.ok()) {
        status_.Send(status::Note{fmt::format("apply {}: no second catalog", k)});
        return false;
      }
      catalog_text_ = std::move(*second);
      close(OpenOut(log_name, /*append=*/false));
    } else if (!spec_.compile_argv.empty()) {
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
      close(OpenOut(log_name, /*append=*/false));
    }
    std::vector<std::string> argv = LaterApplyArgv();
    WriteApplyCatalog(&argv);
    // The log, drained into the out directory (after the compile's lines), is read back
    // from there: nothing in the sandbox can reach it.
    constexpr size_t kMaxLog = size_t{64} << 20;
    std::unique_ptr<OutputDrain> log = DrainInto(log_name, /*append=*/true, kMaxLog);
    auto t0 = Clock::now();
    const std::optional<int> ran =
        RunDrained(argv, log.get(), log.get(), fmt::format("the log of apply {}", k));
    if (!ran) return false;
    const int code = ShellExitCode(*ran);
    status_.Send(status::Reapplied{k, code, base::SecondsSince(t0)});
    log.reset();
    const std::string text = ReadOut(log_name, kMaxLog).value_or("");
    const ApplyOutcomes outcomes = ParseApplyOutcomes(text);
    for (const auto& [ref, o] : outcomes.resources) {
      if (!ref.starts_with("Notify[") && (o.failed || !o.changes.empty())) return true;
    }
    return false;
  }

  // The apply's arguments for an apply after the traced one: the graph the check reads is
  // the traced apply's, a later apply writes none.
  std::vector<std::string> LaterApplyArgv() const {
    std::vector<std::string> argv = spec_.apply_argv;
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
    return argv;
  }

  // A replay of missing notifiers: applies the refresh catalog (kRefreshCatalogFile), whose
  // one change refreshes their service, as their notify would; untraced, its log copied out.
  void Refresh() {
    absl::StatusOr<std::string> text = base::ReadUntrustedFile(
        fds_.in_dir, kRefreshCatalogFile, "the refresh catalog", catalog::kMaxCatalogBytes);
    if (!text.ok() || !WriteFileWithMode(Inside(kRefreshCatalogFile), *text, 0644).ok()) {
      status_.Send(status::Note{"refresh: no refresh catalog"});
      return;
    }
    std::vector<std::string> argv = LaterApplyArgv();
    for (size_t i = 1; i < argv.size(); ++i) {
      if (argv[i - 1] == "--catalog") argv[i] = Inside(kRefreshCatalogFile);
    }
    const std::string log_name = kRefreshLog;
    std::unique_ptr<OutputDrain> log = DrainInto(log_name, /*append=*/false, kMaxPuppetLogBytes);
    const std::optional<int> ran = RunDrained(argv, log.get(), log.get(), "the refresh's log");
    if (!ran) return;
    const int code = ShellExitCode(*ran);
    if (code != 0) {
      status_.Send(status::Note{fmt::format("refresh: Puppet exited {} (see {})", code, log_name)});
    }
  }

  // The sandbox's processes and listening sockets, once they hold still (a daemon forks and
  // binds after its start returns): at most 3 s.
  void Observe(int stage) {
    std::vector<pid_t> skip = {self_};
    if (systemd()) skip.push_back(1);
    std::vector<Observation> seen = ObserveSandbox(proc_dir_, stage, skip);
    for (int i = 0; i < 12; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      std::vector<Observation> again = ObserveSandbox(proc_dir_, stage, skip);
      const bool same = SameObservations(seen, again);
      seen = std::move(again);
      if (same) break;
    }
    // Before the refresh, a daemon holding a replaced file (not a temporary one: databases
    // keep theirs unlinked) may be one that opens it again on a clock: it is given
    // kRereadWindowSeconds to, and looked at again.
    const bool holds_replaced =
        stage == 1 && std::any_of(seen.begin(), seen.end(), [](const Observation& o) {
          return o.kind == "replaced" && !IsTemporaryFile(o.text);
        });
    if (holds_replaced) {
      status_.Send(status::Note{
          fmt::format("refresh: a process holds a replaced file; looking again in {} s",
                      kRereadWindowSeconds)});
      std::this_thread::sleep_for(std::chrono::seconds(kRereadWindowSeconds));
      seen = ObserveSandbox(proc_dir_, stage, skip);
    }
    for (Observation& o : seen) status_.Send(status::Observed{std::move(o)});
  }

  // The processes left running (the daemons the applies started), with their start time
  // (seconds since the epoch): "daemon PID START COMM".
  void ReportDaemons() {
    const ProcessClock clock(proc_dir_);
    for (const ProcEntry& p : ListProcesses(proc_dir_)) {
      if (p.pid == self_ || (systemd() && p.pid == 1)) continue;
      status_.Send(status::LeftRunning{{p.pid, clock.Start(p), p.comm}});
    }
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
      Pause(std::chrono::milliseconds(20));
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
        Pause(std::chrono::milliseconds(20));
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
  std::vector<OutputDrain*> draining_;     // the output drains of the program being waited for
  std::string catalog_text_;               // as compiled; Puppet applies a copy
  std::vector<std::string> applied_argv_;  // the apply's own arguments (without strace)
};

}  // namespace

int RunSupervisor(SandboxSpec spec, SupervisorPhase phase, SupervisorFds fds) {
  return Supervisor(std::move(spec), phase, std::move(fds)).Run();
}

}  // namespace fsmove::exec
