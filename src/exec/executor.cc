// `fsmove check`'s executor; see executor.h.
#include "fsmove/exec/executor.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/memory_limit.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/trace_copy.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/report/output_file.h"
#include "fsmove/trace/line_reader.h"

namespace fsmove::exec {
namespace {

// Puppet's log of one run (--debug): large runs write tens of MB.
constexpr size_t kMaxPuppetLogBytes = size_t{512} << 20;

// An output the user named (--puppet-log, --save-catalog): written by us, from memory, whole
// (a temporary file renamed into place).
absl::Status WriteWholeFile(const std::string& path, std::string_view text) {
  return report::WriteOutputFile(path, text);
}

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::atomic<int> g_signal{0};

extern "C" void OnSignal(int sig) { g_signal.store(sig); }

// Ruby resolves every required file with readlink(2): ~330,000 calls before the first
// resource, the bulk of the tracing cost. Symlinks inside resource blocks are still seen
// through readlinkat, open, stat and the other calls of the table.
constexpr std::string_view kNotTraced[] = {"readlink"};

std::string Executable(const char* env_var, std::string_view name) {
  if (const char* e = std::getenv(env_var); e != nullptr && *e != '\0') return e;
  return FindExecutable(name, kSafePath).value_or(std::string(name));
}

// Progress lines on stderr: one line, rewritten in place.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress() { Clear(); }
  void Show(const std::string& text) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mu_);
    std::string line = text.size() > 100 ? text.substr(0, 97) + "..." : text;
    std::fprintf(stderr, "\r\x1b[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void Clear() {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (shown_) std::fprintf(stderr, "\r\x1b[K");
    std::fflush(stderr);
    shown_ = false;
  }

 private:
  bool enabled_;
  std::mutex mu_;
  bool shown_ = false;
};

// Reads the trace FIFO; once the run has ended (`stop` set) it waits at most `grace` for the
// last bytes, so that a writer that never closes cannot hang the analysis.
class FifoSource : public trace::ByteSource {
 public:
  FifoSource(int fd, const std::atomic<bool>* stop, std::chrono::seconds grace)
      : fd_(fd), stop_(stop), grace_(grace) {}
  ~FifoSource() override { close(fd_); }
  // Time spent in Read: waiting for strace's output (and reading it, which is cheap).
  double waited_seconds() const { return std::chrono::duration<double>(waited_).count(); }
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    // strace writes line by line; waking for each line would bounce between CPUs hundreds
    // of thousands of times. After a short read, let the (1 MB) pipe fill for a while.
    const auto wait_start = Clock::now();
    struct Waited {  // the time until data came counts as waiting for Puppet, not analysis
      Clock::duration* total;
      Clock::time_point start;
      ~Waited() { *total += Clock::now() - start; }
    } waited{&waited_, wait_start};
    if (last_read_short_) std::this_thread::sleep_for(std::chrono::milliseconds(3));
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      int r = poll(&p, 1, 200);
      if (r < 0 && errno != EINTR) return base::ErrnoStatus("poll on the trace FIFO");
      if (r > 0) {
        ssize_t got = read(fd_, buf, n);
        if (got >= 0) {
          last_read_short_ = static_cast<size_t>(got) < n / 4;
          return static_cast<size_t>(got);
        }
        if (errno != EINTR && errno != EAGAIN) return base::ErrnoStatus("read failed");
        continue;
      }
      if (stop_->load()) {
        if (!stop_seen_) {
          stop_seen_ = true;
          stop_at_ = Clock::now();
        } else if (Clock::now() - stop_at_ > grace_) {
          return 0;
        }
      }
    }
  }

 private:
  int fd_;
  const std::atomic<bool>* stop_;
  std::chrono::seconds grace_;
  bool stop_seen_ = false;
  bool last_read_short_ = false;
  Clock::time_point stop_at_;
  Clock::duration waited_{};
};

// What the supervisor said on the status pipe.
struct SupervisorReport {
  std::string phase;
  bool compiled = false;
  int compile_code = -1;
  double compile_seconds = 0;
  bool applied = false;
  int apply_code = -1;
  double apply_seconds = 0;
  std::string strace_end;
  std::vector<std::string> notes;
  std::vector<std::string> limits;  // limits the sandbox hit (also in notes)
  std::vector<std::string> errors;
  std::string catalog_text;  // taken as soon as it was compiled
  std::vector<Reapply> reapplies;
  std::vector<PathState> probes;
  std::vector<Daemon> daemons;
};

PathState PathStateFromJson(const nlohmann::json& j) {
  PathState p;
  if (!j.is_object()) return p;
  p.path = j.value("path", std::string());
  p.exists = j.value("exists", false);
  p.type = j.value("type", std::string());
  p.mode = j.value("mode", 0u);
  p.uid = j.value("uid", 0u);
  p.gid = j.value("gid", 0u);
  p.sha256 = j.value("sha256", std::string());
  p.size = j.value("size", uint64_t{0});
  p.target = j.value("target", std::string());
  p.error = j.value("error", std::string());
  p.mtime = j.value("mtime", 0.0);
  return p;
}

// The compiled catalog, read as an untrusted file and removed from the work directory (the
// supervisor waits for that before the apply), so nothing the module does later in the
// sandbox changes what the analysis reads.
void TakeCatalog(int work_fd, SupervisorReport* r) {
  auto text = base::ReadUntrustedFile(work_fd, kCatalogFile, "the compiled catalog",
                                         catalog::kMaxCatalogBytes);
  if (text.ok()) {
    r->catalog_text = std::move(*text);
  } else {
    r->errors.push_back(fmt::format("the compiled catalog: {}", std::string(text.status().message())));
  }
  unlinkat(work_fd, kCatalogFile, 0);
}

void HandleStatusLine(std::string_view line, SupervisorReport* r, Progress* progress,
                      int work_fd) {
  std::vector<std::string> f;
  for (size_t start = 0; start <= line.size();) {
    size_t end = std::min(line.find(' ', start), line.size());
    f.emplace_back(line.substr(start, end - start));
    start = end + 1;
  }
  if (f.empty()) return;
  if (f[0] == "phase" && f.size() >= 2) {
    r->phase = f[1];
    if (f[1] == "sandbox") progress->Show("setting up the sandbox...");
    if (f[1] == "boot") progress->Show("booting systemd...");
    if (f[1] == "compile") progress->Show("compiling the catalog...");
    if (f[1] == "prep") progress->Show("preparing the sandbox (apt caches)...");
    if (f[1] == "apply") progress->Show("applying the catalog under strace...");
    if (f[1].starts_with("reapply")) {
      progress->Show(fmt::format("applying the catalog again ({}), untraced...", f[1].substr(7)));
    }
  } else if (f[0] == "compiled" && f.size() >= 3) {
    r->compiled = true;
    r->compile_code = std::atoi(f[1].c_str());
    r->compile_seconds = std::atof(f[2].c_str());
    if (r->compile_code == 0) TakeCatalog(work_fd, r);
  } else if (f[0] == "applied" && f.size() >= 4) {
    r->applied = true;
    r->apply_code = std::atoi(f[1].c_str());
    r->apply_seconds = std::atof(f[2].c_str());
    r->strace_end = f[3];
    progress->Show("analysing...");
  } else if (f[0] == "reapplied" && f.size() >= 4) {
    Reapply a;
    a.index = std::atoi(f[1].c_str());
    a.exit_code = std::atoi(f[2].c_str());
    a.seconds = std::atof(f[3].c_str());
    r->reapplies.push_back(std::move(a));
  } else if (f[0] == "probe") {
    r->probes.push_back(PathStateFromJson(nlohmann::json::parse(
        line.substr(std::min<size_t>(6, line.size())), nullptr, /*allow_exceptions=*/false)));
  } else if (f[0] == "daemon" && f.size() >= 4) {
    Daemon d;
    d.pid = std::atoi(f[1].c_str());
    d.start = std::atof(f[2].c_str());
    const size_t at = f[0].size() + f[1].size() + f[2].size() + 3;
    d.comm = std::string(line.substr(std::min(at, line.size())));
    r->daemons.push_back(std::move(d));
  } else if (f[0] == "note") {
    r->notes.emplace_back(line.substr(std::min<size_t>(5, line.size())));
  } else if (f[0] == "limit") {
    r->limits.emplace_back(line.substr(std::min<size_t>(6, line.size())));
    r->notes.push_back(r->limits.back());
  } else if (f[0] == "error") {
    r->errors.emplace_back(line.substr(std::min<size_t>(6, line.size())));
  }
}

// Installs handlers for the signals that end a run and restores the old ones when the last
// scope ends: replays (--confirm) run several checks at once, and a signal ends them all.
class SignalScope {
 public:
  SignalScope() {
    std::lock_guard<std::mutex> lock(mu_);
    if (depth_++ > 0) return;
    g_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~SignalScope() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--depth_ > 0) return;
    for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  static inline std::mutex mu_;
  static inline int depth_ = 0;
  static inline struct sigaction old_[3];
};

// Puppet's expanded graph from the work directory, which the sandbox could write: the
// directory and the file are opened without following symlinks (the module under test runs
// as root in there), and the file must be regular and of reasonable size. --save-graph gets a
// copy of exactly what was read.
void ReadPuppetGraph(const std::string& work, const std::string& save_graph, RunResult* result) {
  result->puppet_graph_path = work + "/" + kGraphDir + "/" + kExpandedGraphFile;
  const int dir =
      open((work + "/" + kGraphDir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    result->puppet_graph_note =
        fmt::format("cannot open {}/{}: {}", work, kGraphDir, std::strerror(errno));
    return;
  }
  absl::StatusOr<std::string> text = graph::ReadPuppetGraphFile(dir, kExpandedGraphFile);
  close(dir);
  if (!text.ok()) {
    result->puppet_graph_note = fmt::format("Puppet's graph {}: {}", result->puppet_graph_path,
                                            std::string(text.status().message()));
    return;
  }
  result->puppet_graph = std::move(*text);
  if (save_graph.empty()) return;
  if (absl::Status st = WriteWholeFile(save_graph, result->puppet_graph); !st.ok()) {
    result->notes.push_back(fmt::format("cannot write Puppet's graph to {}: {}", save_graph,
                                        std::string(st.message())));
  }
}

}  // namespace

std::string ReapplyLogCopy(const std::string& puppet_log, int k) {
  if (puppet_log.ends_with(".log")) {
    return fmt::format("{}-apply-{}.log", puppet_log.substr(0, puppet_log.size() - 4), k);
  }
  return fmt::format("{}.apply-{}", puppet_log, k);
}

std::string DescribePathState(const PathState& p) {
  if (!p.error.empty()) return "unreadable (" + p.error + ")";
  if (!p.exists) return "absent";
  std::string text = fmt::format("{} {:04o} {}:{}", p.type, p.mode, p.uid, p.gid);
  if (p.type == "symlink") text += " -> " + p.target;
  if (p.type == "file") {
    text += fmt::format(", {} bytes", p.size);
    if (!p.sha256.empty()) text += ", sha256 " + p.sha256.substr(0, 12);
  }
  return text;
}

std::string PuppetExecutable() { return Executable("FSMOVE_PUPPET", "puppet"); }
std::string StraceExecutable() { return Executable("FSMOVE_STRACE", "strace"); }

std::vector<std::string> StraceArguments(const std::string& strace, const std::string& output,
                                         bool full_trace) {
  // -D: Puppet stays the supervisor's own child (its exit status is exact) and the tracer is
  // a detached grandchild. -s 65535: marker titles are never cut. -I2: fatal signals are
  // blocked only while a call is decoded, so SIGINT makes strace detach cleanly.
  std::vector<std::string> argv = {strace, "-D", "-f", "-s", "65535", "-I2"};
  if (!full_trace) {
    std::string list = "trace=";
    for (std::string_view name : fstrace::ModelledSyscalls()) {
      if (std::find(std::begin(kNotTraced), std::end(kNotTraced), name) != std::end(kNotTraced)) {
        continue;
      }
      if (list.size() > 6) list += ',';
      // '?': a name this strace or architecture does not know (stat64 on x86_64) is skipped.
      list += '?';
      list += name;
    }
    argv.insert(argv.end(), {"--seccomp-bpf", "-e", list});
  }
  argv.insert(argv.end(), {"-o", output, "--"});
  return argv;
}

std::string CertName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "localhost";
  std::string name = host;
  addrinfo hints{};
  hints.ai_flags = AI_CANONNAME;
  hints.ai_family = AF_UNSPEC;
  addrinfo* res = nullptr;
  if (getaddrinfo(host, nullptr, &hints, &res) == 0 && res != nullptr) {
    if (res->ai_canonname != nullptr && *res->ai_canonname != '\0') name = res->ai_canonname;
    freeaddrinfo(res);
  }
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

absl::Status Preflight(const CheckRequest& request) {
  std::string puppet = PuppetExecutable(), strace = StraceExecutable();
  if (!request.root.host() && request.sandbox != SandboxMode::kOverlay) {
    return absl::FailedPreconditionError(
        "--root needs the overlay sandbox (it is the sandbox's lower layer)");
  }
  if (request.init == "systemd" && request.sandbox != SandboxMode::kOverlay) {
    return absl::FailedPreconditionError("--init systemd needs the overlay sandbox");
  }
  // A pinned root brings its own Puppet and strace; this machine's strace, if it has one,
  // still tells whether ptrace is permitted here.
  if (!request.root.host() && access(strace.c_str(), X_OK) != 0) strace.clear();
  if (request.root.host() && access(puppet.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "puppet not found ({}): install it with `apt-get install puppet-agent` (Debian 12; or "
        "run tools/bootstrap), or set FSMOVE_PUPPET to its path",
        puppet.find('/') == std::string::npos ? std::string(kSafePath) : puppet));
  }
  if (!strace.empty() && access(strace.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "strace not found ({}): install it with `apt-get install strace` (or run "
        "tools/bootstrap), or set FSMOVE_STRACE to its path",
        strace.find('/') == std::string::npos ? std::string(kSafePath) : strace));
  }
  if (request.sandbox == SandboxMode::kOverlay && geteuid() != 0) {
    return absl::FailedPreconditionError(
        "the overlay sandbox needs root (mount and PID namespaces, overlayfs, chroot): run "
        "fsmove as root, or use --sandbox none to apply the module to this machine itself");
  }
  if (strace.empty()) return absl::OkStatus();
  // ptrace may be refused (a container's seccomp profile, kernel.yama.ptrace_scope=3).
  auto run = RunCaptured({strace, "-f", "-qq", "-e", "trace=none", "-o", "/dev/null", "--",
                          "/bin/true"},
                         PuppetEnvironment(), 4096);
  if (!run.ok()) {
    return absl::FailedPreconditionError(
        fmt::format("cannot run {}: {}", strace, std::string(run.status().message())));
  }
  if (run->wait_status != 0) {
    std::string err = run->err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    return absl::FailedPreconditionError(fmt::format(
        "strace cannot trace processes here ({}{}{}). ptrace is probably not permitted: in a "
        "container, run it with --cap-add SYS_PTRACE --security-opt seccomp=unconfined; on a "
        "host, check kernel.yama.ptrace_scope (0 or 1 needed)",
        DescribeWaitStatus(run->wait_status), err.empty() ? "" : ": ", err));
  }
  return absl::OkStatus();
}

absl::StatusOr<RunResult> RunCheck(const CheckRequest& request, analysis::Analyzer& analyzer) {
  auto target = ResolveTarget(request.target);
  if (!target.ok()) return target.status();
  // Outputs that cannot be written are reported before anything runs.
  std::unique_ptr<TraceCopy> copy;
  if (!request.save_trace.empty()) {
    auto c = TraceCopy::Create(request.save_trace);
    if (!c.ok()) return c.status();
    copy = std::move(*c);
  }
  RunResult result;
  result.dependencies = target->dependencies;
  result.summary.target = target->display;
  result.summary.sandbox = request.sandbox == SandboxMode::kOverlay ? "overlay" : "none";
  result.summary.root = request.root.name;
  result.summary.puppet_version = request.root.puppet_version;
  result.summary.init = request.init;

  // ---- the work directory: manifest, module link, FIFO, catalog, logs ----
  std::string parent = request.work_parent;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string tmpl = parent + "/fsmove-check.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr)
    return base::ErrnoStatus(fmt::format("cannot create {}", tmpl));
  // Private (mkdtemp's 0700): it holds the catalog and Puppet's log, which can hold secrets.
  // The sandbox and Puppet run as root, the owner without a sandbox.
  const std::string work = tmpl;
  result.work_dir = work;
  // The work directory as a directory fd: files code in the sandbox could have replaced are
  // opened relative to it, never through a symlink.
  const int work_fd = open(work.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (work_fd < 0) return base::ErrnoStatus(fmt::format("cannot open {}", work));
  struct WorkFdCloser {
    int fd;
    ~WorkFdCloser() { close(fd); }
  } work_fd_closer{work_fd};

  SandboxSpec spec;
  spec.mode = request.sandbox;
  spec.work_dir = work;
  spec.scratch_dir = work + "/sandbox";
  spec.input_paths = target->input_paths;
  spec.policy_rc = request.policy_rc;
  spec.prep = request.prep;
  spec.keep_dir = request.keep_sandbox;
  spec.memory_limit = request.memory_limit;
  static std::atomic<unsigned> runs{0};
  // A cgroup for the memory limit, for systemd, and without the sandbox for the process tree.
  if (spec.memory_limit > 0 || request.init == "systemd" || spec.mode == SandboxMode::kNone) {
    spec.cgroup_name = MemoryCgroupName(++runs);
  }
  spec.lower_dir = request.root.dir;
  spec.init = request.init;
  spec.reapplies = request.reapplies;
  spec.probe_paths = request.probe_paths;
  spec.restore_paths = request.restore_paths;
  spec.env = PuppetEnvironment();
  if (request.pin_cpu && request.sandbox == SandboxMode::kOverlay && !request.untraced) {
    spec.trace_cpu = TracingCpu();
    if (spec.trace_cpu >= 0) {
      result.notes.push_back(fmt::format("strace and the traced apply ran on CPU {}", spec.trace_cpu));
    }
  }
  const std::string inside = InsideWorkDir(spec);
  if (spec.mode == SandboxMode::kOverlay) mkdir(spec.scratch_dir.c_str(), 0700);

  mkdir((work + "/" + kGraphDir).c_str(), 0755);

  std::string manifest = target->manifest_path;
  if (!target->manifest_text.empty()) {
    std::ofstream(work + "/" + kManifestFile) << target->manifest_text;
    manifest = inside + "/" + kManifestFile;
  }
  std::vector<std::string> modulepath;
  if (!target->manifest_text.empty()) {
    result.manifest_paths.emplace_back(inside + "/" + kManifestFile, work + "/" + kManifestFile);
  }
  if (target->link_module) {
    result.manifest_paths.emplace_back(inside + "/" + kModuleLinks + "/" + target->module_name + "/",
                                       target->module_dir + "/");
    std::string links = work + "/" + kModuleLinks;
    mkdir(links.c_str(), 0755);
    if (symlink(target->module_dir.c_str(), (links + "/" + target->module_name).c_str()) != 0) {
      return base::ErrnoStatus(fmt::format("cannot link the module into {}", links));
    }
    modulepath.push_back(inside + "/" + kModuleLinks);
  }
  modulepath.insert(modulepath.end(), target->modulepath.begin(), target->modulepath.end());
  std::string mp;
  for (const auto& m : modulepath) mp += (mp.empty() ? "" : ":") + m;

  // On a pinned root, its own Puppet and strace (the sandbox runs them after pivot_root).
  const std::string puppet = request.root.host() ? PuppetExecutable() : kRootPuppet;
  if (request.apply_catalog.empty()) {
    spec.compile_argv = {puppet, "catalog", "find", "--terminus", "compiler", "--render-as",
                         "json", "--log_level", "err", "--manifest", manifest};
    if (!mp.empty()) spec.compile_argv.insert(spec.compile_argv.end(), {"--modulepath", mp});
    spec.compile_argv.push_back(CertName());
  } else if (absl::Status st = report::WriteOutputFile(work + "/" + kCatalogFile, request.apply_catalog);
             !st.ok()) {
    return st;
  }
  if (!request.untraced) {
    spec.strace_argv =
        StraceArguments(request.root.host() ? StraceExecutable() : kRootStrace,
                        inside + "/" + kTraceFifo, request.full_trace);
    // With systemd as PID 1, strace also follows it: the daemons a Service's `systemctl
    // start` asks for are PID 1's children. (The kernel-side filter only holds for Puppet's
    // own processes: those of PID 1 stop at every call.)
    if (request.init == "systemd") {
      spec.strace_argv.insert(spec.strace_argv.end() - 1, {"-p", "1"});
    }
  }
  // The catalog's custom types and providers load from the modulepath at apply time too.
  // --graph: Puppet writes the relationship graph it applies (expanded_relationships.dot)
  // before evaluating anything; we read it after the run, as an untrusted file.
  spec.apply_argv = {puppet,        "apply",   "--catalog",  inside + "/" + kCatalogFile, "--debug",
                     "--evaltrace", "--graph", "--graphdir", inside + "/" + kGraphDir};
  if (!mp.empty()) spec.apply_argv.insert(spec.apply_argv.end(), {"--modulepath", mp});
  const std::string spec_path = work + "/spec.json";
  std::ofstream(spec_path) << SandboxSpecToJson(spec).dump(2) << "\n";

  // ---- the trace FIFO: we hold a writer ourselves until the run is over, so the reader
  // neither blocks on open nor sees end-of-file before strace has opened it ----
  const std::string fifo = work + "/" + kTraceFifo;
  if (mkfifo(fifo.c_str(), 0600) != 0) return base::ErrnoStatus(fmt::format("mkfifo {}", fifo));
  int fifo_rd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fifo_rd < 0) return base::ErrnoStatus(fmt::format("open {}", fifo));
  int fifo_wr = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  if (fifo_wr < 0) {
    close(fifo_rd);
    return base::ErrnoStatus(fmt::format("open {}", fifo));
  }
  fcntl(fifo_rd, F_SETFL, fcntl(fifo_rd, F_GETFL) & ~O_NONBLOCK);
  fcntl(fifo_rd, F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups; best effort

  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) return base::ErrnoStatus("pipe");

  Progress progress(request.progress);
  SignalScope signals;
  // ---- the sandbox keeper: a fresh fsmove process, in its own session (Ctrl-C reaches only
  // us, and we end the run in order) that dies with us ----
  pid_t keeper = fork();
  if (keeper < 0) return base::ErrnoStatus("fork");
  if (keeper == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setsid();
    dup2(status_pipe[1], 3);  // dup2 clears close-on-exec on 3
    std::string fd = "3";
    char* argv[] = {const_cast<char*>("fsmove"), const_cast<char*>("__sandbox"),
                    const_cast<char*>(spec_path.c_str()), fd.data(), nullptr};
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &dfl, nullptr);
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  close(status_pipe[1]);

  std::atomic<bool> run_over{false};
  SupervisorReport report;
  bool timed_out = false;
  int interrupted_by = 0;
  int keeper_status = 0;
  const auto start = Clock::now();
  std::thread watcher([&] {
    const auto deadline = start + std::chrono::seconds(request.timeout_seconds);
    std::string buf;
    bool killed = false;
    for (;;) {
      pollfd p{status_pipe[0], POLLIN, 0};
      int r = poll(&p, 1, 100);
      if (r > 0) {
        char chunk[4096];
        ssize_t got = read(status_pipe[0], chunk, sizeof chunk);
        if (got == 0) break;
        if (got > 0) {
          buf.append(chunk, static_cast<size_t>(got));
          size_t nl;
          while ((nl = buf.find('\n')) != std::string::npos) {
            HandleStatusLine(std::string_view(buf).substr(0, nl), &report, &progress, work_fd);
            buf.erase(0, nl + 1);
          }
        }
      }
      if (!killed && (g_signal.load() != 0 || Clock::now() > deadline)) {
        if (g_signal.load() != 0) {
          interrupted_by = g_signal.load();
        } else {
          timed_out = true;
        }
        // The keeper's session holds the supervisor (and, without namespaces, Puppet and
        // strace); with namespaces its death kills PID 1 and so every process in them.
        kill(-keeper, SIGKILL);
        kill(keeper, SIGKILL);
        killed = true;
      }
    }
    while (waitpid(keeper, &keeper_status, 0) < 0 && errno == EINTR) {
    }
    // A keeper that was killed could not remove the sandbox's memory cgroup.
    if (killed && !spec.cgroup_name.empty()) {
      RemoveLeftoverMemoryLimit(spec.cgroup_name);
      if (spec.init == "systemd") RemoveLeftoverSystemdCgroup(spec.cgroup_name + "-init");
    }
    close(status_pipe[0]);
    close(fifo_wr);
    run_over.store(true);
  });

  // ---- analysis, while Puppet runs ----
  auto fifo_source = std::make_unique<FifoSource>(fifo_rd, &run_over,
                                                  std::chrono::seconds(request.untraced ? 0 : 10));
  const FifoSource* fifo_reader = fifo_source.get();
  std::unique_ptr<trace::ByteSource> source = std::move(fifo_source);
  if (copy) source = TeeByteSource(std::move(source), copy.get());
  trace::LineReader reader(std::move(source), "strace output of puppet apply", {});
  analyzer.set_marker_observer([&](const trace::Marker& m, uint64_t) {
    if (m.kind != trace::MarkerKind::kBegin) return;
    progress.Show(m.total ? fmt::format("resource {} of {}: {}", m.index, m.total, m.ref)
                          : fmt::format("resource: {}", m.ref));
  });
  auto t0 = Clock::now();
  absl::Status read_status = analyzer.Run(reader);
  // The analysis runs while Puppet compiles and applies: its own time is what was not spent
  // waiting for the trace (the reader lives as long as the analyzer's line reader).
  result.analysis_seconds = std::max(0.0, std::chrono::duration<double>(Clock::now() - t0).count() -
                                              fifo_reader->waited_seconds());
  watcher.join();
  analyzer.set_marker_observer(nullptr);
  progress.Clear();
  if (copy) {
    absl::Status st = copy->Close();
    if (!st.ok()) result.notes.push_back(std::string(st.message()));
  }
  if (!read_status.ok()) {
    result.notes.push_back(
        fmt::format("reading the trace: {}", std::string(read_status.message())));
  }

  unlink(fifo.c_str());
  unlink(spec_path.c_str());
  if (spec.mode == SandboxMode::kOverlay) rmdir(spec.scratch_dir.c_str());

  // ---- what happened ----
  if (timed_out && report.applied && report.phase.starts_with("reapply")) {
    // The traced apply was over: the check stands; only the idempotence check is cut short.
    timed_out = false;
    report.notes.push_back(fmt::format("--timeout stopped apply {} of the idempotence check",
                                       report.phase.substr(7)));
    result.reapplies_cut_short = true;
  }
  result.notes.insert(result.notes.begin(), report.notes.begin(), report.notes.end());
  result.summary.limits_hit = report.limits;
  report::RunSummary& s = result.summary;
  s.compile_seconds = report.compile_seconds;
  s.apply_seconds = report.apply_seconds;
  s.puppet_exit_code = report.apply_code;
  s.strace_end = report.strace_end;
  s.timed_out = timed_out;
  if (timed_out) s.timed_out_phase = report.phase.empty() ? "sandbox" : report.phase;
  s.puppet_log = work + "/" + kPuppetLog;
  // Code in the sandbox may have replaced the log (a symlink to a root-only host file, a
  // FIFO): read it as an untrusted file, and write the copy ourselves.
  absl::StatusOr<std::string> log_text =
      base::ReadUntrustedFile(work_fd, kPuppetLog, "Puppet's log", kMaxPuppetLogBytes);
  if (!log_text.ok() && !absl::IsNotFound(log_text.status())) {
    result.notes.push_back(fmt::format("Puppet's log not read: {}", std::string(log_text.status().message())));
  }
  if (!request.puppet_log.empty() && log_text.ok()) {
    if (absl::Status st = WriteWholeFile(request.puppet_log, *log_text); !st.ok()) {
      result.notes.push_back(fmt::format("cannot copy Puppet's log to {}: {}", request.puppet_log,
                                         std::string(st.message())));
    } else {
      s.puppet_log = request.puppet_log;
    }
  }
  if (log_text.ok()) {
    PuppetLogSummary log = SummarisePuppetLog(*log_text);
    // Each resource's outcome only for those who compare them: --idempotence, replays.
    if (request.reapplies > 0 || !request.apply_catalog.empty()) {
      result.outcomes = ParseApplyOutcomes(*log_text, log.failed);
    }
    s.failed = std::move(log.failed);
    s.errors = std::move(log.errors);
  }
  for (Reapply& a : report.reapplies) {
    const std::string name = ReapplyLogName(a.index);
    absl::StatusOr<std::string> text =
        base::ReadUntrustedFile(work_fd, name, "Puppet's log", kMaxPuppetLogBytes);
    if (!text.ok()) {
      result.notes.push_back(fmt::format("the log of apply {} not read: {}", a.index,
                                         std::string(text.status().message())));
      continue;
    }
    a.outcomes = ParseApplyOutcomes(*text);
    if (request.puppet_log.empty()) continue;
    const std::string copy = ReapplyLogCopy(request.puppet_log, a.index);
    if (absl::Status st = WriteWholeFile(copy, *text); !st.ok()) {
      result.notes.push_back(fmt::format("cannot copy the log of apply {} to {}: {}", a.index, copy,
                                         std::string(st.message())));
    }
  }
  result.reapplies = std::move(report.reapplies);
  result.probes = std::move(report.probes);
  result.daemons = std::move(report.daemons);
  s.trace_complete = analyzer.stats().first_pid_exited &&
                     !std::string_view(report.strace_end).starts_with("died");
  if (s.strace_end.empty()) s.strace_end = "unknown";
  result.catalog_text = std::move(report.catalog_text);
  // Messages name the catalog as the user can open it: the work directory's copy was removed
  // as soon as it was read.
  result.catalog_path = "the compiled catalog (not kept: --save-catalog FILE keeps it)";
  if (!request.save_catalog.empty() && !result.catalog_text.empty()) {
    if (absl::Status st = WriteWholeFile(request.save_catalog, result.catalog_text); !st.ok()) {
      result.notes.push_back(
          fmt::format("cannot copy the catalog to {}: {}", request.save_catalog, std::string(st.message())));
    } else {
      result.catalog_path = request.save_catalog;
    }
  }

  ReadPuppetGraph(work, request.save_graph, &result);

  result.summary.notes = result.notes;
  if (interrupted_by != 0) {
    result.end = RunEnd::kInterrupted;
    result.signal = interrupted_by;
  } else if (!report.errors.empty()) {
    result.end = RunEnd::kSetupFailed;
    result.error = report.errors.front();
  } else if (report.compiled && report.compile_code != 0) {
    result.end = RunEnd::kCompileFailed;
    result.compile_log = base::ReadFile(work + "/" + kCompileLog).value_or("");
  } else if (timed_out) {
    result.end = RunEnd::kTimedOut;
  } else if (!report.applied) {
    result.end = RunEnd::kSetupFailed;
    result.error = fmt::format("the sandbox ended before Puppet finished ({})",
                               DescribeWaitStatus(keeper_status));
  } else {
    result.end = RunEnd::kApplied;
  }
  return result;
}

absl::StatusOr<catalog::Catalog> LoadRunCatalog(const RunResult& run) {
  std::string text = run.catalog_text;
  if (run.manifest_paths.empty()) return catalog::Catalog::LoadString(text, run.catalog_path);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("resources") && j["resources"].is_array()) {
    for (auto& r : j["resources"]) {
      if (!r.is_object() || !r.contains("file") || !r["file"].is_string()) continue;
      std::string file = r["file"].get<std::string>();
      for (const auto& [inside, host] : run.manifest_paths) {
        if (file.starts_with(inside)) {
          r["file"] = host + file.substr(inside.size());
          break;
        }
      }
    }
    text = j.dump();
  }  // else: the loader reports what is wrong with the original text
  return catalog::Catalog::LoadString(text, run.catalog_path);
}

}  // namespace fsmove::exec
