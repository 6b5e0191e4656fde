// Starting and waiting for child processes without a shell: every argument is its own argv
// entry, the environment is given whole, and an exec failure comes back as an error value.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

struct SpawnOptions {
  std::string root;              // chroot here before exec (empty: stay)
  std::string cwd;               // chdir here (inside `root`) before exec (empty: stay)
  int stdin_fd = -1;             // -1: /dev/null
  int stdout_fd = -1;            // -1: inherit
  int stderr_fd = -1;            // -1: inherit
  std::vector<std::string> env;  // the whole environment; its PATH is searched for argv[0]
  bool new_session = false;      // setsid(): no terminal signals (Ctrl-C) reach the child
  std::vector<int> cpus;         // non-empty: run the child (and all it starts) on these only
  int death_signal = 0;          // != 0: sent to the child when the spawning process dies
  int inherit_fd = -1;           // >= 0: a close-on-exec descriptor the child keeps open
  // Set: the child's bounding set (and inheritable set) is cut down to these capabilities
  // before the exec, so that what it runs (as root) holds these only.
  std::optional<std::vector<int>> bounding_set;
};

// fork + exec. argv[0] without a '/' is searched in the PATH of `options.env` (inside the
// chroot). Returns the child's pid, or why it could not be started (the child's exec errno is
// passed back, so "No such file or directory" is an error here, not an exit code 127).
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const SpawnOptions& options);

// Exit status as a shell shows it: the exit code, or 128 + N when killed by signal N.
int ShellExitCode(int wait_status);
// "exit code 1", "killed by SIGKILL".
std::string DescribeWaitStatus(int wait_status);

// The first executable `name` in the colon-separated `path_list`; nullopt if none.
std::optional<std::string> FindExecutable(std::string_view name, std::string_view path_list);

// Runs argv to completion, capturing its stdout and stderr (each cut to `max_bytes`).
struct CapturedRun {
  int wait_status = 0;
  std::string out;
  std::string err;
};
absl::StatusOr<CapturedRun> RunCaptured(const std::vector<std::string>& argv,
                                        const std::vector<std::string>& env,
                                        size_t max_bytes = 1u << 20);

// The CPU a traced run is pinned to: the last one this process may use (-1 if unknown).
int TracingCpu();
// The CPUs this process may run on, ascending (empty if unknown).
std::vector<int> AllowedCpus();

// The environment every Puppet run gets: a fixed PATH and locale, HOME, USER, LOGNAME.
std::vector<std::string> PuppetEnvironment();
inline constexpr std::string_view kSafePath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

}  // namespace fsmove::exec
