// The supervisor of one sandbox; see supervisor.h.
#include "fsmove/exec/supervisor.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/base/seconds.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/capabilities.h"
#include "fsmove/exec/output_drain.h"
#include "fsmove/exec/path_probe.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/process_tree.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/sandbox_layout.h"
#include "fsmove/exec/sandbox_runner.h"
#include "fsmove/exec/seccomp_filter.h"
#include "fsmove/exec/service_observation.h"
#include "fsmove/exec/supervisor_catalog.h"
#include "fsmove/exec/systemd_boot.h"

namespace fsmove::exec {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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
constexpr int kTracerOnlyCapabilities[] = {CAP_SYS_PTRACE, CAP_BPF, CAP_PERFMON,
                                           CAP_CHECKPOINT_RESTORE};
constexpr const char* kTracerOnlyBoundingSet = "-sys_ptrace,-bpf,-perfmon,-checkpoint_restore";

// The bounding set strace runs with: what it traces holds (ModuleCapabilities: Puppet's,
// and with --init systemd systemd's and its units'), and kTracerOnlyCapabilities.
std::vector<int> TracerCapabilities() {
  std::vector<int> caps = ModuleCapabilities();
  caps.insert(caps.end(), std::begin(kTracerOnlyCapabilities), std::end(kTracerOnlyCapabilities));
  return caps;
}

// How long the trace follows the daemons an apply started once Puppet has exited, while they
// are at work (WaitUntilIdle): long enough for a slow start on a loaded machine.
constexpr std::chrono::seconds kSettleLimit{20};

// A wait status's description as one word.
std::string Token(std::string s) {
  for (char& c : s) {
    if (c == ' ') c = '_';
  }
  return s;
}

// The sandbox's file systems are tmpfs with size limits (the root's writable layer, /run,
// /tmp, /dev, /dev/shm): one that is full when the run ends made writes fail with ENOSPC,
// which the report must say (a resource that failed for it is not a module bug).
void ReportFullFileSystems(const StatusWriter& status) {
  for (const char* dir : {"/", "/run", "/tmp", "/dev", "/dev/shm"}) {
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0 || fs.f_blocks == 0) continue;
    const uint64_t unit = fs.f_frsize != 0 ? fs.f_frsize : fs.f_bsize;
    const uint64_t total = uint64_t{fs.f_blocks} * unit, avail = uint64_t{fs.f_bavail} * unit;
    if (avail > 2 * unit && avail * 100 > total) continue;
    const bool kib = total < (uint64_t{1} << 20);
    status.Send(status::Limit{fmt::format(
        "the sandbox's {} ({}, {} {}) was full when the run ended: writes into it failed "
        "(ENOSPC)",
        dir, std::string_view(dir) == "/" ? "its writable layer" : "a tmpfs",
        kib ? total >> 10 : total >> 20, kib ? "KiB" : "MiB")});
  }
}

// The apply's arguments for an apply after the traced one: the graph the check reads is
// the traced apply's, a later apply writes none.
std::vector<std::string> LaterApplyArgv(std::vector<std::string> argv) {
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

// Puppet writes the graph it applies (--graph: expanded_relationships.dot) before it
// evaluates the first resource. Its name in the graph directory (`path`) is a FIFO whose reader, a
// child of this process (not dumpable, out of reach of ptrace), copies what Puppet writes
// to the out directory and exits at the end of that first writing: an exec that rewrites
// the file later writes into nothing the analysis reads.
pid_t CatchPuppetGraph(const std::string& path, int out_dir) {
  unlink(path.c_str());
  if (mkfifo(path.c_str(), 0600) != 0 || out_dir < 0) return -1;
  pid_t pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  int in = open(path.c_str(), O_RDONLY | O_CLOEXEC);  // until Puppet opens it
  unlink(path.c_str());
  int out = openat(out_dir, kExpandedGraphFile,
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
        run_(spec_, fds_.out_dir, status_),
        catalog_(spec_, phase_, fds_, run_, status_),
        proc_dir_("/proc") {
    // Without systemd in the sandbox, systemctl must work offline (enable/disable edit the
    // links, daemon-reload is ignored), as it did while the sandbox was a chroot, rather than
    // fail to reach a service manager. systemctl reads SYSTEMD_OFFLINE for that.
    if (spec_.mode == SandboxMode::kOverlay && !systemd())
      spec_.env.emplace_back("SYSTEMD_OFFLINE=1");
  }

  int Run() {
    if (spec_.mode == SandboxMode::kOverlay) {
      status_.Send(status::Phase{"sandbox"});
      SandboxLayout layout(spec_, phase_, fds_, status_);
      absl::Status st = layout.Build();
      if (st.ok()) st = layout.Pivot();
      console_master_ = layout.TakeConsoleMaster();
      if (st.ok()) {
        proc_dir_ = "/proc";
        run_.Pivoted();
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
      if (compiles) catalog_.Compile();
      return 0;
    }
    if (!(compiles ? catalog_.Compile() : catalog_.LoadGiven())) return 0;
    if (spec_.mode == SandboxMode::kOverlay && spec_.prep) catalog_.PrepareApply();
    // CLOCK_MONOTONIC, as systemd's ConditionTimestampMonotonic.
    const auto apply_start_usec = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch())
            .count());
    Apply();
    if (systemd()) ReportSkippedUnits(apply_start_usec);
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
      ReportFullFileSystems(status_);
      Keep();
    }
    return 0;
  }

  // --init systemd: this process (PID 1) becomes systemd; a child of it waits until systemd
  // has booted, runs the phase (the compile, or the apply and what follows), and hands its
  // exit code to the keeper (systemd_boot.h).
  int BootSystemd() {
    const char* for_what = phase_ == SupervisorPhase::kCompile ? " for the compile" : "";
    const int log =
        run_.OpenOut(phase_ == SupervisorPhase::kCompile ? kCompileSystemdLog : kSystemdLog, false);
    return BootSystemdAsPid1(log, console_master_, spec_.env, for_what, status_, done_fd_, [this] {
      self_ = getpid();
      return Supervise();
    });
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

  // strace -D execs Puppet in the process we started and traces it from a grandchild, which
  // is reparented to us (we are PID 1 or a subreaper).
  // `puppet` is the process we started: it is called strace too until it execs Puppet.
  pid_t FindStrace() {
    for (const ProcEntry& p : ListProcesses(proc_dir_)) {
      if (p.ppid == self_ && p.pid != puppet_pid_ && p.comm == "strace") return p.pid;
    }
    return 0;
  }

  // Puppet's output (and strace's) goes through a socket into the out directory's log
  // (output_drain.h): module code can add lines to it, never truncate it or take a line away.
  void Apply() {
    status_.Send(status::Phase{"apply"});
    std::vector<std::string> apply_argv = spec_.apply_argv;
    catalog_.WriteApplyCopy(&apply_argv);
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
    const pid_t catcher = CatchPuppetGraph(
        run_.Inside(fmt::format("{}/{}", kGraphDir, kExpandedGraphFile)), fds_.out_dir);
    std::unique_ptr<OutputDrain> log = run_.DrainInto(kPuppetLog, false, kMaxPuppetLogBytes);
    const int log_fd = log != nullptr ? log->writer() : -1;
    SpawnOptions o = run_.InSandbox(log_fd, log_fd);
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
    run_.Draining({log.get()});
    puppet_pid_ = *pid;
    for (int i = 0; i < 50 && run_.strace_pid() == 0 && !spec_.strace_argv.empty(); ++i) {
      run_.WatchStrace(FindStrace());
      if (run_.strace_pid() == 0) run_.Pause(std::chrono::milliseconds(20));
    }
    if (run_.strace_pid() != 0) UnlinkTraceFifoOnceOpen();
    int st = run_.WaitReaping(*pid);
    double seconds = base::SecondsSince(t0);
    std::string strace_end = spec_.strace_argv.empty() ? "none" : EndStrace();
    EndGraphCatcher(catcher);
    run_.FinishDrains("Puppet's log");
    status_.Send(status::Applied{ShellExitCode(st), seconds, strace_end});
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
      catalog_.Replace(std::move(*second));
      close(run_.OpenOut(log_name, /*append=*/false));
    } else if (!spec_.compile_argv.empty()) {
      SupervisorCatalog::Compiled c = catalog_.Run(log_name, /*append=*/false);
      if (c.code != 0) {
        status_.Send(
            status::Note{fmt::format("apply {}: the catalog did not compile again (exit code "
                                     "{}; see {} in the work directory)",
                                     k, c.code, log_name)});
        return false;
      }
      catalog_.Replace(std::move(c.json));
    } else {
      close(run_.OpenOut(log_name, /*append=*/false));
    }
    std::vector<std::string> argv = LaterApplyArgv(spec_.apply_argv);
    catalog_.WriteApplyCopy(&argv);
    // The log, drained into the out directory (after the compile's lines), is read back
    // from there: nothing in the sandbox can reach it.
    constexpr size_t kMaxLog = size_t{64} << 20;
    std::unique_ptr<OutputDrain> log = run_.DrainInto(log_name, /*append=*/true, kMaxLog);
    auto t0 = Clock::now();
    const std::optional<int> ran =
        run_.RunDrained(argv, log.get(), log.get(), fmt::format("the log of apply {}", k));
    if (!ran) return false;
    const int code = ShellExitCode(*ran);
    status_.Send(status::Reapplied{k, code, base::SecondsSince(t0)});
    log.reset();
    const std::string text = run_.ReadOut(log_name, kMaxLog).value_or("");
    const ApplyOutcomes outcomes = ParseApplyOutcomes(text);
    for (const auto& [ref, o] : outcomes.resources) {
      if (!ref.starts_with("Notify[") && (o.failed || !o.changes.empty())) return true;
    }
    return false;
  }

  // A replay of missing notifiers: applies the refresh catalog (kRefreshCatalogFile), whose
  // one change refreshes their service, as their notify would; untraced, its log copied out.
  void Refresh() {
    absl::StatusOr<std::string> text = base::ReadUntrustedFile(
        fds_.in_dir, kRefreshCatalogFile, "the refresh catalog", catalog::kMaxCatalogBytes);
    if (!text.ok() || !WriteFileWithMode(run_.Inside(kRefreshCatalogFile), *text, 0644).ok()) {
      status_.Send(status::Note{"refresh: no refresh catalog"});
      return;
    }
    std::vector<std::string> argv = LaterApplyArgv(spec_.apply_argv);
    for (size_t i = 1; i < argv.size(); ++i) {
      if (argv[i - 1] == "--catalog") argv[i] = run_.Inside(kRefreshCatalogFile);
    }
    const std::string log_name = kRefreshLog;
    std::unique_ptr<OutputDrain> log =
        run_.DrainInto(log_name, /*append=*/false, kMaxPuppetLogBytes);
    const std::optional<int> ran = run_.RunDrained(argv, log.get(), log.get(), "the refresh's log");
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
    // After the refresh, what the restarted daemon writes is looked at once it has started:
    // a file it writes only while it starts is not where its configuration sends its output.
    if (stage == 1) {
      for (const Observation& o : seen) before_refresh_.insert(o.pid);
    }
    const bool writes =
        stage == 2 && std::any_of(seen.begin(), seen.end(), [&](const Observation& o) {
          return o.kind == "writes" && !before_refresh_.contains(o.pid);
        });
    if (writes) {
      std::this_thread::sleep_for(std::chrono::seconds(kWriteSettleSeconds));
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
    const std::string fds = proc_dir_ + "/" + std::to_string(run_.strace_pid()) + "/fd";
    for (int i = 0; i < 250; ++i) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(fds, ec)) {
        std::error_code rec;
        if (fs::read_symlink(e.path(), rec).string() == fifo_inside) {
          // The host's FIFO was bound there (overlay): unbound, then the placeholder goes.
          umount2(run_.Inside(kTraceFifo).c_str(), MNT_DETACH);
          unlink(run_.Inside(kTraceFifo).c_str());
          return;
        }
      }
      run_.Pause(std::chrono::milliseconds(20));
    }
    status_.Send(status::Note{"strace was not seen opening the trace FIFO: its name stays"});
  }

  // Puppet has exited. strace ends by itself when nothing else is traced; with daemons still
  // running it is made to detach (SIGINT), and killed if it does not.
  std::string EndStrace() {
    if (run_.strace_pid() == 0) run_.WatchStrace(FindStrace());
    if (run_.strace_pid() == 0) return "exited";
    if (run_.strace_reaped()) {
      const int status = run_.strace_status();
      bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      return clean ? "exited" : "died:" + Token(DescribeWaitStatus(status));
    }
    // A daemon the apply started may still be starting (reading its configuration): it is
    // traced until the sandbox's processes are idle (kSettleLimit at most). (Without the
    // sandbox, /proc is the host's: not looked at.)
    const bool idle = spec_.mode != SandboxMode::kOverlay ||
                      WaitUntilIdle(proc_dir_, {self_, run_.strace_pid()}, kSettleLimit,
                                    [this](std::chrono::milliseconds ms) { run_.Pause(ms); });
    if (!idle) {
      status_.Send(status::Note{fmt::format(
          "the sandbox's processes were still at work {} s after Puppet exited: what they did "
          "later is not traced",
          kSettleLimit.count())});
    }
    auto wait_for = [&](std::chrono::milliseconds limit) {
      auto until = Clock::now() + limit;
      while (Clock::now() < until) {
        run_.ReapAvailable();
        if (run_.strace_reaped()) return true;
        run_.Pause(std::chrono::milliseconds(20));
      }
      return false;
    };
    if (wait_for(std::chrono::milliseconds(1000))) return "exited";
    kill(run_.strace_pid(), SIGINT);
    if (wait_for(std::chrono::seconds(30))) return "SIGINT";
    kill(run_.strace_pid(), SIGKILL);
    wait_for(std::chrono::seconds(5));
    return "SIGKILL";
  }

  // --init systemd: the service units whose start condition systemd found unmet during the
  // apply (irqbalance's ConditionVirtualization=!container in a sandbox): the daemon never ran,
  // and systemd logs the skip at debug level only. Asked of systemd, untraced, after the apply,
  // by programs of the root the module may have replaced: run as the module's are (its bounding
  // set), their output drained into the out directory and read back bounded.
  void ReportSkippedUnits(uint64_t since_usec) {
    const std::string show =
        OutputOf({"systemctl", "show", "--all", "--no-pager", "-p",
                  "Id,ConditionResult,ConditionTimestampMonotonic", "*.service"},
                 1 << 20);
    for (const std::string& unit : UnitsSkippedSince(show, since_usec)) {
      std::string condition =
          UnmetCondition(OutputOf({"systemctl", "status", "--no-pager", "--lines=0", "--", unit}));
      if (condition.empty()) {
        condition = UnmetCondition(OutputOf({"systemd-analyze", "condition", "--unit=" + unit}));
      }
      status_.Send(status::Skipped{unit, condition});
    }
  }

  // What `argv`, run in the sandbox as the module's programs are, printed (stdout, then
  // stderr), at most `max_bytes` of each; "" when it could not run.
  std::string OutputOf(const std::vector<std::string>& argv, uint64_t max_bytes = 1 << 16) {
    constexpr const char* kOut = "query-stdout.txt";
    constexpr const char* kErr = "query-stderr.txt";
    std::unique_ptr<OutputDrain> out = run_.DrainInto(kOut, /*append=*/false, max_bytes);
    std::unique_ptr<OutputDrain> err = run_.DrainInto(kErr, /*append=*/false, max_bytes);
    const bool ran = run_.RunDrained(argv, out.get(), err.get(), argv.front()).has_value();
    std::string text = run_.TakeOut(kOut, max_bytes) + "\n" + run_.TakeOut(kErr, max_bytes);
    return ran ? text : "";
  }

  void ReportLeftovers() {
    std::vector<ProcEntry> left = ListProcesses(proc_dir_);
    std::erase_if(left,
                  [&](const ProcEntry& p) { return p.pid == self_ || (systemd() && p.pid == 1); });
    exec::ReportLeftovers(status_, left);
  }

  // --keep-sandbox: the overlay's upper layer as a tar archive in the out directory (the
  // executor unpacks it into the directory the user named): no host directory is ever
  // writable from the sandbox, and the archive is bounded by the upper layer's tmpfs.
  void Keep() {
    if (spec_.keep_dir.empty() || fds_.out_dir < 0) return;
    int out = openat(fds_.out_dir, kKeepArchive,
                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    int st =
        run_.RunToEnd({"tar", "--numeric-owner", "-C", kKeepUpperDir, "-cf", "-", "."}, out, -1);
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
  // Under --init systemd: the master of the sandbox's /dev/console (sandbox_layout.h), -1 if none.
  int console_master_ = -1;
  SandboxRunner run_;
  SupervisorCatalog catalog_;
  std::string proc_dir_;
  pid_t self_ = getpid();
  // The processes seen before a refresh (Observe(1)).
  std::set<int> before_refresh_;
  pid_t puppet_pid_ = 0;
  std::vector<std::string> applied_argv_;  // the apply's own arguments (without strace)
};

}  // namespace

int RunSupervisor(SandboxSpec spec, SupervisorPhase phase, SupervisorFds fds) {
  return Supervisor(std::move(spec), phase, std::move(fds)).Run();
}

}  // namespace fsmove::exec
