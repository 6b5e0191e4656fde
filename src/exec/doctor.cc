// The checks of `fsmove doctor`; see doctor.h. Each says what it found and, when something is
// missing, the one command (or setting) that supplies it.
#include "fsmove/exec/doctor.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/preflight.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/user_namespace.h"

namespace fsmove::exec {
namespace {

DoctorCheck Ok(std::string name, std::string detail, bool required = true) {
  return DoctorCheck{std::move(name), true, required, std::move(detail), ""};
}
DoctorCheck Missing(std::string name, std::string detail, std::string fix, bool required = true) {
  return DoctorCheck{std::move(name), false, required, std::move(detail), std::move(fix)};
}

std::string Trimmed(std::optional<std::string> text) {
  return text ? std::string(absl::StripAsciiWhitespace(*text)) : std::string();
}

// The /proc/sys setting at `path`: its value, or "" when the kernel has no such setting.
std::string Setting(const MachineProbe& m, const std::string& path) {
  return Trimmed(m.read_file(path));
}

DoctorCheck UserNamespaces(const MachineProbe& m) {
  const std::string name = "user namespaces";
  const std::string max = Setting(m, "/proc/sys/user/max_user_namespaces");
  if (max == "0") {
    return Missing(name, "user.max_user_namespaces is 0",
                   "sysctl -w user.max_user_namespaces=15000");
  }
  // Only an ordinary user's namespaces are refused by these two (Debian's and Ubuntu's).
  if (m.uid != 0) {
    if (Setting(m, "/proc/sys/kernel/unprivileged_userns_clone") == "0") {
      return Missing(name, "kernel.unprivileged_userns_clone is 0 (refused to users)",
                     "sysctl -w kernel.unprivileged_userns_clone=1, or run fsmove as root");
    }
    if (Setting(m, "/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1") {
      return Missing(name,
                     "kernel.apparmor_restrict_unprivileged_userns is 1 (AppArmor refuses them)",
                     "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or run fsmove as "
                     "root");
    }
  }
  if (m.user_namespace) {
    if (absl::Status st = m.user_namespace(); !st.ok()) {
      return Missing(name, std::string(st.message()),
                     "in a container, allow unshare(CLONE_NEWUSER) (--security-opt "
                     "seccomp=unconfined), or run on the host");
    }
  }
  return Ok(name, max.empty() ? "allowed" : fmt::format("allowed (max_user_namespaces={})", max));
}

// Whether /proc/filesystems lists `fs` ("nodev\toverlay").
bool HasFilesystem(const MachineProbe& m, std::string_view fs) {
  for (absl::string_view line :
       absl::StrSplit(m.read_file("/proc/filesystems").value_or(""), '\n')) {
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (!fields.empty() && fields.back() == absl::string_view(fs.data(), fs.size())) return true;
  }
  return false;
}

// Whether the running kernel has `fs` as a module it loads on the first mount of that type
// (modules.alias: "alias fs-overlay overlay"), as Debian's overlay until something mounts one.
bool HasFilesystemModule(const MachineProbe& m, std::string_view fs) {
  if (m.kernel_release.empty()) return false;
  const std::string alias = fmt::format("fs-{}", fs);
  for (absl::string_view line : absl::StrSplit(
           m.read_file(fmt::format("/lib/modules/{}/modules.alias", m.kernel_release)).value_or(""),
           '\n')) {
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (fields.size() == 3 && fields[0] == "alias" && fields[1] == alias) return true;
  }
  return false;
}

DoctorCheck Overlay(const MachineProbe& m) {
  if (HasFilesystem(m, "overlay")) return Ok("overlayfs", "overlay in /proc/filesystems");
  if (HasFilesystemModule(m, "overlay")) {
    return Ok("overlayfs", "a module the kernel loads on the first overlay mount");
  }
  return Missing("overlayfs", "no overlay in /proc/filesystems", "modprobe overlay (as root)");
}

// cgroup v2 (the root's cgroup.controllers) or v1 (/proc/cgroups, enabled column), with the
// controllers the sandbox's --memory-limit and --pids-limit use. Without them it runs unlimited
// (its notes say so): a warning.
DoctorCheck Cgroups(const MachineProbe& m) {
  const std::string name = "cgroups";
  std::vector<std::string> missing;
  std::string version;
  if (std::optional<std::string> v2 = m.read_file("/sys/fs/cgroup/cgroup.controllers");
      v2 && HasFilesystem(m, "cgroup2")) {
    version = "v2";
    std::vector<absl::string_view> have =
        absl::StrSplit(*v2, absl::ByAnyChar(" \n"), absl::SkipEmpty());
    for (const char* c : {"memory", "pids"}) {
      if (std::find(have.begin(), have.end(), c) == have.end()) missing.push_back(c);
    }
    // The sandbox's cgroup goes beside this process's (memory_limit.cc), where its parent
    // must have enabled the controllers.
    std::string own;
    for (absl::string_view line :
         absl::StrSplit(m.read_file("/proc/self/cgroup").value_or(""), '\n')) {
      if (absl::ConsumePrefix(&line, "0::")) own = std::string(line);
    }
    const std::string parent =
        "/sys/fs/cgroup" + own.substr(0, own.rfind('/') == std::string::npos ? 0 : own.rfind('/'));
    if (missing.empty() && !own.empty()) {
      // Kept in a local: the split's views point into it.
      const std::string control = m.read_file(parent + "/cgroup.subtree_control").value_or("");
      std::vector<absl::string_view> enabled =
          absl::StrSplit(control, absl::ByAnyChar(" \n"), absl::SkipEmpty());
      for (const char* c : {"memory", "pids"}) {
        if (std::find(enabled.begin(), enabled.end(), c) == enabled.end()) missing.push_back(c);
      }
      if (!missing.empty()) {
        return Missing(name,
                       fmt::format("cgroup v2, but {} not enabled in {}/cgroup.subtree_control, "
                                   "where the sandbox's cgroup goes (it runs without that limit)",
                                   absl::StrJoin(missing, ", "), parent),
                       fmt::format("as root, echo '{}' > {}/cgroup.subtree_control",
                                   absl::StrJoin(missing, " ",
                                                 [](std::string* out, const std::string& c) {
                                                   out->append("+" + c);
                                                 }),
                                   parent),
                       false);
      }
    }
  } else if (std::optional<std::string> v1 = m.read_file("/proc/cgroups")) {
    version = "v1";
    for (const char* c : {"memory", "pids"}) {
      bool enabled = false;
      for (absl::string_view line : absl::StrSplit(*v1, '\n')) {
        std::vector<absl::string_view> f = absl::StrSplit(line, '\t', absl::SkipEmpty());
        if (f.size() >= 4 && f[0] == c && f[3] == "1") enabled = true;
      }
      if (!enabled) missing.push_back(c);
    }
  } else {
    return Missing(name, "no cgroup file system (the sandbox runs without memory and pids limits)",
                   "mount cgroup2 on /sys/fs/cgroup", false);
  }
  if (missing.empty()) {
    return Ok(name, fmt::format("cgroup {} with memory and pids", version), false);
  }
  return Missing(
      name,
      fmt::format("cgroup {} without {} (the sandbox runs without that limit)", version,
                  absl::StrJoin(missing, ", ")),
      fmt::format("enable the {} controller{} (cgroup_enable= on the kernel command line)",
                  absl::StrJoin(missing, " and "), missing.size() > 1 ? "s" : ""),
      false);
}

DoctorCheck Seccomp(const MachineProbe& m) {
  const std::string status = m.read_file("/proc/self/status").value_or("");
  std::string mode;
  for (absl::string_view line : absl::StrSplit(status, '\n')) {
    if (absl::ConsumePrefix(&line, "Seccomp:"))
      mode = std::string(absl::StripAsciiWhitespace(line));
  }
  if (mode.empty()) {
    return Missing("seccomp", "no Seccomp: line in /proc/self/status",
                   "a kernel with CONFIG_SECCOMP_FILTER (Debian's has it)");
  }
  if (!m.seccomp_prctl) {
    return Missing("seccomp", "prctl(PR_GET_SECCOMP) fails",
                   "a kernel with CONFIG_SECCOMP_FILTER (Debian's has it)");
  }
  return Ok("seccomp", fmt::format("available (this process's mode: {})", mode));
}

// Root shows a pinned root (files owned by uid 0) through an idmapped mount, Linux 5.12 on;
// a rootless sandbox's roots are already owned by the user's range and need none.
DoctorCheck IdmappedMounts(const MachineProbe& m, bool pinned) {
  const bool required = m.uid == 0 && pinned;
  std::optional<std::pair<int, int>> v = KernelVersion(m.kernel_release);
  if (v && *v >= std::pair<int, int>{5, 12}) {
    return Ok("idmapped mounts", fmt::format("Linux {}", m.kernel_release), required);
  }
  return Missing("idmapped mounts",
                 fmt::format("Linux {} (5.12 or later needed{})",
                             m.kernel_release.empty() ? "unknown" : m.kernel_release,
                             required ? " by root for a pinned root" : " only when run as root"),
                 "a kernel >= 5.12 (Debian 12's is 6.1), or run fsmove as an ordinary user",
                 required);
}

DoctorCheck Tool(const MachineProbe& m, const std::string& tool, bool required, std::string why,
                 std::string fix) {
  if (std::optional<std::string> path = m.find_tool(tool)) {
    return Ok(tool, fmt::format("{} ({})", *path, why), required);
  }
  return Missing(tool, fmt::format("not found ({})", why), std::move(fix), required);
}

// slirp4netns makes the sandbox's interface on /dev/net/tun, opened as the user who runs
// fsmove: where that fails the sandbox has no network (and the check says so in its summary).
DoctorCheck TunDevice(const MachineProbe& m) {
  const std::string name = "/dev/net/tun";
  absl::Status st = m.open_device(name);
  if (st.ok()) return Ok(name, "opened for reading and writing (the sandbox's network)", false);
  std::string fix;
  if (absl::IsNotFound(st)) {
    fix = "modprobe tun (the kernel's TUN/TAP driver)";
  } else if (m.uid != 0) {
    fix = fmt::format(
        "chmod 0666 /dev/net/tun (Debian's udev default), or for {} alone: setfacl -m u:{}:rw "
        "/dev/net/tun",
        m.user, m.user);
  } else {
    fix = "a container runtime must pass the device in: --device /dev/net/tun";
  }
  return Missing(name,
                 fmt::format("{}: the sandbox would have no network (apt cannot download the "
                             "catalog's packages)",
                             std::string(st.message())),
                 std::move(fix), false);
}

DoctorCheck SubordinateIdCheck(const MachineProbe& m) {
  const std::string name = "subordinate ids";
  const bool rootless = m.uid != 0;
  std::vector<std::string> found;
  for (const char* file : {"/etc/subuid", "/etc/subgid"}) {
    std::optional<IdRange> r =
        FindSubordinateRange(m.read_file(file).value_or(""), m.user, m.uid, kSandboxIdCount);
    if (r) {
      found.push_back(fmt::format("{} {}..{}", file, r->first, r->first + r->count - 1));
    } else if (rootless) {
      return Missing(name,
                     fmt::format("{} gives {} no range of {} ids (the rootless sandbox maps them)",
                                 file, m.user, kSandboxIdCount),
                     fmt::format("as root, usermod --add-subuids 100000-165535 --add-subgids "
                                 "100000-165535 {}",
                                 m.user));
    }
  }
  if (!rootless && found.size() < 2) {
    return Ok(
        name,
        fmt::format("root maps the sandbox to {}.. (no /etc/subuid entry needed)", kRootModeIdBase),
        false);
  }
  return Ok(name, absl::StrJoin(found, ", "), rootless);
}

DoctorCheck RootCache(const MachineProbe& m, std::string_view root) {
  const std::string name = "root cache";
  std::vector<std::string> built;
  const OsRoot* chosen = nullptr;
  for (const OsRoot& r : m.built_roots) {
    built.push_back(r.outdated ? r.name + " (outdated)" : r.name);
    if (r.name == root) chosen = &r;
  }
  const std::string listing = fmt::format(
      "{}: {}", m.root_cache_dir, built.empty() ? "none built" : absl::StrJoin(built, ", "));
  if (root == kHostRoot) return Ok(name, fmt::format("--root host uses / ({})", listing), false);
  if (FindRecipe(root) == nullptr) {
    return Ok(name, fmt::format("--root {} is a directory, used as it is", root), false);
  }
  // check builds a missing root itself (a few minutes, with mmdebstrap): a warning.
  if (chosen == nullptr) {
    return Missing(name, fmt::format("{} is not built ({}); check builds it first", root, listing),
                   fmt::format("fsmove root build {}", root), false);
  }
  if (chosen->outdated) {
    return Missing(name, fmt::format("{} is outdated ({}); check rebuilds it first", root, listing),
                   fmt::format("fsmove root build {} --rebuild", root), false);
  }
  return Ok(
      name,
      fmt::format("{} built in {} (Puppet {}); {}", root, chosen->dir,
                  chosen->puppet_version.empty() ? "unknown" : chosen->puppet_version, listing),
      false);
}

}  // namespace

std::optional<std::pair<int, int>> KernelVersion(std::string_view release) {
  int major = 0, minor = 0;
  size_t i = 0;
  auto number = [&](int& out) {
    const size_t start = i;
    while (i < release.size() && release[i] >= '0' && release[i] <= '9' && i - start < 6) {
      out = out * 10 + (release[i++] - '0');
    }
    return i > start;
  };
  if (!number(major) || i >= release.size() || release[i++] != '.' || !number(minor)) {
    return std::nullopt;
  }
  return std::pair<int, int>{major, minor};
}

std::vector<DoctorCheck> RunDoctor(const MachineProbe& m, std::string_view root) {
  const bool host = root == kHostRoot;
  const bool rootless = m.uid != 0;
  bool root_built = host || FindRecipe(root) == nullptr;
  for (const OsRoot& r : m.built_roots) root_built |= (r.name == root && !r.outdated);

  std::vector<DoctorCheck> checks;
  checks.push_back(UserNamespaces(m));
  checks.push_back(Overlay(m));
  checks.push_back(Cgroups(m));
  checks.push_back(Seccomp(m));
  checks.push_back(IdmappedMounts(m, !host));

  if (host) {
    checks.push_back(Tool(m, "puppet", true, "--root host runs this machine's Puppet",
                          "apt-get install puppet-agent (or set FSMOVE_PUPPET to its path)"));
  }
  checks.push_back(Tool(m, "strace", host,
                        host ? "--root host runs this machine's strace"
                             : "a pinned root brings its own; this one tells whether ptrace works",
                        "apt-get install strace"));
  if (std::optional<std::string> strace = m.find_tool("strace"); strace && m.ptrace) {
    if (absl::Status st = m.ptrace(*strace); !st.ok()) {
      checks.push_back(Missing("ptrace", std::string(st.message()),
                               "sysctl -w kernel.yama.ptrace_scope=1 (in a container: "
                               "--cap-add SYS_PTRACE)"));
    } else {
      checks.push_back(Ok("ptrace", "strace can trace a process"));
    }
  }
  checks.push_back(Tool(m, "mmdebstrap", !root_built,
                        root_built ? "builds pinned roots" : "builds the pinned root check needs",
                        "apt-get install mmdebstrap"));
  {
    DoctorCheck net =
        Tool(m, "slirp4netns", false, "the sandbox's network", "apt-get install slirp4netns");
    if (!net.ok && m.find_tool("pasta")) {
      net.detail += "; pasta is installed, but the sandbox uses slirp4netns only";
    } else if (!net.ok) {
      net.detail += "; the sandbox has no network without it";
    }
    const bool have_slirp = net.ok;
    checks.push_back(std::move(net));
    if (have_slirp) checks.push_back(TunDevice(m));
  }
  if (rootless) {
    for (const char* t : {"newuidmap", "newgidmap"}) {
      checks.push_back(Tool(m, t, true, "the rootless sandbox maps its users with it",
                            "apt-get install uidmap"));
    }
  }
  checks.push_back(SubordinateIdCheck(m));
  checks.push_back(RootCache(m, root));
  // Only a control repo's Puppetfile needs it: a warning, never what makes check unready.
  checks.push_back(
      Tool(m, "r10k", false, "deploys a control repo's Puppetfile", "apt-get install r10k git"));
  return checks;
}

bool DoctorReady(const std::vector<DoctorCheck>& checks) {
  for (const DoctorCheck& c : checks) {
    if (c.required && !c.ok) return false;
  }
  return true;
}

MachineProbe ProbeThisMachine() {
  MachineProbe m;
  m.read_file = [](const std::string& path) -> std::optional<std::string> {
    absl::StatusOr<std::string> text = base::ReadFile(path);
    if (!text.ok()) return std::nullopt;
    return *std::move(text);
  };
  m.find_tool = [](std::string_view name) -> std::optional<std::string> {
    // Puppet and strace as check finds them ($FSMOVE_PUPPET, $FSMOVE_STRACE, the fixed PATH).
    if (name == "puppet" || name == "strace") {
      std::string path = name == "puppet" ? PuppetExecutable() : StraceExecutable();
      if (access(path.c_str(), X_OK) == 0) return path;
      return std::nullopt;
    }
    const char* env = std::getenv("PATH");
    std::string path_list = fmt::format("{}:{}", env != nullptr ? env : "", kSafePath);
    return FindExecutable(name, path_list);
  };
  utsname u{};
  if (uname(&u) == 0) m.kernel_release = u.release;
  m.uid = geteuid();
  const passwd* pw = getpwuid(m.uid);
  m.user = pw != nullptr ? pw->pw_name : std::to_string(m.uid);
  m.seccomp_prctl = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  m.user_namespace = [] { return ProbeUserNamespace(); };
  m.ptrace = [](const std::string& strace) { return ProbePtrace(strace); };
  m.open_device = [](const std::string& device) {
    const int fd = open(device.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return base::ErrnoStatus(fmt::format("cannot open {}", device));
    close(fd);
    return absl::OkStatus();
  };
  m.root_cache_dir = RootCacheDir();
  m.built_roots = BuiltRoots();
  return m;
}

}  // namespace fsmove::exec
