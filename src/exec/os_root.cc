// Pinned OS roots; see os_root.h.
#include "fsmove/exec/os_root.h"

#include <fcntl.h>
#include <pwd.h>
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
#include <functional>
#include <sstream>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/root_archive.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace fsmove::exec {
namespace fs = std::filesystem;

const std::vector<RootRecipe>& KnownRoots() {
  // Priority important (what a Debian machine has: procps for the `base` service provider,
  // iproute2, cron, logrotate; named too, for a mirror without priorities), what every check
  // needs (Puppet, strace) and what a Debian machine that runs Puppet has (systemd); and the
  // modules of the types Puppet moved out of its core (ssh_authorized_key, augeas, mount,
  // host, cron, selinux: what Puppet's own packages vendor and Debian's puppet-agent
  // suggests), Puppet code only, in /usr/share/puppet/modules (kRootPuppetModules). Nothing
  // else, so that a module's Package resources install what it needs.
  static const std::vector<std::string> kPackages = {"puppet-agent",
                                                     "strace",
                                                     "systemd",
                                                     "procps",
                                                     "iproute2",
                                                     "cron",
                                                     "logrotate",
                                                     "puppet-module-puppetlabs-augeas-core",
                                                     "puppet-module-puppetlabs-cron-core",
                                                     "puppet-module-puppetlabs-host-core",
                                                     "puppet-module-puppetlabs-mount-core",
                                                     "puppet-module-puppetlabs-selinux-core",
                                                     "puppet-module-puppetlabs-sshkeys-core"};
  static const std::vector<RootRecipe> roots = {
      {"debian-12", "bookworm", kPackages, "12", "7.23.0"},
      {"debian-13", "trixie", kPackages, "13", "8.10.0"},
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

std::string RootCacheDir() { return RootCacheDirFor(geteuid()); }

std::string RootCacheDirFor(uid_t euid) {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
  if (std::string dir = env("FSMOVE_ROOT_CACHE"); !dir.empty()) return dir;
  if (euid == 0) return "/var/cache/fsmove/roots";
  // The XDG base directory spec: a relative $XDG_CACHE_HOME is ignored.
  if (std::string xdg = env("XDG_CACHE_HOME"); xdg.starts_with('/')) return xdg + "/fsmove/roots";
  std::string home = env("HOME");
  if (home.empty()) {
    if (const passwd* pw = getpwuid(euid); pw != nullptr && pw->pw_dir != nullptr)
      home = pw->pw_dir;
  }
  return home + "/.cache/fsmove/roots";
}

namespace {

// Each paragraph of a dpkg status file: its package, version and status.
void ForEachDpkgParagraph(
    std::string_view dpkg_status,
    const std::function<void(std::string_view, std::string_view, std::string_view)>& each) {
  std::string_view package, version, status;
  auto end_paragraph = [&] {
    if (!package.empty()) each(package, version, status);
    package = version = status = {};
  };
  while (!dpkg_status.empty()) {
    size_t eol = dpkg_status.find('\n');
    std::string_view line = dpkg_status.substr(0, eol);
    dpkg_status.remove_prefix(eol == std::string_view::npos ? dpkg_status.size() : eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
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
}

}  // namespace

std::vector<std::string> InstalledPackages(std::string_view dpkg_status) {
  std::vector<std::string> installed;
  ForEachDpkgParagraph(dpkg_status, [&](std::string_view package, std::string_view version,
                                        std::string_view status) {
    if (status.ends_with(" installed")) installed.push_back(fmt::format("{}={}", package, version));
  });
  std::sort(installed.begin(), installed.end());
  return installed;
}

std::optional<SubordinateIds> FirstSubordinateIds(std::string_view subid_file,
                                                  std::string_view user, uid_t uid) {
  return FindSubordinateRange(subid_file, user, uid, /*min_count=*/1);
}

namespace {

std::string PuppetVersionInStatus(const std::string& dpkg_status);

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

std::string MetadataPath(const std::string& name) { return RootCacheDir() + "/" + name + ".json"; }

// The root `dir` as a check uses it; a named root's metadata (`name` is a known root's) says
// whether it is outdated and its id_base.
OsRoot Describe(std::string name, std::string dir) {
  OsRoot r;
  r.name = std::move(name);
  r.dir = std::move(dir);
  const std::string status =
      base::ReadFile((r.host() ? std::string() : r.dir) + "/var/lib/dpkg/status").value_or("");
  r.puppet_version = UpstreamVersion(PuppetVersionInStatus(status));
  r.package_count = InstalledPackages(status).size();
  if (r.host()) return r;
  nlohmann::json meta;
  if (FindRecipe(r.name) != nullptr) {
    meta = nlohmann::json::parse(base::ReadFile(MetadataPath(r.name)).value_or(""), nullptr,
                                 /*allow_exceptions=*/false);
    const auto format = meta.is_object() ? meta.find("format") : meta.end();
    r.outdated = !(meta.is_object() && format != meta.end() && format->is_number_integer() &&
                   format->get<int>() >= kRootFormat);
  }
  if (meta.is_object() && meta.contains("id_base") && meta["id_base"].is_number_unsigned()) {
    r.id_base = meta["id_base"].get<uint32_t>();
  } else if (struct stat st; lstat((r.dir + kRootPuppet).c_str(), &st) == 0) {
    r.id_base = st.st_uid;
  }
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

// Removes the tree `path` (nothing if it is not there). Root removes it directly. A root
// another user built (mmdebstrap --mode=unshare) is owned by their subordinate ids, which
// they cannot remove as themselves: `unshare --map-auto --map-root-user` maps them to 0 and
// their first subordinate range to 1..65535, which gives them the capabilities over both.
absl::Status RemoveTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (!Exists(path)) return absl::OkStatus();
  if (geteuid() == 0) {
    return absl::InternalError(fmt::format("cannot remove {}: {}", path, ec.message()));
  }
  std::optional<std::string> unshare = FindExecutable("unshare", kSafePath);
  if (!unshare) {
    return absl::FailedPreconditionError(fmt::format(
        "cannot remove {} ({}), and no unshare (util-linux) to remove it as its subordinate "
        "ids",
        path, ec.message()));
  }
  absl::StatusOr<CapturedRun> run = RunCaptured({*unshare, "--map-auto", "--map-root-user", "--",
                                                 "rm", "-rf", "--one-file-system", "--", path},
                                                {"PATH=" + std::string(kSafePath), "LC_ALL=C"});
  if (!run.ok()) return run.status();
  if (Exists(path)) {
    std::string why = run->err.empty() ? DescribeWaitStatus(run->wait_status) : run->err;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return absl::InternalError(
        fmt::format("cannot remove {} in a user namespace that maps your subordinate ids "
                    "(unshare --map-auto --map-root-user rm -rf): {}",
                    path, why));
  }
  return absl::OkStatus();
}

// Why this user cannot build with mmdebstrap --mode=unshare into `cache`, if they cannot: it
// needs newuidmap/newgidmap, kUnshareIds subordinate uids and gids, and a cache directory the
// unshared root (a subordinate uid, an "other" to the user's files) can reach.
absl::Status CheckUnshareReady(const std::string& cache) {
  const uid_t uid = geteuid();
  const passwd* pw = getpwuid(uid);
  const std::string user = pw != nullptr ? pw->pw_name : std::to_string(uid);
  const std::string fix = fmt::format(
      "as root, `usermod --add-subuids 100000-165535 --add-subgids 100000-165535 {}` (any free "
      "range of {} ids), or build it as root",
      user, kUnshareIds);
  for (const char* tool : {"newuidmap", "newgidmap"}) {
    if (!FindExecutable(tool, kSafePath)) {
      return absl::FailedPreconditionError(fmt::format(
          "building a root as {} (not root) uses mmdebstrap --mode=unshare, which needs {}: "
          "install it with `apt-get install uidmap`",
          user, tool));
    }
  }
  for (const char* file : {"/etc/subuid", "/etc/subgid"}) {
    std::optional<SubordinateIds> ids =
        FirstSubordinateIds(base::ReadFile(file).value_or(""), user, uid);
    if (!ids || ids->count < kUnshareIds) {
      return absl::FailedPreconditionError(fmt::format(
          "building a root as {} (not root) uses mmdebstrap --mode=unshare, which maps the "
          "root's {} ids to {}'s subordinate ones, but {} gives {} {}: {}",
          user, kUnshareIds, user, file, user,
          ids ? fmt::format("only {}", ids->count) : std::string("none"), fix));
    }
  }
  std::error_code ec;
  fs::create_directories(cache, ec);
  for (fs::path p = fs::absolute(cache, ec); !p.empty(); p = p.parent_path()) {
    struct stat st;
    if (stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) {
      return absl::FailedPreconditionError(fmt::format(
          "mmdebstrap --mode=unshare builds {} as one of {}'s subordinate uids, which cannot "
          "enter {} (mode {:o}): `chmod o+x {}`, or move the cache with FSMOVE_ROOT_CACHE",
          cache, user, p.string(), st.st_mode & 07777, p.string()));
    }
    if (p == p.root_path()) break;
  }
  return absl::OkStatus();
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Passes one of BuildRoot's messages to its caller, when it listens.
void Say(const RootBuildOptions& options, const base::Diagnostic& d) {
  if (options.say) options.say(d);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> TopLevelSymlinks(const std::string& root_dir) {
  std::vector<std::pair<std::string, std::string>> links;
  std::error_code ec;
  for (fs::directory_iterator it(root_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (!it->is_symlink(e2)) continue;
    fs::path target = fs::read_symlink(it->path(), e2);
    if (!e2) links.emplace_back(it->path().filename().string(), target.string());
  }
  std::sort(links.begin(), links.end());
  return links;
}

std::string PuppetPackageVersion(const std::string& root_dir) {
  return PuppetVersionInStatus(
      base::ReadFile((root_dir == "/" ? std::string() : root_dir) + "/var/lib/dpkg/status")
          .value_or(""));
}

namespace {

// PuppetPackageVersion from the dpkg status file's text.
std::string PuppetVersionInStatus(const std::string& dpkg_status) {
  std::string agent, puppet;
  ForEachDpkgParagraph(dpkg_status, [&](std::string_view package, std::string_view version,
                                        std::string_view status) {
    if (status.find(" installed") == std::string_view::npos) return;
    if (package == "puppet-agent") agent = version;
    if (package == "puppet") puppet = version;
  });
  return agent.empty() ? puppet : agent;
}

}  // namespace

std::string UpstreamVersion(std::string_view v) {
  if (size_t colon = v.find(':'); colon != std::string_view::npos) v.remove_prefix(colon + 1);
  if (size_t dash = v.rfind('-'); dash != std::string_view::npos) v = v.substr(0, dash);
  return std::string(v);
}

absl::StatusOr<OsRoot> ResolveRoot(const std::string& spec, bool build_missing,
                                   const RootBuildOptions& build) {
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
  if (CheckRootDir(dir).ok()) {
    OsRoot built = Describe(spec, dir);
    // An outdated root is rebuilt (BuildRoot says so) when building is allowed.
    if (!built.outdated || !build_missing) return built;
  } else if (!build_missing) {
    return absl::FailedPreconditionError(
        fmt::format("the root {} is not built: build it with `fsmove root build {}`", spec, spec));
  }
  RootBuildOptions options = build;
  options.rebuild = false;
  return BuildRoot(spec, options);
}

absl::Status InstallRoot(const std::string& name, const std::string& building,
                         const nlohmann::json& meta, const base::DiagnosticSink& say) {
  const std::string cache = RootCacheDir();
  const std::string dir = cache + "/" + name;
  // The metadata goes into place before the root (renamed over the old one's), so that the
  // root is never seen with an older root's metadata.
  const std::string meta_path = MetadataPath(name);
  const std::string meta_tmp = fmt::format("{}.tmp-{}", meta_path, getpid());
  {
    std::ofstream out(meta_tmp, std::ios::trunc);
    out << meta.dump(2) << "\n";
    out.close();
    if (!out) return absl::InternalError(fmt::format("cannot write {}", meta_tmp));
  }
  const std::string old = fmt::format("{}/.{}.old-{}", cache, name, getpid());
  if (Exists(dir) && rename(dir.c_str(), old.c_str()) != 0) {
    absl::Status err = base::ErrnoStatus(fmt::format("cannot move the old {} aside", dir));
    unlink(meta_tmp.c_str());
    return err;
  }
  if (rename(meta_tmp.c_str(), meta_path.c_str()) != 0 ||
      rename(building.c_str(), dir.c_str()) != 0) {
    return base::ErrnoStatus(fmt::format("cannot rename into {}", dir));
  }
  if (absl::Status st = RemoveTree(old); !st.ok() && say) {
    say(base::Warning(
        fmt::format("the old root is left in {}: {}", old, std::string(st.message()))));
  }
  return absl::OkStatus();
}

absl::StatusOr<OsRoot> BuildRoot(const std::string& name, const RootBuildOptions& options) {
  const RootRecipe* recipe = FindRecipe(name);
  if (recipe == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("no recipe for a root named {} (known: {})", name, KnownRootNames()));
  }
  const bool unshare = geteuid() != 0;
  if (unshare) {
    if (absl::Status st = CheckUnshareReady(RootCacheDir()); !st.ok()) return st;
  }
  std::optional<std::string> mmdebstrap = FindExecutable("mmdebstrap", kSafePath);
  if (!mmdebstrap) {
    return absl::FailedPreconditionError(
        "mmdebstrap not found: install it with `apt-get install mmdebstrap` (or run "
        "tools/bootstrap)");
  }
  const std::string cache = RootCacheDir();
  absl::StatusOr<base::UniqueFd> lock = LockRootExclusive(name);
  if (!lock.ok()) return lock.status();
  const std::string dir = cache + "/" + name;
  // Another process may have built it while this one waited for the lock.
  if (!options.rebuild && CheckRootDir(dir).ok()) {
    OsRoot built = Describe(name, dir);
    if (!built.outdated) return built;
    Say(options, base::Note(fmt::format(
                     "the root {} was built by an older fsmove (without Puppet's core type "
                     "modules, or minbase): rebuilding it",
                     name)));
  }

  const char* mode = unshare ? "unshare" : "root";
  Say(options, base::Note(fmt::format(
                   "building the root {} with mmdebstrap --mode={} (Debian {} from {}; once: "
                   "it is kept in {})",
                   name, mode, recipe->suite, options.mirror, cache)));
  const std::string building = fmt::format("{}/.{}.build-{}", cache, name, getpid());
  if (absl::Status st = RemoveTree(building); !st.ok()) return st;
  std::string packages;
  for (const std::string& p : recipe->packages) packages += (packages.empty() ? "" : ",") + p;
  const auto t0 = std::chrono::steady_clock::now();
  // The package lists stay (--skip=cleanup/apt/lists): Package resources install from the
  // same lists on every check, without the network for `apt-get update`. /etc/hosts names
  // what every program resolves (the sandbox writes its own resolv.conf); written by a hook,
  // which can write the root's files in either mode.
  int st = RunInheriting(
      {*mmdebstrap, "--variant=important", fmt::format("--mode={}", mode), "--include=" + packages,
       "--skip=cleanup/apt/lists",
       "--customize-hook=printf '127.0.0.1\\tlocalhost\\n::1\\tlocalhost ip6-localhost "
       "ip6-loopback\\n' > \"$1/etc/hosts\"",
       recipe->suite, building, options.mirror});
  if (st != 0) {
    (void)RemoveTree(building);
    return absl::UnavailableError(fmt::format(
        "mmdebstrap could not build {} ({} from {}): {} (its messages are above; another "
        "mirror: `fsmove root build {} --mirror URL`; this machine's own files: --root host)",
        name, recipe->suite, options.mirror,
        st < 0 ? std::string("could not start it") : DescribeWaitStatus(st), name));
  }
  if (absl::Status ok = CheckRootDir(building); !ok.ok()) {
    (void)RemoveTree(building);
    return absl::InternalError(
        fmt::format("mmdebstrap built {}, but {}", name, std::string(ok.message())));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The owner on disk of uid 0's files: 0 in root mode, the user's first subordinate uid in
  // unshare mode (read back rather than assumed).
  uint32_t id_base = 0;
  if (struct stat pst; lstat((building + kRootPuppet).c_str(), &pst) == 0) id_base = pst.st_uid;
  const std::string status = base::ReadFile(building + "/var/lib/dpkg/status").value_or("");
  nlohmann::json meta = {{"format", kRootFormat},
                         {"name", name},
                         {"suite", recipe->suite},
                         {"mirror", options.mirror},
                         {"variant", "important"},
                         {"mode", mode},
                         {"id_base", id_base},
                         {"packages", recipe->packages},
                         {"built", UtcNow()},
                         {"build_seconds", seconds},
                         {"puppet_version", UpstreamVersion(PuppetVersionInStatus(status))},
                         {"installed", InstalledPackages(status)}};
  // What `fsmove root export` records and `root import` checks (a root built before has none:
  // export computes it). Root's roots only: some files of a root built with --mode=unshare
  // (/etc/shadow) are its subordinate ids' to read, not the user's.
  if (!unshare) {
    absl::StatusOr<std::string> content = RootContentHash(building, id_base);
    if (!content.ok()) {
      (void)RemoveTree(building);
      return content.status();
    }
    meta["content_sha256"] = *content;
  }
  if (absl::Status st = InstallRoot(name, building, meta, options.say); !st.ok()) {
    (void)RemoveTree(building);
    return st;
  }
  return Describe(name, dir);
}

absl::Status RemoveRoot(const std::string& name) {
  if (FindRecipe(name) == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("no root named {} (known: {})", name, KnownRootNames()));
  }
  const std::string dir = RootCacheDir() + "/" + name;
  if (!Exists(dir)) return absl::NotFoundError(fmt::format("the root {} is not built", name));
  // A check that runs on it holds a shared lock: wait for it.
  absl::StatusOr<base::UniqueFd> lock = LockRootExclusive(name);
  if (!lock.ok()) return lock.status();
  absl::Status st = RemoveTree(dir);
  if (st.ok()) unlink(MetadataPath(name).c_str());
  return st;
}

std::vector<OsRoot> BuiltRoots() {
  std::vector<OsRoot> roots;
  for (const RootRecipe& r : KnownRoots()) {
    const std::string dir = RootCacheDir() + "/" + r.name;
    if (CheckRootDir(dir).ok()) roots.push_back(Describe(r.name, dir));
  }
  return roots;
}

absl::StatusOr<base::UniqueFd> LockRootExclusive(const std::string& name) {
  base::UniqueFd lock(OpenLock(name));
  if (lock.get() < 0) {
    const int e = errno;
    return base::ErrnoStatus(
        fmt::format("cannot open the lock file of {} in {}", name, RootCacheDir()), e);
  }
  while (flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return base::ErrnoStatus("flock");
  }
  return lock;
}

std::string RootMetadataPath(const std::string& name) { return MetadataPath(name); }

absl::Status RemoveRootTree(const std::string& path) { return RemoveTree(path); }

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
