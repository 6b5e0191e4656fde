// puppet parser validate and puppet-lint on patched manifests; see tool_checks.h.
#include "fsmove/fix/tool_checks.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace fsmove::fix {

absl::StatusOr<ProgramOutput> RunProgram(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    if (err == ENOENT) return absl::UnavailableError(absl::StrCat(argv[0], " is not installed"));
    return absl::InternalError(absl::StrCat("cannot run ", argv[0], ": ", std::strerror(err)));
  }
  ProgramOutput out;
  char buf[65536];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

absl::Status ValidateManifest(const std::string& file) {
  auto run = RunProgram({"puppet", "parser", "validate", file});
  if (!run.ok()) return run.status();
  if (run->exit_code == 0) return absl::OkStatus();
  std::string msg = run->output;
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  return absl::InvalidArgumentError(
      absl::StrCat("puppet parser validate ", file, " failed: ", msg.empty() ? "no output" : msg));
}

absl::StatusOr<std::map<std::string, int>> LintCounts(const std::string& file) {
  auto run = RunProgram({"puppet-lint", "--json", file});
  if (!run.ok()) return run.status();
  const size_t start = run->output.find('[');
  nlohmann::json doc = start == std::string::npos
                           ? nlohmann::json()
                           : nlohmann::json::parse(run->output.substr(start), nullptr, false);
  if (!doc.is_array()) {
    return absl::InternalError(absl::StrCat("puppet-lint ", file, " printed no JSON (exit ",
                                            run->exit_code, "): ", run->output.substr(0, 400)));
  }
  std::map<std::string, int> counts;
  for (const nlohmann::json& per_file : doc) {
    if (!per_file.is_array()) continue;
    for (const nlohmann::json& problem : per_file) {
      if (problem.is_object() && problem.contains("check") && problem["check"].is_string()) {
        ++counts[problem["check"].get<std::string>()];
      }
    }
  }
  return counts;
}

absl::StatusOr<std::string> LintRegressions(const std::string& original,
                                            const std::string& patched) {
  auto before = LintCounts(original);
  if (!before.ok()) return before.status();
  auto after = LintCounts(patched);
  if (!after.ok()) return after.status();
  std::vector<std::string> worse;
  for (const auto& [check, n] : *after) {
    auto it = before->find(check);
    const int had = it == before->end() ? 0 : it->second;
    if (n > had) worse.push_back(absl::StrCat(check, " (", n - had, " more)"));
  }
  return absl::StrJoin(worse, ", ");
}

}  // namespace fsmove::fix
