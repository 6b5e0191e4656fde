// The sandbox's file systems; see sandbox_layout.h.
#include "fsmove/exec/sandbox_layout.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/base/split.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/puppet_command.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

absl::Status Mount(const std::string& source, const std::string& target, const char* type,
                   unsigned long flags, const std::string& data = "") {
  if (mount(source.c_str(), target.c_str(), type, flags, data.empty() ? nullptr : data.c_str()) !=
      0) {
    return base::ErrnoStatus(fmt::format("mount {} on {}", type ? type : source, target));
  }
  return absl::OkStatus();
}

absl::Status BindReadOnly(const std::string& source, const std::string& target) {
  if (absl::Status st = Mount(source, target, nullptr, MS_BIND | MS_REC); !st.ok()) return st;
  return Mount("", target, nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY);
}

std::string FdPath(int fd) { return fmt::format("/proc/self/fd/{}", fd); }

// A version control system's metadata, which Puppet never reads: what a CI checkout keeps
// there includes its credentials (actions/checkout's extraheader token in .git/config, the
// job token in a GitLab runner's remote URL).
constexpr const char* kVersionControl[] = {".git", ".hg", ".svn"};

// The version control metadata in the input directory `dir` (bound already) and in its
// directories two levels down (the modules of a modulepath directory or a control repo's
// modules/), hidden under an empty read-only tmpfs (a `.git` file, a worktree's, under the
// root's /dev/null). Links are not followed.
absl::Status HideVersionControl(const std::string& dir, int depth) {
  struct stat st;
  for (const char* name : kVersionControl) {
    const std::string path = fmt::format("{}/{}", dir, name);
    if (lstat(path.c_str(), &st) != 0) continue;
    absl::Status hidden = absl::OkStatus();
    if (S_ISDIR(st.st_mode)) {
      hidden = Mount("fsmove-hidden", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                     "mode=0555,size=4k");
    } else if (S_ISREG(st.st_mode)) {
      hidden = Mount("/dev/null", path, nullptr, MS_BIND);
    }
    if (!hidden.ok()) return hidden;
  }
  if (depth >= 2) return absl::OkStatus();
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return absl::OkStatus();
  std::vector<std::string> subdirs;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == ".." || name.starts_with(".")) continue;
    const std::string path = fmt::format("{}/{}", dir, name);
    if (e->d_type == DT_DIR ||
        (e->d_type == DT_UNKNOWN && lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))) {
      subdirs.push_back(path);
    }
  }
  closedir(d);
  for (const std::string& sub : subdirs) {
    if (absl::Status st = HideVersionControl(sub, depth + 1); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// The symbolic links of the work directory's `sub` (in/), made again at `dest` (inside the
// sandbox's own work directory); false when there is no such directory.
bool CopyLinks(int in_dir, const std::string& sub, const std::string& dest) {
  const int links = openat(in_dir, sub.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (links < 0) return false;
  std::error_code ec;
  std::filesystem::create_directories(dest, ec);
  DIR* d = fdopendir(links);
  if (d == nullptr) {
    close(links);
    return true;
  }
  while (dirent* e = readdir(d)) {
    char target[4096];
    ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    (void)!symlink(target, (dest + "/" + e->d_name).c_str());
  }
  closedir(d);
  return true;
}

}  // namespace

absl::Status WriteFileWithMode(const std::string& path, std::string_view text, mode_t mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return base::ErrnoStatus(fmt::format("write {}", path));
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fchmod(fd, mode) != 0) ok = false;
  close(fd);
  return ok ? absl::OkStatus() : base::ErrnoStatus(fmt::format("write {}", path));
}

// The overlay of the OS root at WS/merged, over WS/upper, mounted in the sandbox's own
// user namespace (overlay_mount.h's kSandbox).
absl::Status SandboxLayout::MountOwnOverlay() {
  const std::string& ws = ws_;
  for (const char* d : {"lower", "upper", "work"}) mkdir((ws + "/" + d).c_str(), 0755);
  // overlayfs in a user namespace creates no redirects: renaming a directory of the OS root
  // fails with EXDEV (mv copies instead). It marks a directory removed and made again in a
  // user.* extended attribute, which tmpfs keeps only from Linux 6.6 on: before, that mkdir
  // fails. Said, not hidden; run as root, the keeper mounts the overlay instead.
  if (setxattr((ws + "/upper").c_str(), "user.fsmove.probe", "1", 1, 0) != 0) {
    status_.Send(status::Note{fmt::format(
        "this kernel's tmpfs keeps no user extended attributes ({}; Linux 6.6 or later does): "
        "in this sandbox, a directory of the OS root cannot be removed and made again",
        std::strerror(errno))});
  } else {
    removexattr((ws + "/upper").c_str(), "user.fsmove.probe");
  }
  if (absl::Status st = Mount(FdPath(fds_.lower), ws + "/lower", nullptr, MS_BIND); !st.ok()) {
    return st;
  }
  return Mount("fsmove-root", root_, "overlay", 0,
               fmt::format("lowerdir={0}/lower,upperdir={0}/upper,workdir={0}/work,userxattr", ws));
}

// The sandbox's file systems, made in its own mount namespace (owned by its user
// namespace, so nothing here reaches the host's mount table or the host's files): a tmpfs
// for the overlay's upper layer, the overlay of the OS root, fresh /proc, /sys, /run, /tmp,
// a private /dev, the inputs bound read-only, and the sandbox's work directory.
absl::Status SandboxLayout::Build() {
  // Every tmpfs: owned by the sandbox's root, sized; the memory limit covers their pages.
  const std::string owner = "uid=0,gid=0";
  // A scratch place no host path leads to from here: the host's /tmp, covered in this mount
  // namespace only (the inputs and the lower layer are held by descriptors).
  const std::string& ws = ws_;
  if (absl::Status st =
          Mount("fsmove-sandbox", ws, "tmpfs", MS_NOSUID, "mode=0755,size=75%," + owner);
      !st.ok()) {
    return st;
  }
  root_ = ws + "/merged";
  mkdir(root_.c_str(), 0755);
  if (fds_.merged >= 0) {
    // The keeper mounted the overlay (overlay_mount.h): its merged tree becomes the root.
    if (absl::Status st = Mount(FdPath(fds_.merged), root_, nullptr, MS_BIND); !st.ok()) {
      return st;
    }
  } else if (absl::Status st = MountOwnOverlay(); !st.ok()) {
    return st;
  }
  struct Step {
    std::string source, target;
    const char* type;
    unsigned long flags;
    std::string data;
  };
  const std::vector<Step> steps = {
      {"proc", root_ + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, ""},  // this PID ns
      {"run", root_ + "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=25%," + owner},
      {"tmp", root_ + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=25%," + owner},
  };
  for (const Step& s : steps) {
    if (absl::Status st = Mount(s.source, s.target, s.type, s.flags, s.data); !st.ok()) return st;
  }
  // A fresh sysfs, read-only as a whole: the host's cgroup tree and the other file systems
  // mounted under the host's /sys are not there. (The kernel lets a user namespace mount
  // one for the network namespace it owns.)
  if (absl::Status st =
          Mount("sysfs", root_ + "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC);
      !st.ok()) {
    return st;
  }
  // The kernel's knobs stay as they are: read-only, as container runtimes make them. (In
  // the sandbox's user namespace the host's knobs are not writable anyway: they belong to
  // the host's root.)
  for (const char* knob :
       {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/acpi"}) {
    std::string target = root_ + knob;
    if (access(target.c_str(), F_OK) != 0) continue;
    if (absl::Status st = BindReadOnly(target, target); !st.ok()) return st;
  }
  if (absl::Status st = SetUpDevices(); !st.ok()) return st;
  mkdir((root_ + "/run/lock").c_str(), 01777);
  chmod((root_ + "/run/lock").c_str(), 01777);
  if (BootsSystemd(spec_, phase_)) {
    if (absl::Status st = MountForSystemd(owner); !st.ok()) return st;
    if (absl::Status st = MakeConsole(); !st.ok()) {
      status_.Send(status::Note{
          fmt::format("systemd's log is not kept: no console: {}", std::string(st.message()))});
    }
  }
  if (absl::Status st = SetUpWorkDir(); !st.ok()) return st;
  // Each modulepath directory: a small tmpfs of its own, where only its modules are bound
  // (below), made read-only once they are: nothing else of the directory is seen.
  std::vector<std::string> linked = spec_.linked_module_dirs;
  std::sort(linked.begin(), linked.end());  // a directory before those under it
  for (const std::string& dir : linked) {
    std::error_code ec;
    fs::create_directories(root_ + dir, ec);
    if (absl::Status st = Mount("fsmove-modules", root_ + dir, "tmpfs", MS_NOSUID | MS_NODEV,
                                "mode=0755,size=1m," + owner);
        !st.ok()) {
      return st;
    }
  }
  // The inputs (module directories, manifests), read-only where Puppet finds them.
  for (const auto& [path, fd] : fds_.inputs) {
    struct stat st;
    if (fstat(fd, &st) != 0) continue;
    std::error_code ec;
    std::string target = root_ + path;
    if (S_ISDIR(st.st_mode)) {
      fs::create_directories(target, ec);
    } else {
      fs::create_directories(fs::path(target).parent_path(), ec);
      close(open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    }
    if (absl::Status b = BindReadOnly(FdPath(fd), target); !b.ok()) return b;
    if (S_ISDIR(st.st_mode)) {
      if (absl::Status h = HideVersionControl(target, 0); !h.ok()) return h;
    }
  }
  for (const std::string& dir : linked) {
    if (absl::Status st = Mount("", root_ + dir, nullptr,
                                MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755");
        !st.ok()) {
      return st;
    }
  }
  if (absl::Status st = SetUpNames(); !st.ok()) return st;
  return SetPolicyRc();
}

// The names every program resolves: the host's resolvers (or slirp4netns's forwarder), and
// the sandbox's own host name (HostsWithOwnName).
absl::Status SandboxLayout::SetUpNames() {
  // apt needs DNS; a resolv.conf symlink into the (now empty) /run would dangle.
  std::string resolv = root_ + "/etc/resolv.conf";
  unlink(resolv.c_str());
  // The host's resolvers, unless they are on its loopback (a local stub resolver), which the
  // sandbox's own network cannot reach: then slirp4netns's DNS forwarder.
  std::string resolvers = base::ReadFile("/etc/resolv.conf").value_or("");
  if (resolvers.find("nameserver 127.") != std::string::npos ||
      resolvers.find("nameserver ::1") != std::string::npos || resolvers.empty()) {
    resolvers = "# fsmove sandbox: slirp4netns's DNS forwarder\nnameserver 10.0.2.3\n";
  }
  if (absl::Status st = WriteFileWithMode(resolv, resolvers, 0644); !st.ok()) return st;
  // The host name resolves (HostsWithOwnName), with a domain (the executor's CertName, when it
  // is this name's). The root's hosts is read never through a link (it would lead into the
  // host's tree here, before the pivot); a link is replaced.
  char host[256] = {};
  const int etc = open((root_ + "/etc").c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (etc >= 0 && gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
    const std::string_view name = host;
    const std::string& given = spec_.host_name;
    const std::string fqdn = given.size() > name.size() &&
                                     given.compare(0, name.size(), name) == 0 &&
                                     given[name.size()] == '.'
                                 ? given
                                 : QualifiedHostName(name, "", "");
    const std::string hosts =
        base::ReadUntrustedFile(etc, "hosts", "the root's /etc/hosts", 1 << 20).value_or("");
    if (std::string with_name = HostsWithOwnName(hosts, fqdn); with_name != hosts) {
      unlinkat(etc, "hosts", 0);
      if (absl::Status st = WriteFileWithMode(root_ + "/etc/hosts", with_name, 0644); !st.ok()) {
        close(etc);
        return st;
      }
    }
  }
  if (etc >= 0) close(etc);
  return absl::OkStatus();
}

namespace {

// The words of each line of a hosts or resolv.conf file, its comment ('#') left out.
template <typename Fn>
void ForEachLineWords(std::string_view text, Fn&& fn) {
  for (std::string_view line : base::Split(text, '\n')) {
    const std::vector<std::string_view> words =
        base::Words(line.substr(0, line.find('#')), " \t\r");
    if (!words.empty()) fn(words);
  }
}

}  // namespace

std::string HostsWithOwnName(std::string_view hosts, std::string_view hostname) {
  const std::string_view short_name = hostname.substr(0, hostname.find('.'));
  // ADDRESS NAME [ALIAS...]: the words after the first name the address.
  bool named = false;
  ForEachLineWords(hosts, [&](const std::vector<std::string_view>& words) {
    named = named || std::find(words.begin() + 1, words.end(), hostname) != words.end();
  });
  if (named) return std::string(hosts);
  std::string out(hosts);
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "# fsmove sandbox: its own host name, as Debian's installer maps it\n127.0.1.1\t";
  out += hostname;
  if (short_name != hostname) out += fmt::format(" {}", short_name);
  out += '\n';
  return out;
}

std::string QualifiedHostName(std::string_view name, std::string_view hosts,
                              std::string_view resolv) {
  if (name.empty() || name.find('.') != std::string_view::npos) return std::string(name);
  std::string qualified;
  ForEachLineWords(hosts, [&](const std::vector<std::string_view>& words) {
    if (!qualified.empty() || words.size() < 3) return;
    const std::string_view canonical = words[1];
    if (canonical.size() > name.size() + 1 && canonical.substr(0, name.size()) == name &&
        canonical[name.size()] == '.' &&
        std::find(words.begin() + 2, words.end(), name) != words.end()) {
      qualified = std::string(canonical);
    }
  });
  if (!qualified.empty()) return qualified;
  // resolv.conf(5): the last `domain` or `search` line wins; search's first domain is the one.
  std::string_view domain;
  ForEachLineWords(resolv, [&](const std::vector<std::string_view>& words) {
    if (words.size() >= 2 && (words[0] == "domain" || words[0] == "search")) domain = words[1];
  });
  while (!domain.empty() && domain.back() == '.') domain.remove_suffix(1);
  return fmt::format("{}.{}", name, domain.empty() || domain == "." ? "localdomain" : domain);
}

// --init systemd: systemd mounts the API file systems it finds missing, and stops if it
// cannot; it holds no SYS_ADMIN to mount (capabilities.h), so the sandbox mounts them first,
// as podman does for a container whose init is systemd: its cgroup tree, a pure cgroup2
// whose root is the sandbox's own cgroup (this process's cgroup namespace), writable on the
// read-only /sys, and /run/lock. `owner`: the tmpfs's owner option.
absl::Status SandboxLayout::MountForSystemd(const std::string& owner) {
  if (absl::Status st = Mount("cgroup2", root_ + "/sys/fs/cgroup", "cgroup2",
                              MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
      !st.ok()) {
    return st;
  }
  return Mount("tmpfs", root_ + "/run/lock", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
               "mode=1777,size=5m," + owner);
}

// The sandbox's work directory (kSandboxWorkDir, on its own /run): the manifest and module
// links from the host's in/ (copied: nothing of the host's disk is writable here), the
// graph directory, and the trace FIFO bound from the host for strace alone.
absl::Status SandboxLayout::SetUpWorkDir() {
  const std::string dir = root_ + kSandboxWorkDir;
  mkdir(dir.c_str(), 0755);
  mkdir((dir + "/" + kGraphDir).c_str(), 0755);
  if (fds_.in_dir >= 0) {
    // The generated manifest; with --facts, the facts file's copy and the script merging it.
    for (const char* name : {kManifestFile, kMergeFactsFile, kFactsJsonFile, kFactsYamlFile}) {
      auto text = base::ReadUntrustedFile(fds_.in_dir, name, name, catalog::kMaxCatalogBytes);
      if (!text.ok()) continue;
      if (absl::Status st = WriteFileWithMode(dir + "/" + name, *text, 0644); !st.ok()) return st;
    }
    CopyLinks(fds_.in_dir, kModuleLinks, dir + "/" + kModuleLinks);
    CopyLinks(fds_.in_dir, kApplyModulepathLinks, dir + "/" + kApplyModulepathLinks);
    // A control repo's environment (executor.cc's LayOutEnvironment): its links, and the
    // environment.conf fsmove wrote.
    const std::string env = fmt::format("{}/{}", kEnvironments, kEnvironmentName);
    if (CopyLinks(fds_.in_dir, env, dir + "/" + env)) {
      const int env_fd =
          openat(fds_.in_dir, env.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      auto conf =
          base::ReadUntrustedFile(env_fd, "environment.conf", "the environment.conf", 1 << 20);
      if (env_fd >= 0) close(env_fd);
      if (!conf.ok()) return conf.status();
      if (absl::Status st = WriteFileWithMode(dir + "/" + env + "/environment.conf", *conf, 0644);
          !st.ok()) {
        return st;
      }
    }
  }
  if (fds_.trace_fifo >= 0 && phase_ != SupervisorPhase::kCompile) {
    const std::string fifo = dir + "/" + kTraceFifo;
    close(open(fifo.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    if (absl::Status st = Mount(FdPath(fds_.trace_fifo), fifo, nullptr, MS_BIND); !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

// The overlay becomes the root of the namespace and the host's root is detached: nothing in
// the sandbox (this process included) can reach the host's files any more, by `..` out of
// a chroot, /proc/1/root or a mount namespace it enters. For --keep-sandbox, the overlay's
// upper layer stays reachable (bound inside); the directory it is copied to is bound only
// at the end (Keep).
absl::Status SandboxLayout::Pivot() {
  if (!spec_.keep_dir.empty()) {
    mkdir((root_ + kKeepUpperDir).c_str(), 0700);
    const std::string upper = fds_.upper >= 0 ? FdPath(fds_.upper) : ws_ + "/upper";
    if (absl::Status st = Mount(upper, root_ + kKeepUpperDir, nullptr, MS_BIND); !st.ok())
      return st;
  }
  const std::string old_root = root_ + "/.fsmove-old-root";
  mkdir(old_root.c_str(), 0700);
  if (syscall(SYS_pivot_root, root_.c_str(), old_root.c_str()) != 0) {
    return base::ErrnoStatus(fmt::format("pivot_root to {}", root_));
  }
  if (chdir("/") != 0) return base::ErrnoStatus("chdir / after pivot_root");
  if (umount2("/.fsmove-old-root", MNT_DETACH) != 0)
    return base::ErrnoStatus("detaching the old root");
  rmdir("/.fsmove-old-root");
  root_ = "/";
  return absl::OkStatus();
}

// A private /dev with only the harmless devices (no disks, no host terminals), bound from
// the host's (a user namespace cannot make device nodes), its own pseudo-terminals and
// shared memory.
absl::Status SandboxLayout::SetUpDevices() {
  const std::string dev = root_ + "/dev";
  if (absl::Status st = Mount("fsmove-dev", dev, "tmpfs", MS_NOSUID | MS_NOEXEC,
                              "mode=0755,size=64k,uid=0,gid=0");
      !st.ok()) {
    return st;
  }
  for (const char* name : {"null", "zero", "full", "random", "urandom", "tty"}) {
    const std::string path = dev + "/" + name;
    close(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666));
    if (absl::Status st = Mount(std::string("/dev/") + name, path, nullptr, MS_BIND); !st.ok())
      return st;
  }
  for (const char* d : {"/pts", "/shm", "/mqueue"}) mkdir((dev + d).c_str(), 0755);
  if (absl::Status st = Mount("devpts", dev + "/pts", "devpts", MS_NOSUID | MS_NOEXEC,
                              "newinstance,ptmxmode=0666,mode=0620,gid=5");
      !st.ok()) {
    return st;
  }
  if (absl::Status st = Mount("shm", dev + "/shm", "tmpfs", MS_NOSUID | MS_NODEV,
                              "mode=1777,size=25%,uid=0,gid=0");
      !st.ok()) {
    return st;
  }
  struct Link {
    const char* target;
    const char* name;
  };
  for (const Link& l :
       {Link{"pts/ptmx", "ptmx"}, Link{"/proc/self/fd", "fd"}, Link{"/proc/self/fd/0", "stdin"},
        Link{"/proc/self/fd/1", "stdout"}, Link{"/proc/self/fd/2", "stderr"}}) {
    if (symlink(l.target, (dev + "/" + l.name).c_str()) != 0) {
      return base::ErrnoStatus(fmt::format("symlink {}/{}", dev, l.name));
    }
  }
  return absl::OkStatus();
}

SandboxLayout::~SandboxLayout() {
  if (console_master_ >= 0) close(console_master_);
}

// systemd as PID 1 reopens /dev/console for every message it logs (never its stdout), as
// init must; without a console its log is lost. The console is a pseudo-terminal of the
// sandbox's own devpts, bound at /dev/console, as podman and LXC make one; its master stays
// with PID 1, whose drain copies it into out/ (systemd_boot.h). Module code can open the
// console and add lines, but what is written to a slave is read only at the master.
absl::Status SandboxLayout::MakeConsole() {
  const std::string dev = root_ + "/dev";
  const int master = open((dev + "/pts/ptmx").c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return base::ErrnoStatus("open /dev/pts/ptmx");
  unsigned int n = 0;
  int unlock = 0;
  if (ioctl(master, TIOCSPTLCK, &unlock) != 0 || ioctl(master, TIOCGPTN, &n) != 0) {
    const int err = errno;
    close(master);
    return base::ErrnoStatus("unlocking the console's pseudo-terminal", err);
  }
  // Raw to begin with; systemd resets the terminal when it opens it (adding "\r" before each
  // "\n"), so the drain drops "\r" as well (OutputDrain::AdoptConsole).
  struct termios t;
  if (tcgetattr(master, &t) == 0) {
    cfmakeraw(&t);
    tcsetattr(master, TCSANOW, &t);
  }
  const std::string console = dev + "/console";
  close(open(console.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  if (absl::Status st = Mount(fmt::format("{}/pts/{}", dev, n), console, nullptr, MS_BIND);
      !st.ok()) {
    close(master);
    return st;
  }
  console_master_ = master;
  return absl::OkStatus();
}

// Service starts by maintainer scripts go through invoke-rc.d, which asks policy-rc.d. In a
// chroot, without a policy, invoke-rc.d learns no runlevel and starts nothing; Debian's
// container images ship one that denies everything. Service resources are not affected.
absl::Status SandboxLayout::SetPolicyRc() {
  std::string policy = root_ + "/usr/sbin/policy-rc.d";
  if (spec_.policy_rc == "allow") {
    unlink(policy.c_str());
    return WriteFileWithMode(
        policy, "#!/bin/sh\n# fsmove sandbox: allow every init script action\nexit 0\n", 0755);
  }
  if (spec_.policy_rc == "deny") {
    if (access(policy.c_str(), F_OK) == 0) return absl::OkStatus();
    return WriteFileWithMode(
        policy, "#!/bin/sh\n# fsmove sandbox: deny every init script action\nexit 101\n", 0755);
  }
  unlink(policy.c_str());
  return absl::OkStatus();
}

}  // namespace fsmove::exec
