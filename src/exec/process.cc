// fork/exec without a shell; see process.h.
#include "fsmove/exec/process.h"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/exec/capabilities.h"

namespace fsmove::exec {
namespace {

std::string_view PathOf(const std::vector<std::string>& env) {
  for (const auto& e : env) {
    if (std::string_view(e).starts_with("PATH=")) return std::string_view(e).substr(5);
  }
  return kSafePath;
}

// In the child: report errno to the parent through the close-on-exec pipe and die.
[[noreturn]] void ChildFail(int report_fd, int stage, int err) {
  int msg[2] = {stage, err};
  ssize_t ignored = write(report_fd, msg, sizeof msg);
  (void)ignored;
  _exit(127);
}

void MoveFd(int from, int to, int report_fd) {
  if (from == to) {
    int flags = fcntl(to, F_GETFD);
    if (flags >= 0) fcntl(to, F_SETFD, flags & ~FD_CLOEXEC);
    return;
  }
  if (dup2(from, to) < 0) ChildFail(report_fd, 3, errno);
}

constexpr const char* kStages[] = {"exec", "chroot", "chdir", "redirect", "setsid", "capabilities"};

}  // namespace

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty() || argv[0].empty()) return absl::InvalidArgumentError("empty command");
  // Everything the child needs is prepared before fork: the child only makes system calls.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  envp.reserve(options.env.size() + 1);
  for (const auto& e : options.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<std::string> candidates;
  if (argv[0].find('/') != std::string::npos) {
    candidates.push_back(argv[0]);
  } else {
    std::string_view path = PathOf(options.env);
    size_t start = 0;
    while (start <= path.size()) {
      size_t end = path.find(':', start);
      if (end == std::string_view::npos) end = path.size();
      std::string_view dir = path.substr(start, end - start);
      candidates.push_back(fmt::format("{}/{}", dir.empty() ? "." : dir, argv[0]));
      start = end + 1;
    }
  }
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    return base::ErrnoStatus("pipe");
  }
  int null_fd = -1;
  if (options.stdin_fd < 0) {
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) {
      close(report[0]);
      close(report[1]);
      return base::ErrnoStatus("/dev/null");
    }
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(report[0]);
    close(report[1]);
    if (null_fd >= 0) close(null_fd);
    return base::ErrnoStatus("fork", err);
  }
  if (pid == 0) {
    close(report[0]);
    // Signals the parent ignores or handles must not stay so in the child.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGPIPE, SIGCHLD, SIGHUP})
      sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (options.new_session && setsid() < 0) ChildFail(report[1], 4, errno);
    if (options.death_signal != 0) {
      prctl(PR_SET_PDEATHSIG, options.death_signal);
      if (getppid() != parent) raise(options.death_signal);  // it died before prctl
    }
    if (options.inherit_fd >= 0) fcntl(options.inherit_fd, F_SETFD, 0);
    if (!options.cpus.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int cpu : options.cpus) {
        if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
      }
      sched_setaffinity(0, sizeof set, &set);  // best effort: a failure only costs speed
    }
    int in = options.stdin_fd >= 0 ? options.stdin_fd : null_fd;
    // dup2 onto 0/1/2 after moving sources out of the way is not needed: sources are > 2 or
    // already the right descriptor in every caller; MoveFd handles the equal case.
    MoveFd(in, 0, report[1]);
    if (options.stdout_fd >= 0) MoveFd(options.stdout_fd, 1, report[1]);
    if (options.stderr_fd >= 0) MoveFd(options.stderr_fd, 2, report[1]);
    if (!options.root.empty()) {
      if (chroot(options.root.c_str()) != 0) ChildFail(report[1], 1, errno);
      if (chdir("/") != 0) ChildFail(report[1], 2, errno);
    }
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) ChildFail(report[1], 2, errno);
    if (options.bounding_set && !LimitBoundingSet(*options.bounding_set).ok())
      ChildFail(report[1], 5, errno != 0 ? errno : EPERM);
    int err = ENOENT;
    for (const auto& c : candidates) {
      execve(c.c_str(), args.data(), envp.data());
      // Keep the most telling error: a found but unusable file beats "not found".
      if (errno != ENOENT && errno != ENOTDIR) err = errno;
    }
    ChildFail(report[1], 0, err);
  }
  close(report[1]);
  if (null_fd >= 0) close(null_fd);
  int msg[2];
  ssize_t got;
  do {
    got = read(report[0], msg, sizeof msg);
  } while (got < 0 && errno == EINTR);
  close(report[0]);
  if (got == static_cast<ssize_t>(sizeof msg)) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int stage = msg[0] >= 0 && msg[0] < 6 ? msg[0] : 0;
    std::string what = stage == 0 ? fmt::format("cannot run {}", argv[0])
                                  : fmt::format("cannot start {} ({})", argv[0], kStages[stage]);
    return base::ErrnoStatus(what, msg[1]);
  }
  return pid;
}

int ShellExitCode(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 255;
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return fmt::format("exit code {}", WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const char* name = sigabbrev_np(WTERMSIG(wait_status));
    return name ? fmt::format("killed by SIG{}", name)
                : fmt::format("killed by signal {}", WTERMSIG(wait_status));
  }
  return fmt::format("wait status {}", wait_status);
}

std::optional<std::string> FindExecutable(std::string_view name, std::string_view path_list) {
  if (name.find('/') != std::string_view::npos) {
    std::string p(name);
    return access(p.c_str(), X_OK) == 0 ? std::optional(p) : std::nullopt;
  }
  size_t start = 0;
  while (start <= path_list.size()) {
    size_t end = path_list.find(':', start);
    if (end == std::string_view::npos) end = path_list.size();
    std::string_view dir = path_list.substr(start, end - start);
    std::string p = fmt::format("{}/{}", dir.empty() ? "." : dir, name);
    struct stat st;
    if (stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0) {
      return p;
    }
    start = end + 1;
  }
  return std::nullopt;
}

absl::StatusOr<CapturedRun> RunCaptured(const std::vector<std::string>& argv,
                                        const std::vector<std::string>& env, size_t max_bytes) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return absl::InternalError("pipe failed");
  }
  SpawnOptions options;
  options.env = env;
  options.stdout_fd = out[1];
  options.stderr_fd = err[1];
  auto pid = Spawn(argv, options);
  close(out[1]);
  close(err[1]);
  CapturedRun run;
  if (pid.ok()) {
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string* bufs[2] = {&run.out, &run.err};
    int open_fds = 2;
    char chunk[4096];
    while (open_fds > 0) {
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || fds[i].revents == 0) continue;
        ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          fds[i].fd = -1;
          --open_fds;
          continue;
        }
        size_t room = max_bytes - std::min(max_bytes, bufs[i]->size());
        bufs[i]->append(chunk, std::min(room, static_cast<size_t>(got)));
      }
    }
    while (waitpid(*pid, &run.wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  close(out[0]);
  close(err[0]);
  if (!pid.ok()) return pid.status();
  return run;
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

int TracingCpu() {
  std::vector<int> cpus = AllowedCpus();
  return cpus.empty() ? -1 : cpus.back();
}

std::vector<std::string> PuppetEnvironment() {
  std::string home = "/root", user = "root";
  if (geteuid() != 0) {
    if (const passwd* pw = getpwuid(geteuid())) {
      home = pw->pw_dir;
      user = pw->pw_name;
    }
  }
  return {fmt::format("PATH={}", kSafePath),
          "HOME=" + home,
          "LANG=C.UTF-8",
          "LC_ALL=C.UTF-8",
          "USER=" + user,
          "LOGNAME=" + user};
}

}  // namespace fsmove::exec
