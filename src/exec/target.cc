// Resolving `fsmove check TARGET`; see target.h.
#include "fsmove/exec/target.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/control_repo.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
std::string ShortModuleName(std::string_view full) {
  size_t cut = full.find_first_of("-/");
  return std::string(cut == std::string_view::npos ? full : full.substr(cut + 1));
}

absl::StatusOr<int> OpenResolvedInput(const std::string& path) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const int fd = static_cast<int>(syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
  if (fd >= 0) return fd;
  const int e = errno;
  if (e == ELOOP) {
    return absl::FailedPreconditionError(fmt::format(
        "{} has a symbolic link in it now, and had none when fsmove resolved it: it was "
        "changed while fsmove ran, and is not followed",
        path));
  }
  return base::ErrnoStatus(fmt::format("open {}", path), e);
}

bool LooksLikeModule(int dir_fd) {
  struct stat st;
  auto has = [&](const char* name, mode_t type) {
    return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
  };
  // A module may hold only files (puppet:///modules/NAME/...) or templates: a site module of keys.
  return has("metadata.json", S_IFREG) || has("manifests", S_IFDIR) || has("lib/puppet", S_IFDIR) ||
         has("functions", S_IFDIR) || has("types", S_IFDIR) || has("files", S_IFDIR) ||
         has("templates", S_IFDIR);
}

namespace {

namespace fs = std::filesystem;

// `host`, read by Puppet, shown by a sandbox at `at` ("": at `host` itself).
void AddInput(std::string host, ResolvedTarget* t, std::string at = "") {
  t->input_paths.push_back(std::move(host));
  t->input_at.push_back(std::move(at));
}

absl::Status ReadMetadata(const fs::path& dir, ResolvedTarget* t) {
  fs::path meta = dir / "metadata.json";
  // Opened beneath the module: a metadata.json that is a link (to a private file of whoever
  // runs fsmove) is refused, not read.
  absl::StatusOr<std::string> text =
      base::ReadFileBeneath(dir.string(), "metadata.json", "module metadata");
  if (absl::IsNotFound(text.status())) return absl::OkStatus();
  if (!text.ok()) return text.status();
  t->metadata_path = meta.string();
  t->metadata_text = *text;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(fmt::format("{}: not a JSON object", meta.string()));
  }
  if (auto name = j.find("name"); name != j.end() && name->is_string()) {
    t->module_name = ShortModuleName(name->get<std::string>());
  }
  if (auto deps = j.find("dependencies"); deps != j.end() && deps->is_array()) {
    for (const auto& d : *deps) {
      if (d.is_object() && d.contains("name") && d["name"].is_string()) {
        t->dependencies.push_back(d["name"].get<std::string>());
        if (auto r = d.find("version_requirement"); r != d.end() && r->is_string()) {
          t->dependency_ranges.emplace_back(d["name"].get<std::string>(), r->get<std::string>());
        }
      }
    }
  }
  return absl::OkStatus();
}

// .fixtures.yml (puppetlabs_spec_helper) names the modules a module's tests need: each is a
// dependency as well, unless metadata.json names it already.
void ReadFixtures(const fs::path& dir, ResolvedTarget* t) {
  absl::StatusOr<std::string> text =
      base::ReadFileBeneath(dir.string(), ".fixtures.yml", "fixtures");  // never through a link
  if (!text.ok()) return;  // absent or unreadable: the tests' fixtures are optional
  t->fixture_repositories = FixtureRepositories(*text);
  for (std::string& name : FixtureModuleNames(*text)) {
    const bool known =
        std::any_of(t->dependencies.begin(), t->dependencies.end(),
                    [&](const std::string& d) { return ShortModuleName(d) == name; });
    if (!known) t->dependencies.push_back(std::move(name));
  }
}

// A directory of the modulepath as a sandbox shows it: a read-only tmpfs of its own at its
// path, with modules alone bound in it, never the directory itself. Of a --modulepath
// directory, each module in it; of a module's own parent, the module and the modules it
// declares it needs (with theirs): not its siblings' other files, dot directories or
// unrelated checkouts, nor a home directory's `.ssh`.
struct ModulepathDir {
  fs::path dir;                  // absolute, canonical
  std::string given;             // for errors: "--modulepath DIR", or the module as given
  bool every_module = false;     // --modulepath: each module in it
  std::set<std::string> wanted;  // the module's parent: the modules needed from it
};

void AddModulepathDir(std::vector<ModulepathDir>* dirs, const fs::path& dir, std::string given,
                      bool every_module, const std::string& wanted) {
  auto it = std::find_if(dirs->begin(), dirs->end(),
                         [&](const ModulepathDir& d) { return d.dir == dir; });
  if (it == dirs->end()) {
    dirs->push_back({dir, std::move(given), every_module, {}});
    it = dirs->end() - 1;
  }
  it->every_module = it->every_module || every_module;
  if (!wanted.empty()) it->wanted.insert(wanted);
}

// The module at `abs` (absolute) is on the target's modulepath: under its own name (from
// metadata.json, else the directory's), in its parent directory's view when the directory is
// so named (with the dependencies checked out next to it), else linked.
absl::Status UseModule(const fs::path& abs, const std::string& display, ResolvedTarget* t,
                       std::vector<ModulepathDir>* dirs) {
  t->module_dir = abs.string();
  if (absl::Status st = ReadMetadata(abs, t); !st.ok()) return st;
  if (t->module_name.empty()) t->module_name = ShortModuleName(abs.filename().string());
  if (!IsValidModuleName(t->module_name)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: '{}' is not a valid Puppet module name (lower-case letters, digits and '_', "
        "starting with a letter); is this a module directory?",
        display, t->module_name));
  }
  t->link_module = abs.filename().string() != t->module_name;
  if (t->link_module) {
    AddInput(t->module_dir, t);  // the module alone, at its own path
  } else {
    t->modulepath.push_back(abs.parent_path().string());
    AddModulepathDir(dirs, abs.parent_path(), display, false, t->module_name);
  }
  return absl::OkStatus();
}

// A control repo at `abs`: its environment.conf read (beneath the repo), its Puppetfile's
// modules deployed, the whole repo and the deployment shown to the sandbox read-only.
absl::Status UseControlRepo(const fs::path& abs, const TargetRequest& request, ResolvedTarget* t) {
  t->kind = ResolvedTarget::Kind::kEnvironment;
  t->display = request.path;
  t->environment_dir = abs.string();
  absl::StatusOr<EnvironmentConf> read = ReadEnvironmentConf(abs);
  if (!read.ok()) return read.status();
  EnvironmentConf conf = std::move(*read);
  std::error_code ec;
  if (fs::is_regular_file(abs / "Puppetfile", ec)) {
    absl::StatusOr<std::string> deployed =
        DeployPuppetfile(abs, PuppetfileCacheRoot(), request.module_sources);
    if (!deployed.ok()) return deployed.status();
    t->deployed_modules = *deployed;
  }
  AddInput(abs.string(), t);
  if (!t->deployed_modules.empty()) AddInput(t->deployed_modules, t);
  for (const std::string& entry : conf.modulepath) {
    if (entry.starts_with("$")) {
      t->environment_modulepath.push_back(entry);
    } else if (entry == "modules" && !t->deployed_modules.empty()) {
      t->environment_modulepath.push_back(t->deployed_modules);
      t->modulepath.push_back(t->deployed_modules);
    } else if (fs::is_directory(abs / entry, ec)) {
      t->environment_modulepath.push_back((abs / entry).lexically_normal().string());
      t->modulepath.push_back(t->environment_modulepath.back());
    }
  }
  t->environment_manifest = (abs / conf.manifest).lexically_normal().string();
  if (!request.include_class.empty()) {
    // --class ::role::web names the same top-scope class.
    std::string_view name = request.include_class;
    if (name.starts_with("::")) name.remove_prefix(2);
    if (!IsValidClassName(name)) {
      return absl::InvalidArgumentError(fmt::format(
          "--class {}: not a Puppet class name (role::web: lower-case segments joined by ::)",
          request.include_class));
    }
    t->manifest_text = fmt::format("include {}\n", request.include_class);
  } else if (!fs::exists(t->environment_manifest, ec)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the control repo's manifest {} does not exist; give the class to check with "
        "--class (role::web)",
        request.path, t->environment_manifest));
  }
  return absl::OkStatus();
}

// The modules a check needs from the directories that show only those (a module's parent):
// its declared dependencies (metadata.json, .fixtures.yml) and, through their metadata.json,
// theirs, each from the first modulepath directory that has it, as Puppet looks it up.
void WantDependencies(const ResolvedTarget& t, std::vector<ModulepathDir>* dirs) {
  std::vector<std::string> todo;
  for (const std::string& d : t.dependencies) todo.push_back(ShortModuleName(d));
  std::set<std::string> seen = {t.module_name};
  while (!todo.empty()) {
    const std::string name = std::move(todo.back());
    todo.pop_back();
    if (!IsValidModuleName(name) || !seen.insert(name).second) continue;
    for (ModulepathDir& d : *dirs) {
      const fs::path at = d.dir / name;
      struct stat st;
      if (lstat(at.c_str(), &st) != 0) continue;
      if (!d.every_module) d.wanted.insert(name);
      if (S_ISDIR(st.st_mode)) {
        ResolvedTarget dep;
        if (ReadMetadata(at, &dep).ok()) {
          for (const std::string& n : dep.dependencies) todo.push_back(ShortModuleName(n));
        }
      }
      break;
    }
  }
}

// Directories the sandbox has its own of, or that its OS root needs: a modulepath directory is
// shown as a tmpfs at its own path, which would cover them.
bool IsSandboxSystemDir(const fs::path& dir) {
  static constexpr std::string_view kOwn[] = {"/",     "/bin",   "/boot", "/dev",  "/etc",
                                              "/lib",  "/lib64", "/opt",  "/proc", "/run",
                                              "/sbin", "/sys",   "/tmp",  "/usr",  "/var"};
  const std::string s = dir.string();
  return std::find(std::begin(kOwn), std::end(kOwn), s) != std::end(kOwn) ||
         s.starts_with("/proc/") || s.starts_with("/sys/") || s.starts_with("/dev/");
}

// The modulepath directory `d` as a sandbox must show it: a directory of its own with its
// modules (or the wanted ones) in it, each bound on its own: a directory as it is, a link
// as the directory it resolves to, at the link's path; nothing else of the host (not the
// directory's files, not the directories the links go through).
absl::Status ShowModulepathDir(const ModulepathDir& d, ResolvedTarget* t) {
  const fs::path& dir = d.dir;
  const std::string& given = d.given;
  if (IsSandboxSystemDir(dir)) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the modulepath directory {} is one the sandbox has its own of; keep the modules "
        "in a directory of their own (such as {}/modules)",
        given, dir.string(), dir == "/" ? "" : dir.string()));
  }
  std::error_code ec;
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    entries.push_back(*it);
  }
  if (ec) return absl::InvalidArgumentError(fmt::format("{}: {}", given, ec.message()));
  // In name order: the sandbox's view does not depend on the order readdir gives.
  std::sort(entries.begin(), entries.end(),
            [](const fs::directory_entry& a, const fs::directory_entry& b) {
              return a.path().filename() < b.path().filename();
            });
  t->linked_module_dirs.push_back(dir.string());
  for (const fs::directory_entry& e : entries) {
    const fs::path at = e.path();
    const std::string name = at.filename().string();
    // Puppet looks for modules among the directories with a module's name only.
    if (!IsValidModuleName(name)) continue;
    const bool wanted = d.every_module || d.wanted.count(name) > 0;
    if (!e.is_symlink(ec)) {
      if (!e.is_directory(ec)) continue;  // files stay out of sight
      if (wanted && !d.every_module) {
        AddInput(at.string(), t);  // asked for by name
        continue;
      }
      absl::StatusOr<int> fd = OpenResolvedInput(at.string());
      if (!fd.ok()) continue;
      const bool module = LooksLikeModule(*fd);
      close(*fd);
      if (!module) continue;
      if (wanted) {
        AddInput(at.string(), t);
      } else {
        t->unshown_modules.push_back(name);
      }
      continue;
    }
    if (!wanted) continue;
    std::error_code read_ec;
    const std::string text = fs::read_symlink(at, read_ec).string();
    absl::StatusOr<fs::path> followed = ResolveRootOwnedLink(at, given);
    if (!followed.ok() && followed.status().code() != absl::StatusCode::kNotFound)
      return followed.status();
    const fs::path resolved = followed.ok() ? *followed : fs::path();
    if (!followed.ok() || !fs::is_directory(resolved, ec)) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {} is a link to {}, which is not a directory; a module on the "
                      "modulepath must be one (remove the link, or give a modulepath without it)",
                      given, at.string(), text));
    }
    // A link to the modulepath directory itself or above it would show the tree around it.
    const std::string r = resolved.string(), ds = dir.string();
    if (r == "/" || ds == r || ds.starts_with(r + "/")) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {} is a link to {}, which holds the modulepath directory itself; "
                      "a module must be a directory of its own",
                      given, at.string(), text));
    }
    // Nor may it lead anywhere else but to a module: not to a home directory, say.
    absl::StatusOr<int> fd = OpenResolvedInput(r);
    if (!fd.ok()) {  // swapped for a link since it was resolved, or gone: say which
      return absl::Status(fd.status().code(),
                          fmt::format("{}: {} is a link to {}: {}", given, at.string(), text,
                                      std::string(fd.status().message())));
    }
    const bool module = LooksLikeModule(*fd);
    close(*fd);
    if (!module) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: {} is a link to {}, which is not a Puppet module (no "
          "metadata.json, manifests/, lib/puppet/, functions/, types/, files/ or templates/ in "
          "it)",
          given, at.string(), text));
    }
    AddInput(r, t, at.string());
  }
  return absl::OkStatus();
}

// The symbolic links of one bound directory (`host`, shown at `shown`), walked without
// following any: each must lead into one of `roots` (the directories bound for the sandbox).
class LinkWalk {
 public:
  LinkWalk(const std::vector<std::string>& roots, const std::string& host, std::string shown)
      : roots_(roots), host_(host), shown_(std::move(shown)) {}

  absl::Status Walk(int fd, const fs::path& rel, int depth) {
    if (depth > kMaxDepth) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: {} is more than {} directories deep; fsmove checks every link in a module "
          "before it shows the module to the sandbox, and stops there",
          shown_, rel.string(), kMaxDepth));
    }
    DIR* d = fdopendir(fd);
    if (d == nullptr) {
      close(fd);
      return base::ErrnoStatus(fmt::format("{}: cannot read {}", shown_, Name(rel)));
    }
    absl::Status st;
    while (st.ok()) {
      errno = 0;
      const dirent* e = readdir(d);
      if (e == nullptr) {
        if (errno != 0)
          st = base::ErrnoStatus(fmt::format("{}: cannot read {}", shown_, Name(rel)));
        break;
      }
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN) {
        struct stat s;
        if (fstatat(dirfd(d), name.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0) continue;
        type = S_ISDIR(s.st_mode) ? DT_DIR : S_ISLNK(s.st_mode) ? DT_LNK : DT_REG;
      }
      if (type == DT_LNK) {
        st = CheckLink(dirfd(d), rel, name);
      } else if (type == DT_DIR) {
        const int sub =
            openat(dirfd(d), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        // Unreadable to the user running fsmove: the sandbox cannot show it either.
        if (sub >= 0) st = Walk(sub, rel / name, depth + 1);
      }
    }
    closedir(d);
    return st;
  }

 private:
  static constexpr int kMaxDepth = 256;

  std::string Name(const fs::path& rel) const {
    return rel.empty() ? std::string("the module") : rel.string();
  }

  absl::Status CheckLink(int dir_fd, const fs::path& rel, const std::string& name) {
    char buf[4096];
    const ssize_t n = readlinkat(dir_fd, name.c_str(), buf, sizeof buf - 1);
    if (n < 0)
      return base::ErrnoStatus(fmt::format("{}: readlink {}", shown_, (rel / name).string()));
    const std::string text(buf, static_cast<size_t>(n));
    // Where the host resolves it (links on the way followed, a dangling rest taken as
    // written): the sandbox shows the same bound directories at the same paths, and nothing
    // of the host besides, so a link the host resolves into them resolves there too.
    std::error_code ec;
    const fs::path to = fs::weakly_canonical(fs::path(host_) / rel / text, ec);
    if (!ec) {
      const std::string s = to.string();
      for (const std::string& root : roots_) {
        if (s == root || s.starts_with(root + "/")) return absl::OkStatus();
      }
    }
    return absl::InvalidArgumentError(fmt::format(
        "{}: {} is a symbolic link to {}, which leads out of the module: fsmove shows the "
        "sandbox the modules alone and follows no link out of them; replace the link with a "
        "copy of what it leads to, or remove it",
        shown_, (rel / name).string(), text));
  }

  const std::vector<std::string>& roots_;
  const std::string& host_;
  std::string shown_;
};

// Every symbolic link in the directories bound for the sandbox leads into one of them (into
// its own module, or another module shown), or nothing runs: module code sees no place of
// the host through a link, and neither do fsmove's own reads of a module's files.
absl::Status CheckLinksStayInside(const ResolvedTarget& t) {
  std::vector<std::string> roots;
  std::vector<size_t> bound;
  for (size_t i = 0; i < t.input_paths.size(); ++i) {
    struct stat st;
    if (lstat(t.input_paths[i].c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    roots.push_back(t.input_paths[i]);
    bound.push_back(i);
  }
  for (size_t i : bound) {
    const std::string& host = t.input_paths[i];
    const std::string shown =
        i < t.input_at.size() && !t.input_at[i].empty() ? t.input_at[i] : host;
    absl::StatusOr<int> dir = OpenResolvedInput(host);
    if (!dir.ok()) return dir.status();
    const int fd = openat(*dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(*dir);
    if (fd < 0) continue;  // unreadable: the sandbox cannot show it either
    LinkWalk walk(roots, host, shown);
    if (absl::Status st = walk.Walk(fd, fs::path(), 0); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace

// Where the link `link` (absolute) leads, resolved one component at a time as the kernel
// does, with every symbolic link met on the way (the link itself, /etc/alternatives' links,
// links among the directories) owned by root: links that only root could have made. Anybody
// can make a link to their own files; a modulepath of such links, unpacked from an archive,
// would show the sandboxed module code whatever the user running fsmove may read.
absl::StatusOr<std::filesystem::path> ResolveRootOwnedLink(const std::filesystem::path& link,
                                                           const std::string& given) {
  std::vector<fs::path> todo;  // components left, the next one last
  auto push = [&todo](const fs::path& p) {
    std::vector<fs::path> parts(p.begin(), p.end());
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
  };
  push(link);
  fs::path done = "/";
  int links = 0;
  while (!todo.empty()) {
    const fs::path part = std::move(todo.back());
    todo.pop_back();
    if (part.empty() || part == "." || part == "/") continue;
    if (part == "..") {
      done = done.parent_path();
      continue;
    }
    const fs::path next = done / part;
    struct stat st;
    if (lstat(next.c_str(), &st) != 0)
      return base::ErrnoStatus(fmt::format("{}: {}", given, next.string()));
    if (!S_ISLNK(st.st_mode)) {
      done = next;
      continue;
    }
    if (++links > 40) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {} leads through more than 40 symbolic links", given, link.string()));
    }
    if (st.st_uid != 0) {
      return absl::PermissionDeniedError(fmt::format(
          "{}: {} leads through the symbolic link {}, owned by uid {}: fsmove "
          "follows only links owned by root (as Debian's /usr/share/puppet/modules has), since "
          "the module code it runs would see where any other link leads; copy the modules "
          "you trust (cp -rL) or give their own directories as --modulepath",
          given, link.string(), next.string(), st.st_uid));
    }
    std::error_code ec;
    const fs::path to = fs::read_symlink(next, ec);
    if (ec) return absl::InvalidArgumentError(fmt::format("{}: {}", given, ec.message()));
    if (to.is_absolute()) done = "/";
    push(to);
  }
  return done;
}

std::vector<std::string> FixtureModuleNames(std::string_view yaml) {
  // The names under fixtures: repositories:, forge_modules: and symlinks: are the keys one
  // indentation level below those sections.
  std::vector<std::string> names;
  int section_indent = -1;  // indentation of the current section key, -1: outside one
  int entry_indent = -1;    // indentation of its entries, learnt from the first
  for (const YamlKeyLine& l : YamlKeyLines(yaml)) {
    if (section_indent >= 0 && l.indent <= section_indent) section_indent = -1;
    if (section_indent < 0) {
      if (l.key == "repositories" || l.key == "forge_modules" || l.key == "symlinks") {
        section_indent = l.indent;
        entry_indent = -1;
      }
      continue;
    }
    if (entry_indent < 0) entry_indent = l.indent;
    if (l.indent == entry_indent && IsValidModuleName(l.key)) names.emplace_back(l.key);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> MissingModules(const std::vector<std::string>& dependencies,
                                        const std::vector<std::string>& modulepath,
                                        std::string_view self) {
  std::vector<std::string> missing;
  for (const std::string& d : dependencies) {
    const std::string name = ShortModuleName(d);
    if (name == self) continue;
    bool found = false;
    for (const std::string& dir : modulepath) {
      std::error_code ec;
      if (fs::is_directory(fs::path(dir) / name, ec)) {
        found = true;
        break;
      }
    }
    if (!found && std::find(missing.begin(), missing.end(), d) == missing.end())
      missing.push_back(d);
  }
  return missing;
}

namespace {

std::string RangeOf(const ResolvedTarget& t, const std::string& dependency) {
  for (const auto& [name, range] : t.dependency_ranges) {
    if (name == dependency) return range;
  }
  return "";
}

// The dependencies no modulepath directory has, from the module sources (module_sources.h),
// with theirs in turn; what no source has either stays missing. An error when a source has
// one but no version its dependent admits.
absl::Status ResolveFromSources(const TargetRequest& request, ResolvedTarget* t) {
  if (t->missing_dependencies.empty()) return absl::OkStatus();
  std::vector<std::string> sources = request.module_sources;
  if (!request.debian_modules.empty()) sources.push_back(request.debian_modules);
  const std::vector<SourceModule> available = ListSourceModules(sources);
  // .fixtures.yml's repositories of the modules missing, fetched: what the module's own tests
  // run with comes first.
  std::vector<FixtureRepository> wanted;
  for (const FixtureRepository& r : t->fixture_repositories) {
    if (!MissingModules({r.name}, t->modulepath, "").empty()) wanted.push_back(r);
  }
  const FetchedFixtures fixtures =
      FetchFixtureRepositories(wanted, t->module_dir, request.module_sources, FixturesCacheRoot(),
                               (fs::path(t->module_dir) / ".fixtures.yml").string());
  t->dependency_notes = fixtures.notes;
  struct Want {
    std::string name, range, by;
  };
  const std::string self = t->metadata_path.empty() ? t->display : t->metadata_path;
  std::vector<Want> todo;
  for (const std::string& d : t->missing_dependencies) todo.push_back({d, RangeOf(*t, d), self});
  std::vector<std::string> missing;
  std::set<std::string> done = {t->module_name};
  for (size_t i = 0; i < todo.size() && i < 256; ++i) {  // bounded: a hostile chain of sources
    const Want w = todo[i];
    const std::string name = ShortModuleName(w.name);
    if (!IsValidModuleName(name) || !done.insert(name).second) continue;
    if (MissingModules({w.name}, t->modulepath, "").empty()) {
      t->dependencies.push_back(w.name);  // on the modulepath: shown with the others
      continue;
    }
    absl::StatusOr<const SourceModule*> picked =
        PickSourceModule(fixtures.modules, w.name, w.range, w.by);
    if (!picked.ok() || *picked == nullptr) {
      picked = PickSourceModule(available, w.name, w.range, w.by);
    }
    if (!picked.ok()) return picked.status();
    if (*picked == nullptr) {
      missing.push_back(w.name);
      continue;
    }
    const SourceModule& m = **picked;
    t->dependency_links.emplace_back(name, m.dir);
    AddInput(m.dir, t);
    t->resolved_dependencies.push_back(fmt::format(
        "{} {} from {}", m.name, m.version.empty() ? "(no version)" : m.version, m.source));
    ResolvedTarget dep;
    if (ReadMetadata(fs::path(m.dir), &dep).ok()) {
      for (const std::string& d : dep.dependencies) {
        todo.push_back({d, RangeOf(dep, d), m.dir + "/metadata.json"});
      }
    }
  }
  t->missing_dependencies = std::move(missing);
  return absl::OkStatus();
}

}  // namespace

bool IsValidModuleName(std::string_view name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool IsValidClassName(std::string_view name) {
  size_t from = 0;
  while (true) {
    const size_t sep = name.find("::", from);
    if (!IsValidModuleName(name.substr(from, sep - from))) return false;
    if (sep == std::string_view::npos) return true;
    from = sep + 2;
  }
}

absl::StatusOr<ResolvedTarget> ResolveTarget(const TargetRequest& request) {
  ResolvedTarget t;
  std::vector<ModulepathDir> dirs;
  std::error_code ec;
  for (const auto& m : request.modulepath) {
    if (!fs::is_directory(m, ec)) {
      return absl::InvalidArgumentError(fmt::format("--modulepath {}: not a directory", m));
    }
  }
  if (!request.code.empty()) {
    if (!request.path.empty()) {
      return absl::InvalidArgumentError("give either TARGET or -e CODE, not both");
    }
    t.kind = ResolvedTarget::Kind::kCode;
    t.display = "-e";
    t.manifest_text = request.code;
    if (t.manifest_text.back() != '\n') t.manifest_text += '\n';
  } else if (request.path.empty()) {
    return absl::InvalidArgumentError(
        "nothing to check: give a module directory, a .pp manifest, or -e 'puppet code'");
  } else {
    fs::path p = request.path;
    if (!fs::exists(p, ec)) {
      return absl::NotFoundError(
          fmt::format("{}: no such module directory or manifest", request.path));
    }
    fs::path abs = fs::canonical(p, ec);
    if (ec) return absl::InvalidArgumentError(fmt::format("{}: {}", request.path, ec.message()));
    if (fs::is_directory(abs, ec) && LooksLikeControlRepo(abs)) {
      if (absl::Status st = UseControlRepo(abs, request, &t); !st.ok()) return st;
    } else if (fs::is_directory(abs, ec)) {
      t.kind = ResolvedTarget::Kind::kModule;
      t.display = request.path;
      if (absl::Status st = UseModule(abs, request.path, &t, &dirs); !st.ok()) return st;
      if (!fs::is_regular_file(abs / "manifests" / "init.pp", ec)) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: module '{}' has no manifests/init.pp, so there is no class to include; "
            "check a manifest instead (fsmove check FILE.pp, or -e 'include {}::CLASS')",
            request.path, t.module_name, t.module_name));
      }
      t.manifest_text = fmt::format("include {}\n", t.module_name);
    } else if (fs::is_regular_file(abs, ec)) {
      if (abs.extension() != ".pp") {
        return absl::InvalidArgumentError(
            fmt::format("{}: not a Puppet manifest (.pp) or a module directory", request.path));
      }
      t.kind = ResolvedTarget::Kind::kManifest;
      t.display = request.path;
      t.manifest_path = abs.string();
      AddInput(t.manifest_path, &t);
      // A manifest of a module's examples/ (tests/ before PDK) uses that module: it is on the
      // modulepath as when the module itself is checked.
      const fs::path dir = abs.parent_path(), module = dir.parent_path();
      if (request.with_module.empty() &&
          (dir.filename() == "examples" || dir.filename() == "tests") &&
          (fs::is_directory(module / "manifests", ec) ||
           fs::is_regular_file(module / "metadata.json", ec))) {
        if (absl::Status st = UseModule(module, request.path, &t, &dirs); !st.ok()) return st;
      }
    } else {
      return absl::InvalidArgumentError(
          fmt::format("{}: neither a module directory nor a manifest file", request.path));
    }
  }
  if (!request.modulepath.empty() && t.kind == ResolvedTarget::Kind::kEnvironment) {
    return absl::InvalidArgumentError(fmt::format(
        "--modulepath {}: a control repo's modulepath is its environment.conf's; name the "
        "module in its Puppetfile, or put it under a directory of that modulepath",
        request.modulepath.front()));
  }
  if (!request.include_class.empty() && t.kind != ResolvedTarget::Kind::kEnvironment) {
    return absl::InvalidArgumentError(fmt::format(
        "--class {}: a class of a control repo (a directory with environment.conf or a "
        "Puppetfile); for a module's class give -e 'include {}' with the module as --with-module",
        request.include_class, request.include_class));
  }
  if (!request.with_module.empty()) {
    if (t.kind == ResolvedTarget::Kind::kModule || t.kind == ResolvedTarget::Kind::kEnvironment) {
      return absl::InvalidArgumentError(
          "--with-module is for a manifest or -e code; a module TARGET is on the modulepath "
          "already");
    }
    const fs::path module = fs::canonical(request.with_module, ec);
    if (ec || !fs::is_directory(module, ec)) {
      return absl::InvalidArgumentError(
          fmt::format("--with-module {}: not a module directory", request.with_module));
    }
    if (absl::Status st = UseModule(module, "--with-module " + request.with_module, &t, &dirs);
        !st.ok())
      return st;
  }
  for (const auto& m : request.modulepath) {
    const fs::path abs = fs::canonical(m, ec);
    t.modulepath.push_back(abs.string());
    AddModulepathDir(&dirs, abs, "--modulepath " + m, true, "");
  }
  if (!t.module_dir.empty()) {
    ReadFixtures(fs::path(t.module_dir), &t);
    t.missing_dependencies = MissingModules(t.dependencies, t.modulepath, t.module_name);
    if (absl::Status st = ResolveFromSources(request, &t); !st.ok()) return st;
  }
  WantDependencies(t, &dirs);
  for (const ModulepathDir& d : dirs) {
    if (absl::Status st = ShowModulepathDir(d, &t); !st.ok()) return st;
  }
  if (absl::Status st = CheckLinksStayInside(t); !st.ok()) return st;
  return t;
}

}  // namespace fsmove::exec
