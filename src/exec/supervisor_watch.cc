// Watching the sandbox keeper; see supervisor_watch.h.
#include "fsmove/exec/supervisor_watch.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/memory_limit.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/sandbox.h"

extern char** environ;

namespace fsmove::exec {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int> g_signal{0};

extern "C" void OnSignal(int sig) { g_signal.store(sig); }

// The compiled catalog, read as an untrusted file and removed from the work directory (the
// supervisor waits for that before the apply), so nothing the module does later in the
// sandbox changes what the analysis reads.
void TakeCatalog(int work_fd, SupervisorReport* r) {
  auto text = base::ReadUntrustedFile(
      work_fd, kCatalogFile, "the compiled catalog",
      static_cast<size_t>(std::min<uint64_t>(r->max_catalog_bytes, catalog::kMaxCatalogBytes)));
  if (text.ok()) {
    r->catalog_text = std::move(*text);
  } else if (absl::IsResourceExhausted(text.status())) {
    // Not an error of the run: fsmove's own budget, said once the run is over (exit 3).
    r->catalog_limit_hit = base::BudgetHit{base::BudgetLimit::kCatalogBytes, r->max_catalog_bytes,
                                           "the compiled catalog"};
  } else {
    r->errors.push_back(
        fmt::format("the compiled catalog: {}", std::string(text.status().message())));
  }
  unlinkat(work_fd, kCatalogFile, 0);
}

std::string PhaseProgress(std::string_view phase) {
  if (phase == "sandbox") return "setting up the sandbox...";
  if (phase == "boot") return "booting systemd...";
  if (phase == "compile") return "compiling the catalog...";
  if (phase == "prep") return "preparing the sandbox (apt caches)...";
  if (phase == "apply") return "applying the catalog under strace...";
  if (phase.starts_with("reapply")) {
    return fmt::format("applying the catalog again ({}), untraced...", phase.substr(7));
  }
  return "";
}

// Each phase enters a sandbox of its own and says what it set up there (its network, say):
// a note or warning said again is kept once (a limit hit in each phase is kept twice).
void AddOnce(std::vector<std::string>& list, const std::string& text) {
  if (std::find(list.begin(), list.end(), text) == list.end()) list.push_back(text);
}

}  // namespace

// Installs handlers for the signals that end a run and restores the old ones when the last
// scope ends: replays (--confirm) run several checks at once, and a signal ends them all.
class SupervisorWatch::SignalScope {
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

void SupervisorReport::Take(const StatusMessage& message, base::ProgressLine& progress,
                            int work_fd) {
  if (const auto* m = std::get_if<status::Phase>(&message)) {
    phase = m->name;
    phase_started = Clock::now();
    if (std::string text = PhaseProgress(phase); !text.empty()) progress.Show(text);
  } else if (const auto* m = std::get_if<status::Compiled>(&message)) {
    compiled = true;
    compile_code = m->exit_code;
    compile_seconds = m->seconds;
    if (compile_code == 0) TakeCatalog(work_fd, this);
  } else if (const auto* m = std::get_if<status::Applied>(&message)) {
    applied = true;
    apply_code = m->exit_code;
    apply_seconds = m->seconds;
    strace_end = m->strace_end;
    progress.Show("analysing...");
  } else if (const auto* m = std::get_if<status::Reapplied>(&message)) {
    reapplies.push_back(*m);
  } else if (const auto* m = std::get_if<status::Probe>(&message)) {
    probes.push_back(m->state);
  } else if (const auto* m = std::get_if<status::LeftRunning>(&message)) {
    daemons.push_back(m->daemon);
  } else if (const auto* m = std::get_if<status::Observed>(&message)) {
    observed.push_back(m->observation);
  } else if (const auto* m = std::get_if<status::Skipped>(&message)) {
    if (skipped.size() < kMaxFailedUnits) skipped.push_back(*m);
  } else if (const auto* m = std::get_if<status::Note>(&message)) {
    AddOnce(notes, m->text);
  } else if (const auto* m = std::get_if<status::Warning>(&message)) {
    AddOnce(warnings, m->text);
    AddOnce(notes, m->text);
  } else if (const auto* m = std::get_if<status::Limit>(&message)) {
    limits.push_back(m->text);  // each phase's hit: the report says where each limit was hit
    AddOnce(notes, m->text);
  } else if (const auto* m = std::get_if<status::Error>(&message)) {
    errors.push_back(m->text);
  }
}

SupervisorWatch::SupervisorWatch(SupervisorWatchOptions options)
    : options_(std::move(options)), signals_(std::make_unique<SignalScope>()) {
  report_.max_catalog_bytes = options_.max_catalog_bytes;
}

SupervisorWatch::~SupervisorWatch() {
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<std::unique_ptr<SupervisorWatch>> SupervisorWatch::Start(
    SupervisorWatchOptions options) {
  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) return base::ErrnoStatus("pipe");
  std::unique_ptr<SupervisorWatch> watch(new SupervisorWatch(std::move(options)));
  // The keeper: a fresh fsmove process (single-threaded when it unshares namespaces), in its
  // own session (Ctrl-C reaches only us, and we end the run in order), that dies with us.
  // Its environment is a clean one: nothing of fsmove's own (a CI token) is in reach of what
  // runs in the sandbox, through /proc/1/environ or otherwise.
  SpawnOptions spawn;
  spawn.env = {fmt::format("PATH={}", kSafePath), "LANG=C.UTF-8"};
  spawn.new_session = true;
  spawn.death_signal = SIGKILL;
  spawn.inherit_fd = status_pipe[1];
  absl::StatusOr<pid_t> keeper = Spawn(
      {"/proc/self/exe", "__sandbox", watch->options_.spec_path, std::to_string(status_pipe[1])},
      spawn);
  close(status_pipe[1]);
  if (!keeper.ok()) {
    close(status_pipe[0]);
    return keeper.status();
  }
  watch->thread_ =
      std::thread([w = watch.get(), fd = status_pipe[0], pid = *keeper] { w->Watch(fd, pid); });
  return watch;
}

void SupervisorWatch::Watch(int status_fd, int keeper) {
  const auto deadline = Clock::now() + std::chrono::seconds(options_.timeout_seconds);
  base::ProgressLine none(false);
  base::ProgressLine& progress = options_.progress != nullptr ? *options_.progress : none;
  StatusReader reader;
  bool killed = false;
  for (;;) {
    pollfd p{status_fd, POLLIN, 0};
    int r = poll(&p, 1, 100);
    if (r > 0) {
      char chunk[4096];
      ssize_t got = read(status_fd, chunk, sizeof chunk);
      if (got == 0) break;
      if (got > 0) {
        reader.Append(std::string_view(chunk, static_cast<size_t>(got)));
        absl::StatusOr<StatusMessage> message;
        while (reader.Next(&message)) {
          if (message.ok()) {
            report_.Take(*message, progress, options_.work_fd);
          } else {
            report_.notes.emplace_back(message.status().message());
          }
        }
      }
    }
    if (!killed && (g_signal.load() != 0 || Clock::now() > deadline)) {
      if (g_signal.load() != 0) {
        report_.interrupted_by = g_signal.load();
      } else {
        report_.timed_out = true;
      }
      if (report_.phase == "apply" && !report_.applied) {
        report_.apply_seconds =
            std::chrono::duration<double>(Clock::now() - report_.phase_started).count();
      }
      // The keeper's session holds the supervisor (and, without namespaces, Puppet and
      // strace); with namespaces its death kills PID 1 and so every process in them.
      kill(-keeper, SIGKILL);
      kill(keeper, SIGKILL);
      killed = true;
    }
  }
  while (waitpid(keeper, &report_.keeper_status, 0) < 0 && errno == EINTR) {
  }
  // A keeper that was killed could not remove the sandbox's memory cgroup.
  if (killed && !options_.cgroup_name.empty()) {
    RemoveLeftoverMemoryLimit(options_.cgroup_name);
    if (options_.systemd) RemoveLeftoverSystemdCgroup(options_.cgroup_name + "-init");
  }
  close(status_fd);
  if (options_.on_end) options_.on_end();
}

SupervisorReport& SupervisorWatch::Join() {
  if (thread_.joinable()) thread_.join();
  return report_;
}

}  // namespace fsmove::exec
