// The sandbox's user namespace and its id maps; see user_namespace.h.
#include "fsmove/exec/user_namespace.h"

#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/process.h"

namespace fsmove::exec {
namespace {

std::optional<uint32_t> ParseId(std::string_view text) {
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

absl::Status WriteProcFile(pid_t pid, const char* name, const std::string& text) {
  const std::string path = fmt::format("/proc/{}/{}", pid, name);
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return base::ErrnoStatus(fmt::format("open {}", path));
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int e = errno;
  close(fd);
  return ok ? absl::OkStatus() : base::ErrnoStatus(fmt::format("write {}", path), e);
}

std::string UserName(uid_t uid) {
  if (const passwd* pw = getpwuid(uid)) return pw->pw_name;
  return std::to_string(uid);
}

absl::StatusOr<IdRange> RangeFrom(const char* file, uid_t uid, const std::string& user) {
  std::string text = base::ReadFile(file).value_or("");
  std::optional<IdRange> range = FindSubordinateRange(text, user, uid);
  if (!range) {
    return absl::FailedPreconditionError(fmt::format(
        "{} gives {} no range of {} subordinate ids: the rootless sandbox maps its users there "
        "(add one as root: usermod --add-subuids 100000-165535 --add-subgids 100000-165535 {})",
        file, user, kSandboxIdCount, user));
  }
  return *range;
}

}  // namespace

std::optional<IdRange> FindSubordinateRange(std::string_view text, std::string_view user, uid_t uid,
                                            uint32_t min_count) {
  const std::string uid_text = std::to_string(uid);
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const size_t a = line.find(':');
    const size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view who = line.substr(0, a);
    if (who != user && who != uid_text) continue;
    std::optional<uint32_t> first = ParseId(line.substr(a + 1, b - a - 1));
    std::optional<uint32_t> count = ParseId(line.substr(b + 1));
    if (!first || !count || *count < min_count) continue;
    if (*first == 0 || uint64_t{*first} + *count > uint64_t{UINT32_MAX}) continue;
    return IdRange{*first, *count};
  }
  return std::nullopt;
}

std::string IdMapping::UidMapLine() const {
  std::string lines = fmt::format("0 {} {}\n", uid_first, count);
  if (own_uid) lines += fmt::format("{} {} 1\n", count, *own_uid);
  return lines;
}
std::string IdMapping::GidMapLine() const {
  std::string lines = fmt::format("0 {} {}\n", gid_first, count);
  if (own_gid) lines += fmt::format("{} {} 1\n", count, *own_gid);
  return lines;
}

absl::StatusOr<IdMapping> SandboxIdMapping() {
  const uid_t uid = geteuid();
  const std::string user = UserName(uid);
  IdMapping m;
  if (uid == 0) {
    std::string subuid = base::ReadFile("/etc/subuid").value_or("");
    std::string subgid = base::ReadFile("/etc/subgid").value_or("");
    std::optional<IdRange> u = FindSubordinateRange(subuid, user, uid);
    std::optional<IdRange> g = FindSubordinateRange(subgid, user, uid);
    m.uid_first = u ? u->first : kRootModeIdBase;
    m.gid_first = g ? g->first : kRootModeIdBase;
    return m;
  }
  for (const char* tool : {"/usr/bin/newuidmap", "/usr/bin/newgidmap"}) {
    if (access(tool, X_OK) != 0) {
      return absl::FailedPreconditionError(fmt::format(
          "no {}: the rootless sandbox needs it to map its users (apt-get install uidmap)", tool));
    }
  }
  absl::StatusOr<IdRange> u = RangeFrom("/etc/subuid", uid, user);
  if (!u.ok()) return u.status();
  absl::StatusOr<IdRange> g = RangeFrom("/etc/subgid", uid, user);
  if (!g.ok()) return g.status();
  m.uid_first = u->first;
  m.gid_first = g->first;
  m.rootless = true;
  m.own_uid = uid;
  m.own_gid = getegid();
  return m;
}

absl::Status WriteIdMaps(pid_t pid, const IdMapping& mapping) {
  if (!mapping.rootless) {
    if (absl::Status st = WriteProcFile(pid, "uid_map", mapping.UidMapLine()); !st.ok()) return st;
    return WriteProcFile(pid, "gid_map", mapping.GidMapLine());
  }
  const std::string p = std::to_string(pid);
  const std::string first_u = std::to_string(mapping.uid_first);
  const std::string first_g = std::to_string(mapping.gid_first);
  const std::string count = std::to_string(mapping.count);
  std::vector<std::string> uid_argv = {"/usr/bin/newuidmap", p, "0", first_u, count};
  std::vector<std::string> gid_argv = {"/usr/bin/newgidmap", p, "0", first_g, count};
  if (mapping.own_uid) {
    uid_argv.insert(uid_argv.end(), {count, std::to_string(*mapping.own_uid), "1"});
  }
  if (mapping.own_gid) {
    gid_argv.insert(gid_argv.end(), {count, std::to_string(*mapping.own_gid), "1"});
  }
  for (const auto& argv : {uid_argv, gid_argv}) {
    absl::StatusOr<CapturedRun> run =
        RunCaptured(argv, {fmt::format("PATH={}", kSafePath), "LANG=C.UTF-8"}, 4096);
    if (!run.ok()) return run.status();
    if (run->wait_status != 0) {
      std::string why = run->err;
      while (!why.empty() && why.back() == '\n') why.pop_back();
      return absl::FailedPreconditionError(
          fmt::format("{} failed ({}): {}", argv[0], DescribeWaitStatus(run->wait_status), why));
    }
  }
  return absl::OkStatus();
}

absl::Status RunInUserNamespace(const IdMapping& mapping, const std::function<void()>& work) {
  int ready[2], go[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return base::ErrnoStatus("pipe");
  if (pipe2(go, O_CLOEXEC) != 0) {
    const int e = errno;
    close(ready[0]);
    close(ready[1]);
    return base::ErrnoStatus("pipe", e);
  }
  pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    close(go[1]);
    char c = unshare(CLONE_NEWUSER) == 0 ? 'u' : 'x';
    if (write(ready[1], &c, 1) != 1 || c != 'u') _exit(1);
    if (read(go[0], &c, 1) != 1 || c != 'g') _exit(1);
    work();
    _exit(0);
  }
  close(ready[1]);
  close(go[0]);
  absl::Status st = child < 0 ? base::ErrnoStatus("fork") : absl::OkStatus();
  char c = 0;
  if (st.ok() && (read(ready[0], &c, 1) != 1 || c != 'u')) {
    st = absl::FailedPreconditionError("the child could not make a user namespace");
  }
  if (st.ok()) st = WriteIdMaps(child, mapping);
  c = st.ok() ? 'g' : 'x';
  if (child > 0 && write(go[1], &c, 1) != 1 && st.ok())
    st = absl::InternalError("the child is gone");
  close(ready[0]);
  close(go[1]);
  int status = 0;
  while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (st.ok() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    st = absl::InternalError(fmt::format("the child {}", DescribeWaitStatus(status)));
  }
  return st;
}

absl::Status ProbeUserNamespace() {
  pid_t child = fork();
  if (child < 0) return base::ErrnoStatus("fork");
  if (child == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f));
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  const int e = WIFEXITED(status) ? WEXITSTATUS(status) : EPERM;
  return absl::FailedPreconditionError(fmt::format(
      "this kernel refuses a user namespace ({}): check kernel.unprivileged_userns_clone, "
      "user.max_user_namespaces and, in a container, its seccomp profile",
      std::strerror(e)));
}

}  // namespace fsmove::exec
