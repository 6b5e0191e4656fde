// --init systemd: systemd as the sandbox's PID 1; see systemd_boot.h.
#include "fsmove/exec/systemd_boot.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <span>
#include <thread>

#include "fmt/format.h"
#include "fsmove/base/split.h"
#include "fsmove/exec/capabilities.h"
#include "fsmove/exec/output_drain.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/sandbox.h"

namespace fsmove::exec {

SystemState ClassifySystemState(std::string_view printed) {
  while (!printed.empty() && (printed.back() == '\n' || printed.back() == ' ')) {
    printed.remove_suffix(1);
  }
  if (printed == "running" || printed == "degraded") return SystemState::kBooted;
  if (printed == "maintenance" || printed == "stopping") {
    return SystemState::kDown;
  }
  return SystemState::kBooting;
}

void MaskConsoleUnits(const std::string& root) {
  for (const char* unit :
       {"console-getty.service", "getty@.service", "getty.target", "systemd-logind.service"}) {
    const std::string mask = root + "/etc/systemd/system/" + unit;
    unlink(mask.c_str());
    (void)!symlink("/dev/null", mask.c_str());
  }
}

std::vector<std::string> SystemdArgv() {
  return {kSystemdPath, "--log-target=console", "--show-status=no"};
}

std::vector<std::string> SystemdEnvironment() {
  return {"container=fsmove", fmt::format("PATH={}", kSafePath), "LANG=C.UTF-8"};
}

std::vector<std::string> UnitsSkippedSince(std::string_view show, uint64_t since_usec) {
  std::vector<std::string> out;
  std::string id;
  bool unmet = false;
  uint64_t tested = 0;
  auto end_block = [&] {
    if (!id.empty() && unmet && tested != 0 && tested >= since_usec &&
        out.size() < kMaxFailedUnits) {
      out.push_back(id);
    }
    id.clear();
    unmet = false;
    tested = 0;
  };
  for (std::string_view line : base::Split(show, '\n')) {
    if (line.empty()) {
      end_block();
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "Id") {
      id = std::string(value);
    } else if (key == "ConditionResult") {
      unmet = value == "no";
    } else if (key == "ConditionTimestampMonotonic") {
      std::from_chars(value.data(), value.data() + value.size(), tested);
    }
  }
  end_block();
  return out;
}

std::string UnmetCondition(std::string_view printed) {
  static constexpr std::string_view kNotMet = " was not met", kFailed = " failed.";
  for (std::string_view line : base::Split(printed, '\n')) {
    // systemctl status: "             └─ ConditionVirtualization=!container was not met";
    // systemd-analyze condition: "x.service: ConditionPathExists=/etc/x failed."
    const bool not_met = line.ends_with(kNotMet);
    if (!not_met && !line.ends_with(kFailed)) continue;
    const size_t start = std::min(line.find(" Condition"), line.find(" Assert"));
    if (start == std::string_view::npos) continue;
    line.remove_prefix(start + 1);
    line.remove_suffix(not_met ? kNotMet.size() : kFailed.size());
    if (line.find('=') == std::string_view::npos) continue;
    return std::string(line.substr(0, 200)) + std::string(kNotMet);
  }
  return "";
}

bool WaitForSystemdBoot(const std::vector<std::string>& env, std::string_view for_what,
                        const StatusWriter& status) {
  using Clock = std::chrono::steady_clock;
  status.Send(status::Phase{"boot"});
  const auto t0 = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  std::string state;
  SystemState seen = SystemState::kBooting;
  while (seconds() < 60 && seen == SystemState::kBooting) {
    auto run =
        RunCaptured({"timeout", "60", "systemctl", "is-system-running", "--wait"}, env, 4096);
    if (run.ok()) {
      state = run->out;
      while (!state.empty() && (state.back() == '\n' || state.back() == ' ')) state.pop_back();
      seen = ClassifySystemState(state);
    }
    if (seen == SystemState::kBooting) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (seen != SystemState::kBooted) {
    status.Send(status::Error{
        fmt::format("systemd did not boot{}{} (state '{}'; its log: the run's work directory's "
                    "{}/{})",
                    for_what, seen == SystemState::kDown ? "" : " within 60 s", state, kOutDir,
                    for_what.empty() ? kSystemdLog : kCompileSystemdLog)});
    return false;
  }
  status.Send(
      status::Note{fmt::format("systemd booted ({}) in {:.1f} s{}", state, seconds(), for_what)});
  return true;
}

namespace {

// systemd's log, written to the console (`console`: the master of the sandbox's
// /dev/console, taken), copied into `log` (the out directory's file, taken) by a process of
// its own: PID 1 is systemd itself, and the check's own process waits on programs for
// minutes. The drainer is a fork of the undumpable supervisor, so nothing in the sandbox can
// open its descriptors; it holds the console open itself, so that the master reads on while
// systemd has it closed between messages, and dies with PID 1.
//
// Module code can open the console too and stop its output (tcflow(TCOOFF), or an XOFF with
// IXON set): PID 1's next log line would then block systemd, and with it every systemctl the
// apply waits on, until the check's timeout. Four times a second the drainer starts the
// output again through the console it holds (TCOON; clearing IXON restarts an XOFF's stop).
void ResumeConsole(int held) {
  if (held < 0) return;
  tcflow(held, TCOON);
  termios t;
  if (tcgetattr(held, &t) == 0 && (t.c_iflag & IXON) != 0) {
    t.c_iflag &= ~static_cast<tcflag_t>(IXON);
    tcsetattr(held, TCSANOW, &t);
  }
}

void StartSystemdLogDrain(int console, int log, const StatusWriter& status) {
  const pid_t drainer = fork();
  if (drainer < 0) {
    status.Send(
        status::Note{fmt::format("{} not kept: fork: {}", kSystemdLog, std::strerror(errno))});
  }
  if (drainer != 0) {
    close(console);
    if (log >= 0) close(log);
    return;
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Nothing else of PID 1's (the status pipe, the out directory, the inputs) stays here: the
  // console's master at 3, the log at 4.
  const int c = fcntl(console, F_DUPFD_CLOEXEC, 100);
  const int l = log >= 0 ? fcntl(log, F_DUPFD_CLOEXEC, 100) : -1;
  if (c < 0 || dup2(c, 3) != 3) _exit(1);
  if (l >= 0 && dup2(l, 4) != 4) _exit(1);
  close_range(l >= 0 ? 5 : 4, ~0u, 0);
  const int held = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
  absl::StatusOr<std::unique_ptr<OutputDrain>> drain =
      OutputDrain::AdoptConsole(3, l >= 0 ? 4 : -1, kMaxOutBytes);
  if (!drain.ok()) _exit(1);
  OutputDrain* self = drain->get();
  while (self->open()) {
    OutputDrain::PumpAll(std::span<OutputDrain* const>(&self, 1), 250);
    ResumeConsole(held);
  }
  if (held >= 0) close(held);
  _exit(0);
}

}  // namespace

int BootSystemdAsPid1(int log, int console, const std::vector<std::string>& env,
                      std::string_view for_what, const StatusWriter& status, int done_fd,
                      const std::function<int()>& supervise) {
  if (access(kSystemdPath, X_OK) != 0) {
    if (log >= 0) close(log);
    if (console >= 0) close(console);
    status.Send(status::Error{fmt::format("--init systemd: the root has no {}", kSystemdPath)});
    return 2;
  }
  MaskConsoleUnits("");
  if (console >= 0) {
    StartSystemdLogDrain(console, log, status);
  } else if (log >= 0) {
    close(log);
  }
  pid_t child = fork();
  if (child < 0) {
    status.Send(status::Error{fmt::format("fork: {}", std::strerror(errno))});
    return 2;
  }
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const int code = WaitForSystemdBoot(env, for_what, status) ? supervise() : 2;
    const auto byte = static_cast<unsigned char>(code);
    if (done_fd >= 0) (void)!write(done_fd, &byte, 1);
    _exit(code);
  }
  // PID 1: systemd, which logs to the console (above), its stdin, stdout and stderr
  // /dev/null, nothing else of ours left open.
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
  }
  // systemd, and so every unit it starts, keeps the module's set (no SYS_ADMIN: a unit can
  // neither mount nor join another mount namespace), below strace's (the supervisor's
  // kTracerOnlyCapabilities). A unit's own CapabilityBoundingSet=, AmbientCapabilities= or
  // `ExecStart=+` cannot add back what PID 1's bounding set lacks; the seccomp filter and
  // no_new_privs it runs under (the supervisor's LockDown) are inherited by every unit too.
  if (absl::Status st = LimitBoundingSet(ModuleCapabilities()); !st.ok()) {
    status.Send(status::Error{fmt::format("--init systemd: limiting systemd's capabilities: {}",
                                          std::string(st.message()))});
    _exit(2);
  }
  // Everything else of ours goes at the exec (the status pipe stays until then, to say why
  // the exec failed).
  close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
  std::vector<std::string> argv_strings = SystemdArgv();
  std::vector<std::string> env_strings = SystemdEnvironment();
  std::vector<char*> argv, envp;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  execve(kSystemdPath, argv.data(), envp.data());
  status.Send(status::Error{
      fmt::format("--init systemd: cannot run {}: {}", kSystemdPath, std::strerror(errno))});
  _exit(127);
}

}  // namespace fsmove::exec
