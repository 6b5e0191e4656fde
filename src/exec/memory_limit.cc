// A memory cgroup for the sandbox; see memory_limit.h.
#include "fsmove/exec/memory_limit.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/host_budget.h"
#include "fsmove/base/read_file.h"

namespace fsmove::exec {
namespace {

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// Kernel files (/proc, cgroupfs): "" when absent, as for a cgroup already gone.
std::string ReadText(const std::string& path) { return base::ReadFile(path).value_or(""); }

std::string ReadAt(int dir_fd, const char* name) {
  return base::ReadUntrustedFile(dir_fd, name, "", base::kMaxDocumentBytes).value_or("");
}

uint64_t CounterIn(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string k;
  uint64_t v = 0;
  while (lines >> k >> v) {
    if (k == key) return v;
  }
  return 0;
}

}  // namespace

std::optional<uint64_t> ParseMemorySize(const std::string& text) {
  if (text == "none" || text == "0") return 0;
  return base::ParseByteSize(text, 'G');
}

uint64_t MemoryBudget(uint64_t machine_bytes) { return machine_bytes / 4 * 3; }

uint64_t MachineMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

std::optional<uint64_t> MemoryLimitPerCheck(const std::string& text, uint64_t machine_bytes,
                                            int jobs) {
  if (text != "auto") return ParseMemorySize(text);
  return MemoryBudget(machine_bytes) / static_cast<uint64_t>(jobs > 1 ? jobs : 1);
}

namespace {

bool ValidCgroupName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  }
  return true;
}

// This process's cgroups, from /proc/self/cgroup: in v1's memory hierarchy
// ("N:memory:/path", or a line naming memory among others) and in the cgroup2 hierarchy
// ("0::/path").
struct OwnCgroups {
  std::string v1_memory;
  std::string v1_pids;
  std::string v2;
  bool has_v2 = false;
  // The cgroup2 cgroup's parent ("" for the root): where a sibling goes.
  std::string v2_parent() const {
    const size_t slash = v2.rfind('/');
    return v2.substr(0, slash == std::string::npos ? 0 : slash);
  }
};

OwnCgroups ParseOwnCgroups(std::string_view text) {
  OwnCgroups own;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers == "memory" || controllers.find("memory,") == 0 ||
        controllers.find(",memory") != std::string::npos) {
      own.v1_memory = path;
    }
    if (controllers == "pids" || controllers.find("pids,") == 0 ||
        controllers.find(",pids") != std::string::npos) {
      own.v1_pids = path;
    }
    if (line.starts_with("0::")) {
      own.has_v2 = true;
      own.v2 = path;
    }
  }
  return own;
}

OwnCgroups ReadOwnCgroups() { return ParseOwnCgroups(ReadText("/proc/self/cgroup")); }

// Writes `text` to `name` under `dir_fd` (a cgroup's control file).
bool WriteAt(int dir_fd, const std::string& name, const std::string& text) {
  int fd = openat(dir_fd, name.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// Where the memory cgroup `name` goes, next to this process's:
// in v1's memory hierarchy ("N:memory:/path") or, under cgroup v2 ("0::/path"), beside this
// process's cgroup (one with processes cannot enable controllers for children), where the
// memory controller must be enabled.
struct Placement {
  std::string dir;
  bool v2 = false;
};

absl::StatusOr<Placement> PlacementFor(const std::string& name) {
  if (!ValidCgroupName(name)) {
    return absl::InvalidArgumentError(fmt::format("not a cgroup name: '{}'", name));
  }
  const OwnCgroups own = ReadOwnCgroups();
  if (!own.v1_memory.empty() && access("/sys/fs/cgroup/memory/cgroup.procs", F_OK) == 0) {
    return Placement{"/sys/fs/cgroup/memory" +
                         (own.v1_memory == "/" ? std::string() : own.v1_memory) + "/" + name,
                     false};
  }
  if (!own.has_v2) return absl::FailedPreconditionError("no memory cgroup controller");
  const std::string root = "/sys/fs/cgroup";
  if (ReadText(root + "/cgroup.controllers").find("memory") == std::string::npos) {
    return absl::FailedPreconditionError("no memory controller in cgroup v2");
  }
  const std::string parent = own.v2_parent();
  if (ReadText(root + parent + "/cgroup.subtree_control").find("memory") == std::string::npos) {
    return absl::FailedPreconditionError(
        fmt::format("the memory controller is not enabled in {}{}", root, parent));
  }
  return Placement{root + parent + "/" + name, true};
}

// rmdir, retried while the kernel still holds the cgroup (EBUSY right after its processes
// exited): up to two seconds.
void RemoveCgroupDir(int parent_fd, const char* name) {
  for (int i = 0; i < 100; ++i) {
    if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return;
    usleep(20000);
  }
}

// Removes cgroup `name` in `dir_fd` with every cgroup below it, deepest first.
void RemoveCgroupTree(int dir_fd, const std::string& name, int depth) {
  if (depth > 64) return;
  int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  std::vector<std::string> children;
  if (DIR* d = fdopendir(fd)) {
    while (dirent* e = readdir(d)) {
      std::string child = e->d_name;
      if (e->d_type == DT_DIR && child != "." && child != "..") children.push_back(child);
    }
    for (const std::string& child : children) RemoveCgroupTree(dirfd(d), child, depth + 1);
    closedir(d);
  } else {
    close(fd);
  }
  RemoveCgroupDir(dir_fd, name.c_str());
}

// The processes in the cgroup whose directory is `dir_fd` (its cgroup.procs).
std::vector<pid_t> MembersAt(int dir_fd) {
  std::vector<pid_t> out;
  std::istringstream lines(ReadAt(dir_fd, "cgroup.procs"));
  for (long pid; lines >> pid;) {
    if (pid > 0) out.push_back(static_cast<pid_t>(pid));
  }
  return out;
}

// SIGKILL to every process of the cgroup, again until it is empty (a process may fork while
// we read the list): at most about five seconds. How many distinct kills were sent.
size_t KillMembersAt(int dir_fd) {
  size_t killed = 0;
  for (int round = 0; round < 250; ++round) {
    std::vector<pid_t> members = MembersAt(dir_fd);
    if (members.empty()) break;
    for (pid_t pid : members) {
      if (kill(pid, SIGKILL) == 0) ++killed;
    }
    usleep(20000);
  }
  return killed;
}

}  // namespace

std::string MemoryCgroupName(unsigned run) { return fmt::format("fsmove-{}-{}", getpid(), run); }

void RemoveLeftoverMemoryLimit(const std::string& name) {
  // The pids limit's cgroup of the same name, in v1's pids hierarchy.
  if (const OwnCgroups own = ReadOwnCgroups(); !own.v1_pids.empty() && ValidCgroupName(name)) {
    const std::string parent =
        "/sys/fs/cgroup/pids" + (own.v1_pids == "/" ? std::string() : own.v1_pids);
    if (int parent_fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); parent_fd >= 0) {
      if (int dir_fd = openat(parent_fd, name.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
          dir_fd >= 0) {
        KillMembersAt(dir_fd);
        close(dir_fd);
        RemoveCgroupDir(parent_fd, name.c_str());
      }
      close(parent_fd);
    }
  }
  absl::StatusOr<Placement> place = PlacementFor(name);
  if (!place.ok()) return;
  // Without the sandbox's PID namespace nothing else ends what is still in it.
  if (int dir_fd = open(place->dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC); dir_fd >= 0) {
    KillMembersAt(dir_fd);
    close(dir_fd);
  }
  // Under cgroup v2 it may also be --init systemd's, with systemd's cgroups inside.
  const std::string parent = place->dir.substr(0, place->dir.rfind('/'));
  if (int parent_fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); parent_fd >= 0) {
    RemoveCgroupTree(parent_fd, name, 0);
    close(parent_fd);
  }
}

void RemoveLeftoverSystemdCgroup(const std::string& name) {
  if (!ValidCgroupName(name)) return;
  // The sandbox made it through a cgroup2 mount of its own (gone with it); this machine's
  // cgroup2 hierarchy, if mounted here (the "unified" one of a cgroup v1 host), reaches it.
  const std::string mount_point = Cgroup2MountPoint(ReadText("/proc/self/mountinfo"));
  if (mount_point.empty()) return;
  const std::string parent = mount_point + ReadOwnCgroups().v2_parent();
  if (int parent_fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); parent_fd >= 0) {
    RemoveCgroupTree(parent_fd, name, 0);
    close(parent_fd);
  }
}

absl::StatusOr<MemoryLimit> MemoryLimit::Make(uint64_t limit_bytes, const std::string& name) {
  absl::StatusOr<Placement> place = PlacementFor(name);
  if (!place.ok()) return place.status();
  MemoryLimit m;
  m.limit_bytes_ = limit_bytes;
  m.dir_ = place->dir;
  m.v2_ = place->v2;
  if (mkdir(m.dir_.c_str(), 0755) != 0 && errno != EEXIST) {
    return base::ErrnoStatus(fmt::format("cannot make the cgroup {}", m.dir_));
  }
  const std::string file = m.v2_ ? "memory.max" : "memory.limit_in_bytes";
  const std::string limit = limit_bytes > 0 ? std::to_string(limit_bytes) : m.v2_ ? "max" : "-1";
  if (!WriteText(m.dir_ + "/" + file, limit)) {
    rmdir(m.dir_.c_str());
    return absl::FailedPreconditionError(fmt::format("cannot set {}/{}", m.dir_, file));
  }
  // Swap counts too (else the limit only moves memory to swap).
  if (limit_bytes > 0 && m.v2_) {
    WriteText(m.dir_ + "/memory.swap.max", "0");
  } else if (limit_bytes > 0) {
    WriteText(m.dir_ + "/memory.memsw.limit_in_bytes", limit);
  }
  m.name_ = name;
  m.dir_fd_ = open(m.dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  m.parent_fd_ =
      open(m.dir_.substr(0, m.dir_.rfind('/')).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  return m;
}

MemoryLimit::MemoryLimit(MemoryLimit&& other) noexcept
    : dir_(std::move(other.dir_)),
      name_(std::move(other.name_)),
      dir_fd_(other.dir_fd_),
      parent_fd_(other.parent_fd_),
      v2_(other.v2_),
      limit_bytes_(other.limit_bytes_) {
  other.dir_fd_ = other.parent_fd_ = -1;
  other.dir_.clear();
}

MemoryLimit::~MemoryLimit() {
  if (dir_fd_ >= 0) close(dir_fd_);
  if (parent_fd_ >= 0) close(parent_fd_);
}

bool MemoryLimit::Enter() const { return EnterPid(getpid()); }

bool MemoryLimit::EnterPid(pid_t pid) const {
  return dir_fd_ >= 0 && WriteAt(dir_fd_, "cgroup.procs", std::to_string(pid));
}

uint64_t MemoryLimit::TimesHit() const {
  if (dir_fd_ < 0) return 0;
  if (v2_) {
    std::string events = ReadAt(dir_fd_, "memory.events");
    uint64_t kills = CounterIn(events, "oom_kill");
    return kills > 0 ? kills : CounterIn(events, "oom");
  }
  return CounterIn(ReadAt(dir_fd_, "memory.oom_control"), "oom_kill");
}

std::vector<pid_t> MemoryLimit::Members() const {
  return dir_fd_ >= 0 ? MembersAt(dir_fd_) : std::vector<pid_t>();
}

size_t MemoryLimit::KillAll() const { return dir_fd_ >= 0 ? KillMembersAt(dir_fd_) : 0; }

void MemoryLimit::Remove() {
  if (parent_fd_ >= 0 && !name_.empty()) RemoveCgroupDir(parent_fd_, name_.c_str());
  dir_.clear();
}

absl::StatusOr<SystemdCgroup> SystemdCgroup::Make(const std::string& mount_dir,
                                                  const std::string& name) {
  if (!ValidCgroupName(name)) {
    return absl::InvalidArgumentError(fmt::format("not a cgroup name: '{}'", name));
  }
  if (mkdir(mount_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return base::ErrnoStatus(fmt::format("cannot make {}", mount_dir));
  }
  if (mount("cgroup2", mount_dir.c_str(), "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) !=
      0) {
    int e = errno;
    rmdir(mount_dir.c_str());
    return base::ErrnoStatus("cannot mount the cgroup2 hierarchy", e);
  }
  const std::string parent = mount_dir + ReadOwnCgroups().v2_parent();
  SystemdCgroup c;
  c.parent_fd_ = open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (c.parent_fd_ < 0 || (mkdirat(c.parent_fd_, name.c_str(), 0755) != 0 && errno != EEXIST)) {
    int e = errno;
    umount2(mount_dir.c_str(), MNT_DETACH);
    rmdir(mount_dir.c_str());
    return base::ErrnoStatus(fmt::format("cannot make the cgroup {}/{}", parent, name), e);
  }
  c.name_ = name;
  c.mount_dir_ = mount_dir;
  return c;
}

absl::StatusOr<SystemdCgroup> SystemdCgroup::MakeIn(const std::string& dir,
                                                    const std::string& name) {
  if (!ValidCgroupName(name)) {
    return absl::InvalidArgumentError(fmt::format("not a cgroup name: '{}'", name));
  }
  SystemdCgroup c;
  c.parent_fd_ = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (c.parent_fd_ < 0 || (mkdirat(c.parent_fd_, name.c_str(), 0755) != 0 && errno != EEXIST)) {
    return base::ErrnoStatus(fmt::format("cannot make the cgroup {}/{}", dir, name));
  }
  c.name_ = name;
  return c;
}

SystemdCgroup::SystemdCgroup(SystemdCgroup&& other) noexcept
    : parent_fd_(other.parent_fd_),
      name_(std::move(other.name_)),
      mount_dir_(std::move(other.mount_dir_)) {
  other.parent_fd_ = -1;
  other.name_.clear();
  other.mount_dir_.clear();
}

SystemdCgroup::~SystemdCgroup() {
  if (parent_fd_ >= 0) close(parent_fd_);
}

bool SystemdCgroup::EnterPid(pid_t pid) const {
  return parent_fd_ >= 0 && WriteAt(parent_fd_, name_ + "/cgroup.procs", std::to_string(pid));
}

bool SystemdCgroup::Delegate(uid_t uid, gid_t gid) const {
  if (parent_fd_ < 0) return false;
  if (fchownat(parent_fd_, name_.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) return false;
  for (const char* file : {"cgroup.procs", "cgroup.subtree_control", "cgroup.threads"}) {
    if (fchownat(parent_fd_, (name_ + "/" + file).c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0)
      return false;
  }
  return true;
}

absl::StatusOr<SystemdCgroup> SystemdCgroup::MakeInDelegated(const std::string& name,
                                                             std::string_view mountinfo,
                                                             std::string_view own_cgroup) {
  if (!ValidCgroupName(name)) {
    return absl::InvalidArgumentError(fmt::format("not a cgroup name: '{}'", name));
  }
  const std::string mount_point = Cgroup2MountPoint(mountinfo);
  const OwnCgroups own = ParseOwnCgroups(own_cgroup);
  if (mount_point.empty() || !own.has_v2) {
    return absl::FailedPreconditionError(
        "this machine has no cgroup2 hierarchy (cgroup v1 only): a rootless sandbox cannot "
        "give systemd a cgroup tree (use --init none, or run fsmove as root)");
  }
  const std::string dir = mount_point + (own.v2 == "/" ? std::string() : own.v2);
  if (access(dir.c_str(), W_OK) != 0 || access((dir + "/cgroup.procs").c_str(), W_OK) != 0) {
    return absl::FailedPreconditionError(fmt::format(
        "this process's cgroup {} is not delegated to uid {}: systemd in a rootless sandbox "
        "needs a cgroup2 tree of the user's own (run it as `systemd-run --user --scope -p "
        "Delegate=yes fsmove check ...` on a cgroup v2 machine, or use --init none)",
        dir, getuid()));
  }
  return MakeIn(dir, name);
}

std::string Cgroup2MountPoint(std::string_view mountinfo) {
  // "36 25 0:31 / /sys/fs/cgroup/unified rw,... shared:9 - cgroup2 cgroup2 rw,..."
  std::istringstream lines{std::string(mountinfo)};
  for (std::string line; std::getline(lines, line);) {
    const size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, device, root, mount_point;
    if (!(fields >> id >> parent >> device >> root >> mount_point) || root != "/") continue;
    // mountinfo escapes space, tab, newline and backslash as octal: none in a usable path.
    if (mount_point.find('\\') != std::string::npos) continue;
    return mount_point;
  }
  return "";
}

void SystemdCgroup::Remove() {
  if (parent_fd_ < 0 || name_.empty()) return;
  RemoveCgroupTree(parent_fd_, name_, 0);
  name_.clear();
  if (mount_dir_.empty()) return;
  close(parent_fd_);
  parent_fd_ = -1;
  umount2(mount_dir_.c_str(), MNT_DETACH);
  rmdir(mount_dir_.c_str());
  mount_dir_.clear();
}

absl::StatusOr<PidsLimit> PidsLimit::Make(uint32_t max, const std::string& name) {
  if (!ValidCgroupName(name)) {
    return absl::InvalidArgumentError(fmt::format("not a cgroup name: '{}'", name));
  }
  const OwnCgroups own = ReadOwnCgroups();
  std::string dir;
  bool v2 = false;
  if (!own.v1_pids.empty() && access("/sys/fs/cgroup/pids/cgroup.procs", F_OK) == 0) {
    dir = "/sys/fs/cgroup/pids" + (own.v1_pids == "/" ? std::string() : own.v1_pids) + "/" + name;
  } else if (own.has_v2 && ReadText("/sys/fs/cgroup" + own.v2_parent() + "/cgroup.subtree_control")
                                   .find("pids") != std::string::npos) {
    // Under cgroup v2 the memory limit's cgroup (the same name) holds the pids limit too.
    dir = "/sys/fs/cgroup" + own.v2_parent() + "/" + name;
    v2 = true;
  } else {
    return absl::FailedPreconditionError("no pids cgroup controller");
  }
  PidsLimit p;
  p.v2_ = v2;
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return base::ErrnoStatus(fmt::format("cannot make the cgroup {}", dir));
  }
  if (!WriteText(dir + "/pids.max", std::to_string(max))) {
    rmdir(dir.c_str());
    return absl::FailedPreconditionError(fmt::format("cannot set {}/pids.max", dir));
  }
  p.max_ = max;
  p.dir_ = dir;
  p.name_ = name;
  p.dir_fd_ = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  p.parent_fd_ = open(dir.substr(0, dir.rfind('/')).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  return p;
}

PidsLimit::PidsLimit(PidsLimit&& other) noexcept
    : dir_(std::move(other.dir_)),
      v2_(other.v2_),
      name_(std::move(other.name_)),
      dir_fd_(other.dir_fd_),
      parent_fd_(other.parent_fd_),
      max_(other.max_) {
  other.dir_fd_ = other.parent_fd_ = -1;
  other.name_.clear();
}

PidsLimit::~PidsLimit() {
  if (dir_fd_ >= 0) close(dir_fd_);
  if (parent_fd_ >= 0) close(parent_fd_);
}

bool PidsLimit::EnterPid(pid_t pid) const {
  return dir_fd_ >= 0 && WriteAt(dir_fd_, "cgroup.procs", std::to_string(pid));
}

namespace {

uint64_t PidsEventsMaxAt(int dir_fd, int depth) {
  if (dir_fd < 0 || depth > 64) return 0;
  uint64_t hits = CounterIn(ReadAt(dir_fd, "pids.events"), "max");
  // Linux 6.13 and later count a refusal at the cgroup whose limit refused it, and have this
  // file: the cgroup's own count is the whole answer.
  if (faccessat(dir_fd, "pids.events.local", F_OK, 0) == 0) return hits;
  int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return hits;
  std::vector<std::string> children;
  if (DIR* d = fdopendir(fd)) {
    while (dirent* e = readdir(d)) {
      const std::string child = e->d_name;
      if (e->d_type == DT_DIR && child != "." && child != "..") children.push_back(child);
    }
    for (const std::string& child : children) {
      if (int child_fd = openat(dirfd(d), child.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
          child_fd >= 0) {
        hits += PidsEventsMaxAt(child_fd, depth + 1);
        close(child_fd);
      }
    }
    closedir(d);
  } else {
    close(fd);
  }
  return hits;
}

}  // namespace

uint64_t PidsEventsMax(int dir_fd) { return PidsEventsMaxAt(dir_fd, 0); }

uint64_t PidsLimit::TimesHit() const { return PidsEventsMax(dir_fd_); }

void PidsLimit::Remove() {
  if (dir_fd_ >= 0) KillMembersAt(dir_fd_);
  if (parent_fd_ >= 0 && !name_.empty()) RemoveCgroupDir(parent_fd_, name_.c_str());
  name_.clear();
}

}  // namespace fsmove::exec
