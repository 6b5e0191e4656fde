// The supervisor's way of running programs in its sandbox; see sandbox_runner.h.
#include "fsmove/exec/sandbox_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "fmt/format.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/capabilities.h"

namespace fsmove::exec {

namespace {

using Clock = std::chrono::steady_clock;

// How long the drain of a program's output waits, once the program has ended, for the
// processes that outlived it and hold a copy of its output to close it.
constexpr std::chrono::milliseconds kDrainGrace{500};

}  // namespace

bool CopyBounded(int in, int out, size_t max) {
  char buf[1 << 16];
  size_t copied = 0;
  for (ssize_t got; copied < max && (got = read(in, buf, sizeof buf)) > 0;) {
    if (write(out, buf, static_cast<size_t>(got)) != got) return false;
    copied += static_cast<size_t>(got);
  }
  return true;
}

SandboxRunner::SandboxRunner(const SandboxSpec& spec, int out_dir, StatusWriter status)
    : spec_(spec), out_dir_(out_dir), status_(status), io_dir_(InsideWorkDir(spec)) {}

void SandboxRunner::Pivoted() {
  root_ = "/";
  io_dir_ = kSandboxWorkDir;
}

void SandboxRunner::CopyOut(const std::string& name, const std::string& out_name) const {
  if (out_dir_ < 0) return;
  int in = open(Inside(name).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (in < 0) return;
  struct stat st;
  if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(in);
    return;
  }
  int out = openat(out_dir_, (out_name.empty() ? name : out_name).c_str(),
                   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (out >= 0) {
    CopyBounded(in, out, kMaxOutBytes);
    close(out);
  }
  close(in);
}

void SandboxRunner::WriteOut(const std::string& name, std::string_view text) const {
  if (out_dir_ < 0) return;
  int out =
      openat(out_dir_, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (out < 0) return;
  for (size_t at = 0; at < text.size();) {
    ssize_t put = write(out, text.data() + at, text.size() - at);
    if (put <= 0) break;
    at += static_cast<size_t>(put);
  }
  close(out);
}

int SandboxRunner::OpenOut(const std::string& name, bool append) const {
  const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
  if (out_dir_ >= 0) return openat(out_dir_, name.c_str(), flags, 0644);
  return open(Inside(name).c_str(), flags, 0644);
}

absl::StatusOr<std::string> SandboxRunner::ReadOut(const std::string& name,
                                                   size_t max_bytes) const {
  if (out_dir_ >= 0) return base::ReadUntrustedFile(out_dir_, name, name, max_bytes);
  return base::ReadFile(Inside(name), "", max_bytes);
}

void SandboxRunner::RemoveOut(const std::string& name) const {
  if (out_dir_ >= 0) {
    unlinkat(out_dir_, name.c_str(), 0);
  } else {
    unlink(Inside(name).c_str());
  }
}

std::string SandboxRunner::TakeOut(const std::string& name, size_t max_bytes) const {
  std::string text = ReadOut(name, max_bytes).value_or("");
  RemoveOut(name);
  return text;
}

SpawnOptions SandboxRunner::InSandbox(int out_fd, int err_fd) const {
  SpawnOptions o;
  o.root = root_ == "/" ? "" : root_;
  o.cwd = "/";
  o.env = spec_.env;
  o.stdout_fd = out_fd;
  o.stderr_fd = err_fd;
  if (spec_.mode == SandboxMode::kOverlay) o.bounding_set = ModuleCapabilities();
  return o;
}

int SandboxRunner::RunToEnd(const std::vector<std::string>& argv, int out_fd, int err_fd) {
  auto pid = Spawn(argv, InSandbox(out_fd, err_fd));
  if (!pid.ok()) {
    status_.Send(status::Note{std::string(pid.status().message())});
    return 127 << 8;
  }
  return WaitReaping(*pid);
}

std::optional<int> SandboxRunner::RunDrained(const std::vector<std::string>& argv, OutputDrain* out,
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

std::unique_ptr<OutputDrain> SandboxRunner::DrainInto(const std::string& name, bool append,
                                                      uint64_t max_bytes) {
  absl::StatusOr<std::unique_ptr<OutputDrain>> drain =
      OutputDrain::Start(OpenOut(name, append), max_bytes);
  if (!drain.ok()) {
    status_.Send(
        status::Note{fmt::format("{} not kept: {}", name, std::string(drain.status().message()))});
    return nullptr;
  }
  return std::move(*drain);
}

int SandboxRunner::WaitReaping(pid_t pid) {
  for (;;) {
    int status = 0;
    pid_t r = waitpid(-1, &status, AnyDrainOpen() ? WNOHANG : 0);
    if (r == 0) {
      OutputDrain::PumpAll(draining_, 50);
      continue;
    }
    if (r < 0) {
      if (errno == EINTR) continue;
      return 255 << 8;  // ECHILD: it is gone already
    }
    Reaped(r, status);
    if (r == pid) return status;
  }
}

void SandboxRunner::Pause(std::chrono::milliseconds ms) {
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

void SandboxRunner::FinishDrains(const std::string& what) {
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

void SandboxRunner::ReapAvailable() {
  int status;
  pid_t r;
  while ((r = waitpid(-1, &status, WNOHANG)) > 0) Reaped(r, status);
}

bool SandboxRunner::AnyDrainOpen() const {
  return std::any_of(draining_.begin(), draining_.end(),
                     [](const OutputDrain* d) { return d != nullptr && d->open(); });
}

void SandboxRunner::Reaped(pid_t pid, int status) {
  if (pid == strace_pid_ && !strace_reaped_) {
    strace_reaped_ = true;
    strace_status_ = status;
  }
}

}  // namespace fsmove::exec
