// The batch-scan scheduler: resume checks, N concurrent `fsmove check` children, hard kills
// after the time limit, classification and status.json, the live progress line.
#include "fsmove/scan/scan_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/progress_line.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/control_repo.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/target.h"
#include "fsmove/scan/acceptance_specs.h"
#include "fsmove/scan/cpu_placement.h"
#include "fsmove/scan/module_list.h"
#include "fsmove/scan/results_dir.h"

extern char** environ;

namespace fsmove::scan {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

static bool UserChoseInit(const ScanOptions& o) {
  for (const std::string& opt : o.check_options) {
    if (opt == "--init" || opt.starts_with("--init=")) return true;
  }
  return false;
}

std::vector<std::string> RedoUnderSystemd(const ScanOptions& o, const CheckOutcome& outcome) {
  if (UserChoseInit(o)) return {};
  if (!outcome.report || outcome.exit_code != 3) return {};
  const nlohmann::json* run = nullptr;
  if (auto it = outcome.report->find("run"); it != outcome.report->end() && it->is_object())
    run = &*it;
  if (run == nullptr || run->value("init", "") == "systemd") return {};
  auto failed = run->find("failed_resources");
  if (failed == run->end() || !failed->is_array() || failed->empty()) return {};
  std::vector<std::string> services;
  for (const nlohmann::json& f : *failed) {
    if (!f.is_object()) return {};
    const std::string resource = f.value("resource", ""), message = f.value("message", "");
    if (!resource.starts_with("Service[") ||
        message.find("Could not find init script") == std::string::npos) {
      return {};  // another failure: systemd would not make the apply clean
    }
    services.push_back(resource);
  }
  return services;
}

std::vector<std::string> CheckArguments(const ScanOptions& o, const std::string& module,
                                        const std::string& dir, const std::string& work_dir,
                                        bool systemd) {
  const fs::path d(dir);
  // Option and value side by side.
  // clang-format off
  std::vector<std::string> argv = {o.fsmove_binary, "check", "-q", "--format", "json",
                                   "-o", (d / kReportFile).string(),
                                   "--save-catalog", (d / kCatalogFile).string(),
                                   "--save-graph", (d / kPuppetGraphFile).string(),
                                   "--puppet-log", (d / kPuppetLogFile).string(),
                                   "--timeout", std::to_string(o.timeout_seconds),
                                   "--work-dir", work_dir,
                                   "--discard-work"};  // Puppet's log is in the module's folder
  // clang-format on
  if (o.save_traces) {
    argv.push_back("--save-trace");
    argv.push_back((d / kTraceFile).string());
  }
  for (const std::string& dir : o.modulepath) argv.insert(argv.end(), {"--modulepath", dir});
  for (const std::string& dir : o.module_sources) {
    argv.insert(argv.end(), {"--module-source", dir});
  }
  argv.insert(argv.end(), o.check_options.begin(), o.check_options.end());
  if (systemd) {
    argv.insert(argv.end(), {"--init", "systemd"});
  } else if (!UserChoseInit(o)) {
    // The scan makes the second run under systemd itself (RedoUnderSystemd), as another
    // check, so that the other modules' checks go on meanwhile: not the check's --init auto.
    argv.insert(argv.end(), {"--init", "none"});
  }
  if (IsClassRun(module) && exec::LooksLikeControlRepo(RunModule(module))) {
    // A control repo's role: checked as the repo, with its data and deployed modules.
    argv.insert(argv.end(),
                {"--class", std::string(ClassRunClass(module)), "--", RunModule(module)});
    return argv;
  }
  if (IsAcceptanceRun(module) || IsClassRun(module)) {
    // The spec's manifest or the class's include, written into the run's folder, with its
    // module on the modulepath.
    argv.insert(argv.end(),
                {"--with-module", RunModule(module), "--", (d / kRunManifestFile).string()});
    return argv;
  }
  argv.push_back("--");  // a module path starting with '-' is still a path
  argv.push_back(module);
  return argv;
}

namespace {

struct Running {
  std::string module;
  std::string dir;
  std::string work;
  Clock::time_point start;
  bool hard_killed = false;
  std::vector<int> cpus;  // where it runs (scan -j N: its own)
  int lock_fd = -1;       // the module folder's lock, shared with the check
  // Its second run, under --init systemd (RedoUnderSystemd): the Services the first lacked.
  std::vector<std::string> systemd_for;
};

// A run to make: the module (or manifest, spec, class) into its folder.
struct Queued {
  std::string module;
  std::string dir;
  std::vector<std::string> systemd_for;  // RedoUnderSystemd's Services: under --init systemd
};

// What the run's module lacks, resolved as its check resolves it (exec::ResolveTarget): its
// dependencies that no modulepath directory holds, and the module the compile error shows
// Puppet lacked when that one is on none either. Nothing for a manifest of no module.
void FindMissingModules(const ScanOptions& o, const std::string& run, CheckOutcome* out) {
  const std::string module = RunModule(run);
  std::error_code ec;
  if (module.empty() || !fs::is_directory(module, ec)) return;
  exec::TargetRequest request;
  request.code = "# dependencies only\n";
  request.with_module = module;
  request.modulepath = o.modulepath;
  request.module_sources = o.module_sources;
  absl::StatusOr<exec::ResolvedTarget> t = exec::ResolveTarget(request);
  if (!t.ok()) return;
  out->missing_dependencies = t->missing_dependencies;
  const std::string lacked =
      exec::UnfoundModule(exec::FatalCompileError(exec::StripAnsi(out->check_log)));
  if (!lacked.empty() && !exec::MissingModules({lacked}, t->modulepath, t->module_name).empty())
    out->absent_module = lacked;
}

CheckOutcome Collect(const ScanOptions& options, const Running& r, int wait_status) {
  CheckOutcome o;
  o.exit_code = exec::ShellExitCode(wait_status);
  o.killed_by_signal = WIFSIGNALED(wait_status);
  o.hard_killed = r.hard_killed;
  const fs::path d(r.dir);
  std::error_code ec;
  if (fs::exists(d / kReportFile, ec)) {
    std::string text = base::ReadFile((d / kReportFile).string(), "", size_t{1} << 30).value_or("");
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded() && j.is_object()) o.report = std::move(j);
  }
  o.has_catalog = fs::file_size(d / kCatalogFile, ec) > 0 && !ec;
  o.check_log = base::ReadFile((d / kCheckLogFile).string()).value_or("");
  if (o.exit_code == 2 && !o.has_catalog) FindMissingModules(options, r.module, &o);
  return o;
}

std::string Duration(double s) {
  int t = static_cast<int>(std::lround(s));
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, t / 60 % 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

// What a run needs before its check starts: its module directory or manifest there, and an
// acceptance spec's manifest or a class's include written into its folder. Ready, or the
// status and reason of a run that needs no check (missing, nothing-to-apply).
struct Preparation {
  ModuleStatus status = ModuleStatus::kMissing;
  std::string why;  // empty: ready
};

Preparation PrepareRun(const std::string& run, const std::string& dir) {
  std::error_code ec;
  if (IsClassRun(run)) {
    if (!fs::is_directory(RunModule(run), ec))
      return {ModuleStatus::kMissing, fmt::format("no module directory {}", RunModule(run))};
    if (exec::LooksLikeControlRepo(RunModule(run))) return {};  // check --class
    if (absl::Status st = WriteFileAtomically((fs::path(dir) / kRunManifestFile).string(),
                                              fmt::format("include {}\n", ClassRunClass(run)));
        !st.ok()) {
      return {ModuleStatus::kMissing, std::string(st.message())};
    }
    return {};
  }
  if (IsAcceptanceRun(run)) {
    absl::StatusOr<std::string> text = AcceptanceManifest(run);
    if (!text.ok()) return {ModuleStatus::kMissing, std::string(text.status().message())};
    if (absl::Status st = WriteFileAtomically((fs::path(dir) / kRunManifestFile).string(), *text);
        !st.ok()) {
      return {ModuleStatus::kMissing, std::string(st.message())};
    }
    return {};
  }
  if (run.ends_with(".pp")) {
    if (RunSource(run) == "example") {
      // A module's example is opened beneath the module: one that is a link (to a private
      // file of whoever runs the scan) is refused, never checked.
      const std::string module = RunModule(run);
      absl::StatusOr<base::UniqueFd> root = base::OpenRoot(module, "module");
      absl::StatusOr<base::UniqueFd> fd =
          root.ok()
              ? base::OpenBeneath(root->get(), fs::path(run).lexically_relative(module).string(),
                                  O_RDONLY | O_NONBLOCK, run)
              : root.status();
      struct stat st {};
      if (fd.ok() && fstat(fd->get(), &st) == 0 && S_ISREG(st.st_mode)) return {};
      if (!fd.ok() && !absl::IsNotFound(fd.status())) {
        return {ModuleStatus::kMissing, std::string(fd.status().message())};
      }
      return {ModuleStatus::kMissing, fmt::format("no manifest {}", run)};
    }
    if (fs::is_regular_file(run, ec)) return {};
    return {ModuleStatus::kMissing, fmt::format("no manifest {}", run)};
  }
  if (!fs::is_directory(run, ec))
    return {ModuleStatus::kMissing, fmt::format("no module directory {}", run)};
  if (exec::LooksLikeControlRepo(run)) return {};  // its site.pp
  // An include of a module with no class of its name: its check could only say so.
  if (std::string why = NothingToApply(run); !why.empty())
    return {ModuleStatus::kNothingToApply, std::move(why)};
  return {};
}

std::vector<std::string> Environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

// The runs to make, in the order of o.modules: every one with --force; else those with no
// final status.json (a final one's result goes into *out as it was: skipped), noting why one
// that had a status.json is tried again.
std::vector<Queued> QueueRuns(const ScanOptions& o, ScanOutcome* out) {
  std::error_code ec;
  std::vector<Queued> queue;
  for (const std::string& m : o.modules) {
    const std::string dir = (fs::path(o.out_dir) / ModuleDirName(m)).string();
    if (!o.force) {
      auto rec = ReadStatus(dir, m);
      if (rec.ok() && IsFinal(rec->result.status)) {
        out->results.push_back(rec->result);
        ++out->skipped;
        continue;
      }
      if (rec.ok()) {
        ++out->redone;
        // Deciding it again costs no check: nothing to say.
        if (rec->result.status != ModuleStatus::kNothingToApply) {
          out->notes.push_back(fmt::format("retrying {}: it was {} last time", m,
                                           ModuleStatusName(rec->result.status)));
        }
      } else if (fs::exists(dir, ec)) {
        ++out->redone;
        out->notes.push_back(fmt::format("redoing {}: {}", m, std::string(rec.status().message())));
      }
    }
    queue.push_back({m, dir, {}});
  }
  return queue;
}

// Where the checks' work directories go: o.work_parent, else a new directory under $TMPDIR,
// made only when there is a run to make (`runs`).
absl::StatusOr<std::string> WorkParent(const ScanOptions& o, bool runs) {
  if (!o.work_parent.empty()) return o.work_parent;
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/fsmove-scan.XXXXXX";
  if (runs && mkdtemp(tmpl.data()) == nullptr) {
    return absl::InternalError(fmt::format("cannot create {}", tmpl));
  }
  return tmpl;
}

// The checks of one scan: up to o.jobs at a time, each on CPUs of its own, started in the
// queue's order, reaped, hard-killed after the time limit, all stopped once *stop is set;
// their results and notes into *out, the counts on the progress line.
class Scheduler {
 public:
  Scheduler(const ScanOptions& o, const volatile std::sig_atomic_t* stop, std::vector<Queued> queue,
            std::string work_parent, base::ProgressLine* progress, ScanOutcome* out)
      : o_(o),
        stop_(stop),
        queue_(std::move(queue)),
        work_parent_(std::move(work_parent)),
        progress_(progress),
        out_(out),
        env_(Environment()),
        total_(o.modules.size()),
        jobs_(std::max(1, o.jobs)),
        hard_limit_(std::chrono::seconds(o.timeout_seconds * std::max(1, o.timeout_periods) +
                                         o.kill_after_seconds)),
        // Each running check on CPUs of its own (its traced apply is pinned to one of them).
        placer_(exec::AllowedCpus(), jobs_) {
    for (const auto& r : out_->results) Count(r);
  }

  // Until the queue is done and every check has ended, or *stop.
  void Run();

 private:
  void Count(const ModuleResult& r) {
    findings_ += r.status == ModuleStatus::kFindings;
    failed_ += r.status != ModuleStatus::kOk && r.status != ModuleStatus::kFindings;
  }
  void Draw(bool force);
  // The next run of the queue: its folder locked, prepared and its check started, or its
  // result recorded without one.
  void Start(const Queued& q);
  // False (and a note) when another scan holds `dir`'s lock: *lock_fd is ours, or -1.
  bool LockFolder(const std::string& module, const std::string& dir, int* lock_fd);
  // A run not worth a check: recorded as PrepareRun says.
  void RecordUnprepared(const std::string& module, const std::string& dir, Preparation prep,
                        int lock_fd);
  // The check `pid` has ended: its result, or its second run under --init systemd queued.
  void Finish(pid_t pid, int wait_status);
  // Finish for each check that has ended; whether there was one.
  bool ReapEnded();
  // Interrupted: each check stopped (SIGTERM, SIGKILL a minute later) and reaped.
  void StopAll();
  void KillOverdue();

  const ScanOptions& o_;
  const volatile std::sig_atomic_t* stop_;
  std::vector<Queued> queue_;
  const std::string work_parent_;
  base::ProgressLine* progress_;
  ScanOutcome* out_;
  const std::vector<std::string> env_;
  const size_t total_;
  const int jobs_;
  const std::chrono::seconds hard_limit_;
  CpuPlacer placer_;
  std::map<pid_t, Running> running_;
  size_t next_ = 0, findings_ = 0, failed_ = 0, ran_ = 0;
  double ran_seconds_ = 0;
  Clock::time_point last_draw_{};
};

void Scheduler::Draw(bool force) {
  if (!o_.progress) return;
  auto now = Clock::now();
  if (!force && now - last_draw_ < std::chrono::seconds(1)) return;
  last_draw_ = now;
  size_t done = out_->results.size();
  std::string eta = "?";
  if (ran_ > 0) {
    double per = ran_seconds_ / static_cast<double>(ran_);
    size_t left = (queue_.size() - next_) + running_.size();
    eta = Duration(per * static_cast<double>(left) / jobs_);
  }
  progress_->Show(
      fmt::format("fsmove scan: {}/{} done, {} with findings, {} failed, {} "
                  "running, ETA {}",
                  done, total_, findings_, failed_, running_.size(), eta));
}

void Scheduler::Finish(pid_t pid, int wait_status) {
  std::error_code ec;
  Running r = running_.at(pid);
  running_.erase(pid);
  placer_.Release(r.cpus);
  if (r.lock_fd >= 0) close(r.lock_fd);
  fs::remove_all(r.work, ec);
  const CheckOutcome outcome = Collect(o_, r, wait_status);
  if (r.systemd_for.empty() && *stop_ == 0) {
    if (std::vector<std::string> services = RedoUnderSystemd(o_, outcome); !services.empty()) {
      // Its folder is written again by the second run; no status until then.
      queue_.push_back({r.module, r.dir, std::move(services)});
      ran_seconds_ += std::chrono::duration<double>(Clock::now() - r.start).count();
      ++ran_;
      return;
    }
  }
  ModuleResult res = Classify(r.module, outcome);
  if (!r.systemd_for.empty()) {
    res.warnings.push_back(fmt::format(
        "checked with --init systemd: without it, {} had no init script (a systemd unit only)",
        absl::StrJoin(r.systemd_for, ", ")));
  }
  if (auto st = WriteStatus(r.dir, res); !st.ok()) {
    out_->notes.push_back(fmt::format("{}: {}", r.module, std::string(st.message())));
  }
  ran_seconds_ += std::chrono::duration<double>(Clock::now() - r.start).count();
  ++ran_;
  Count(res);
  out_->results.push_back(std::move(res));
  Draw(true);
}

bool Scheduler::LockFolder(const std::string& module, const std::string& dir, int* lock_fd) {
  std::error_code ec;
  // One check per module folder at a time, across scans: the lock is the scan's and its
  // check's (a check outliving a killed scan keeps it until it has stopped).
  const fs::path locks = fs::path(o_.out_dir) / ".locks";
  fs::create_directories(locks, ec);
  const std::string lock_path = (locks / fs::path(dir).filename()).string();
  *lock_fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (*lock_fd >= 0 && flock(*lock_fd, LOCK_EX | LOCK_NB) != 0) {
    close(*lock_fd);
    out_->notes.push_back(fmt::format(
        "{}: another scan is checking it now; skipped (a later run checks it)", module));
    return false;
  }
  return true;
}

void Scheduler::RecordUnprepared(const std::string& module, const std::string& dir,
                                 Preparation prep, int lock_fd) {
  // Not worth a check (which would call it a compile failure, or print its usage):
  // recorded as missing or nothing-to-apply, and decided again by the next run.
  ModuleResult res;
  res.module = module;
  res.status = prep.status;
  res.error = std::move(prep.why);
  std::ofstream(fs::path(dir) / kCheckLogFile) << "fsmove scan: " << res.error << "\n";
  if (lock_fd >= 0) close(lock_fd);
  if (auto st = WriteStatus(dir, res); !st.ok()) {
    out_->notes.push_back(fmt::format("{}: {}", module, std::string(st.message())));
  }
  Count(res);
  out_->results.push_back(std::move(res));
  Draw(true);
}

void Scheduler::Start(const Queued& q) {
  std::error_code ec;
  const std::string& module = q.module;
  const std::string& dir = q.dir;
  int lock_fd = -1;
  if (!LockFolder(module, dir, &lock_fd)) return;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (Preparation prep = PrepareRun(module, dir); !prep.why.empty()) {
    RecordUnprepared(module, dir, std::move(prep), lock_fd);
    return;
  }
  const std::string log = (fs::path(dir) / kCheckLogFile).string();
  int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  Running r{
      module,       dir,          (fs::path(work_parent_) / fs::path(dir).filename()).string(),
      Clock::now(), false,        {},
      lock_fd,      q.systemd_for};
  fs::remove_all(r.work, ec);
  fs::create_directories(r.work, ec);
  if (fd < 0) {
    ModuleResult res;
    res.module = module;
    res.error = fmt::format("cannot write {}", log);
    if (lock_fd >= 0) close(lock_fd);
    out_->results.push_back(res);
    ++failed_;
    return;
  }
  exec::SpawnOptions so;
  r.cpus = so.cpus = placer_.Take();
  so.stdout_fd = fd;
  so.stderr_fd = fd;
  so.env = env_;
  so.new_session = true;  // Ctrl-C reaches the scan, which stops the checks in order
  // A scan killed outright (SIGKILL, OOM) stops its checks too: each ends its Puppet,
  // strace and sandbox on SIGTERM, as for an interrupted scan.
  so.death_signal = SIGTERM;
  so.inherit_fd = lock_fd;
  auto pid = exec::Spawn(CheckArguments(o_, module, dir, r.work, !q.systemd_for.empty()), so);
  if (!pid.ok()) {
    std::string msg =
        fmt::format("cannot start fsmove check: {}\n", std::string(pid.status().message()));
    (void)!write(fd, msg.data(), msg.size());
    close(fd);
    running_[-1] = r;  // reuse the common path with a synthetic "exit 127"
    Finish(-1, 127 << 8);
    return;
  }
  close(fd);
  running_[*pid] = r;
}

bool Scheduler::ReapEnded() {
  bool reaped = false;
  for (auto it = running_.begin(); it != running_.end();) {
    pid_t pid = it->first;
    ++it;  // Finish() erases
    int ws = 0;
    pid_t got = waitpid(pid, &ws, WNOHANG);
    if (got == pid) {
      Finish(pid, ws);
      reaped = true;
    }
  }
  return reaped;
}

void Scheduler::StopAll() {
  // Interrupted: each check stops its Puppet, strace and sandbox on SIGTERM.
  for (auto& [pid, r] : running_) kill(pid, SIGTERM);
  auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!running_.empty()) {
    const bool late = Clock::now() > deadline;
    for (auto it = running_.begin(); it != running_.end();) {
      if (late) kill(-it->first, SIGKILL), kill(it->first, SIGKILL);
      int ws = 0;
      pid_t got = waitpid(it->first, &ws, late ? 0 : WNOHANG);
      if (got == it->first || (got < 0 && errno == ECHILD)) {
        it = running_.erase(it);  // unfinished: no status.json, redone next time
      } else {
        ++it;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void Scheduler::KillOverdue() {
  for (auto& [pid, r] : running_) {
    if (!r.hard_killed && Clock::now() - r.start > hard_limit_) {
      r.hard_killed = true;
      kill(-pid, SIGKILL);  // its session: Puppet and strace outside the sandbox's namespace
      kill(pid, SIGKILL);
    }
  }
}

void Scheduler::Run() {
  Draw(true);
  while ((next_ < queue_.size() && *stop_ == 0) || !running_.empty()) {
    while (*stop_ == 0 && next_ < queue_.size() && static_cast<int>(running_.size()) < jobs_) {
      const Queued q = queue_[next_++];  // a copy: Finish may add to the queue
      Start(q);
    }
    Draw(false);
    const bool reaped = ReapEnded();
    if (*stop_ != 0 && !running_.empty()) {
      StopAll();
      break;
    }
    KillOverdue();
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

absl::StatusOr<ScanOutcome> RunScan(const ScanOptions& o, const volatile std::sig_atomic_t* stop) {
  ScanOutcome out;
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) return absl::InternalError(fmt::format("cannot create {}: {}", o.out_dir, ec.message()));

  std::vector<Queued> queue = QueueRuns(o, &out);
  const bool runs = !queue.empty();  // the queue only grows
  absl::StatusOr<std::string> work_parent = WorkParent(o, runs);
  if (!work_parent.ok()) return work_parent.status();
  base::ProgressLine progress(o.progress);
  Scheduler scheduler(o, stop, std::move(queue), *work_parent, &progress, &out);
  scheduler.Run();
  if (o.work_parent.empty() && runs) {
    // Interrupted checks' work directories go too: their sandboxes are gone with them.
    fs::remove_all(*work_parent, ec);
  }
  out.signal = *stop;
  progress.Clear();
  return out;
}

}  // namespace fsmove::scan
