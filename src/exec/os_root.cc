// Pinned OS roots; see os_root.h.
#include "fsmove/exec/os_root.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/process.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace fsmove::exec {
namespace fs = std::filesystem;

const std::vector<RootRecipe>& KnownRoots() {
  // What every check needs (Puppet, strace) and what a Debian machine that runs Puppet has
  // (systemd); nothing else, so that a module's Package resources install what it needs.
  static const std::vector<RootRecipe> roots = {
      {"debian-12", "bookworm", {"puppet-agent", "strace", "systemd"}},
      {"debian-13", "trixie", {"puppet-agent", "strace", "systemd"}},
  };
  return roots;
}

std::string KnownRootNames() {
  std::string names;
  for (const RootRecipe& r : KnownRoots()) names += (names.empty() ? "" : ", ") + r.name;
  return names;
}

const RootRecipe* FindRecipe(std::string_view name) {
  for (const RootRecipe& r : KnownRoots()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string RootCacheDir() {
  const char* dir = std::getenv("FSMOVE_ROOT_CACHE");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : "/var/cache/fsmove/roots";
}

namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// A directory that can serve as the overlay's lower layer: Puppet and strace where the
// sandbox runs them.
absl::Status CheckRootDir(const std::string& dir) {
  // overlayfs's mount options separate layers with ':' and options with ','.
  if (dir.find_first_of(",:\\") != std::string::npos) {
    return absl::InvalidArgumentError(
        fmt::format("{}: a root's path may not hold ',', ':' or '\\' (overlayfs options)", dir));
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(fmt::format("{}: no such directory", dir));
  }
  for (const char* tool : {kRootPuppet, kRootStrace}) {
    if (!Exists(dir + tool)) {
      return absl::FailedPreconditionError(
          fmt::format("{} has no {}: not a root fsmove can run Puppet in", dir, tool));
    }
  }
  return absl::OkStatus();
}

OsRoot Describe(std::string name, std::string dir) {
  OsRoot r{std::move(name), std::move(dir), ""};
  r.puppet_version = UpstreamVersion(PuppetPackageVersion(r.dir));
  return r;
}

// The lock file of a named root (beside it in the cache), opened; -1 on error.
int OpenLock(const std::string& name) {
  std::error_code ec;
  fs::create_directories(RootCacheDir(), ec);
  return open((RootCacheDir() + "/." + name + ".lock").c_str(),
              O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
}

int RunInheriting(const std::vector<std::string>& argv) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  SpawnOptions opts;
  opts.env = std::move(env);
  opts.stdout_fd = STDERR_FILENO;  // progress goes to stderr, like everything but reports
  absl::StatusOr<pid_t> pid = Spawn(argv, opts);
  if (!pid.ok()) return -1;
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string PuppetPackageVersion(const std::string& root_dir) {
  std::istringstream in(
      base::ReadFile((root_dir == "/" ? std::string() : root_dir) + "/var/lib/dpkg/status")
          .value_or(""));
  std::string line, package, version, status;
  std::string agent, puppet;
  auto end_paragraph = [&] {
    if (status.find(" installed") != std::string::npos) {
      if (package == "puppet-agent") agent = version;
      if (package == "puppet") puppet = version;
    }
    package.clear();
    version.clear();
    status.clear();
  };
  while (std::getline(in, line)) {
    if (line.empty()) {
      end_paragraph();
    } else if (line.starts_with("Package: ")) {
      package = line.substr(9);
    } else if (line.starts_with("Version: ")) {
      version = line.substr(9);
    } else if (line.starts_with("Status: ")) {
      status = line.substr(8);
    }
  }
  end_paragraph();
  return agent.empty() ? puppet : agent;
}

std::string UpstreamVersion(std::string_view v) {
  if (size_t colon = v.find(':'); colon != std::string_view::npos) v.remove_prefix(colon + 1);
  if (size_t dash = v.rfind('-'); dash != std::string_view::npos) v = v.substr(0, dash);
  return std::string(v);
}

absl::StatusOr<OsRoot> ResolveRoot(const std::string& spec, bool build_missing,
                                   std::string_view mirror) {
  if (spec.empty() || spec == kHostRoot) return Describe(std::string(kHostRoot), "/");
  if (spec.find('/') != std::string::npos) {
    std::error_code ec;
    fs::path dir = fs::canonical(spec, ec);
    if (ec) return absl::NotFoundError(fmt::format("--root {}: {}", spec, ec.message()));
    if (dir == "/") return Describe(std::string(kHostRoot), "/");
    if (absl::Status st = CheckRootDir(dir.string()); !st.ok()) {
      return absl::FailedPreconditionError(
          fmt::format("--root {}: {}", spec, std::string(st.message())));
    }
    return Describe(dir.string(), dir.string());
  }
  if (FindRecipe(spec) == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "--root {}: not a root fsmove knows ({}), `host`, nor a directory (give a path with a "
        "'/')",
        spec, KnownRootNames()));
  }
  const std::string dir = RootCacheDir() + "/" + spec;
  if (CheckRootDir(dir).ok()) return Describe(spec, dir);
  if (!build_missing) {
    return absl::FailedPreconditionError(
        fmt::format("the root {} is not built: build it with `fsmove root build {}`", spec, spec));
  }
  RootBuildOptions options;
  options.mirror = std::string(mirror);
  return BuildRoot(spec, options);
}

absl::StatusOr<OsRoot> BuildRoot(const std::string& name, const RootBuildOptions& options) {
  const RootRecipe* recipe = FindRecipe(name);
  if (recipe == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("no recipe for a root named {} (known: {})", name, KnownRootNames()));
  }
  if (geteuid() != 0) {
    return absl::FailedPreconditionError("building a root needs root (mmdebstrap's root mode)");
  }
  std::optional<std::string> mmdebstrap = FindExecutable("mmdebstrap", kSafePath);
  if (!mmdebstrap) {
    return absl::FailedPreconditionError(
        "mmdebstrap not found: install it with `apt-get install mmdebstrap` (or run "
        "tools/bootstrap)");
  }
  const std::string cache = RootCacheDir();
  const int lock = OpenLock(name);
  if (lock < 0)
    return base::ErrnoStatus(fmt::format("cannot open the lock file of {} in {}", name, cache));
  struct Unlock {
    int fd;
    ~Unlock() { close(fd); }
  } unlock{lock};
  while (flock(lock, LOCK_EX) != 0) {
    if (errno != EINTR) return base::ErrnoStatus("flock");
  }
  const std::string dir = cache + "/" + name;
  // Another process may have built it while this one waited for the lock.
  if (!options.rebuild && CheckRootDir(dir).ok()) return Describe(name, dir);

  std::cerr << fmt::format(
      "fsmove: note: building the root {} with mmdebstrap (Debian {} from {}; once: it is kept "
      "in {})\n",
      name, recipe->suite, options.mirror, cache);
  const std::string building = fmt::format("{}/.{}.build-{}", cache, name, getpid());
  std::error_code ec;
  fs::remove_all(building, ec);
  std::string packages;
  for (const std::string& p : recipe->packages) packages += (packages.empty() ? "" : ",") + p;
  const auto t0 = std::chrono::steady_clock::now();
  // The package lists stay (--skip=cleanup/apt/lists): Package resources install from the
  // same lists on every check, without the network for `apt-get update`.
  int st = RunInheriting({*mmdebstrap, "--variant=minbase", "--include=" + packages,
                          "--skip=cleanup/apt/lists", recipe->suite, building, options.mirror});
  if (st != 0) {
    fs::remove_all(building, ec);
    return absl::UnavailableError(fmt::format(
        "mmdebstrap could not build {} ({} from {}): {} (its messages are above; another "
        "mirror: `fsmove root build {} --mirror URL`; this machine's own files: --root host)",
        name, recipe->suite, options.mirror,
        st < 0 ? std::string("could not start it") : DescribeWaitStatus(st), name));
  }
  // Names every program resolves; the sandbox writes its own resolv.conf.
  {
    std::ofstream hosts(building + "/etc/hosts", std::ios::trunc);
    hosts << "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";
  }
  if (absl::Status ok = CheckRootDir(building); !ok.ok()) {
    fs::remove_all(building, ec);
    return absl::InternalError(
        fmt::format("mmdebstrap built {}, but {}", name, std::string(ok.message())));
  }
  const std::string old = fmt::format("{}/.{}.old-{}", cache, name, getpid());
  if (Exists(dir) && rename(dir.c_str(), old.c_str()) != 0) {
    fs::remove_all(building, ec);
    return base::ErrnoStatus(fmt::format("cannot move the old {} aside", dir));
  }
  if (rename(building.c_str(), dir.c_str()) != 0)
    return base::ErrnoStatus(fmt::format("cannot rename into {}", dir));
  fs::remove_all(old, ec);
  OsRoot root = Describe(name, dir);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json meta = {{"name", name},
                         {"suite", recipe->suite},
                         {"mirror", options.mirror},
                         {"packages", recipe->packages},
                         {"built", UtcNow()},
                         {"build_seconds", seconds},
                         {"puppet_version", root.puppet_version}};
  std::ofstream(cache + "/" + name + ".json", std::ios::trunc) << meta.dump(2) << "\n";
  return root;
}

absl::Status RemoveRoot(const std::string& name) {
  if (FindRecipe(name) == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("no root named {} (known: {})", name, KnownRootNames()));
  }
  const std::string dir = RootCacheDir() + "/" + name;
  if (!Exists(dir)) return absl::NotFoundError(fmt::format("the root {} is not built", name));
  const int lock = OpenLock(name);
  if (lock < 0) return base::ErrnoStatus("cannot open the lock file");
  // A check that runs on it holds a shared lock: wait for it.
  while (flock(lock, LOCK_EX) != 0 && errno == EINTR) {
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::remove(RootCacheDir() + "/" + name + ".json", ec);
  close(lock);
  if (ec) return absl::InternalError(fmt::format("cannot remove {}: {}", dir, ec.message()));
  return absl::OkStatus();
}

std::vector<OsRoot> BuiltRoots() {
  std::vector<OsRoot> roots;
  for (const RootRecipe& r : KnownRoots()) {
    const std::string dir = RootCacheDir() + "/" + r.name;
    if (CheckRootDir(dir).ok()) roots.push_back(Describe(r.name, dir));
  }
  return roots;
}

int LockRootShared(const OsRoot& root) {
  if (FindRecipe(root.name) == nullptr) return -1;
  const int lock = OpenLock(root.name);
  if (lock < 0) return -1;
  while (flock(lock, LOCK_SH) != 0) {
    if (errno != EINTR) {
      close(lock);
      return -1;
    }
  }
  return lock;
}

}  // namespace fsmove::exec
