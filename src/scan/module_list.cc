// Module discovery for batch scans: list files, directories of modules, identities and the
// names of their result folders.
#include "fsmove/scan/module_list.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "fmt/format.h"
#include "fsmove/base/blanks.h"
#include "fsmove/base/read_file.h"
#include "fsmove/base/sha256.h"
#include "fsmove/exec/control_repo.h"
#include "fsmove/exec/target.h"
#include "fsmove/scan/acceptance_specs.h"
#include "fsmove/scan/module_classes.h"

namespace fsmove::scan {

namespace fs = std::filesystem;

std::string NormalizeModulePath(std::string_view path) {
  std::string s = fs::path(std::string(path)).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s.empty() ? "." : s;
}

namespace {

using base::TrimBlanks;

}  // namespace

absl::StatusOr<std::vector<std::string>> ReadModuleList(const std::string& list_file) {
  // A regular file up to a cap (a FIFO or /dev/zero would block or never end); `-` reads
  // standard input, the way to give a pipe.
  std::string text;
  if (list_file == "-") {
    char chunk[64 * 1024];
    while (std::cin.read(chunk, sizeof chunk) || std::cin.gcount() > 0) {
      text.append(chunk, static_cast<size_t>(std::cin.gcount()));
      if (text.size() > base::kMaxDocumentBytes) {
        return absl::ResourceExhaustedError(
            fmt::format("the module list on standard input is larger than {} MiB",
                        base::kMaxDocumentBytes >> 20));
      }
    }
  } else {
    absl::StatusOr<std::string> read = base::ReadFile(list_file, "module list");
    if (!read.ok()) return read.status();
    text = std::move(*read);
  }
  std::istringstream in(text);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    std::string_view l = TrimBlanks(line);
    if (l.empty() || l.front() == '#') continue;
    out.emplace_back(l);
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> DiscoverModules(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return absl::NotFoundError(fmt::format("cannot list {}: {}", dir, ec.message()));
  std::vector<std::string> out;
  // Nothing through a link anybody could have made: a link in DIR (to a private directory of
  // whoever runs the scan) is not a module of DIR, unless root owns it (Debian's
  // /usr/share/puppet/modules, links into modules.available/: as for a modulepath); a
  // metadata.json or manifests/ that is a link does not make one.
  for (const fs::directory_entry& e : it) {
    std::error_code e2;
    struct stat link {};
    if (fs::is_symlink(e.symlink_status(e2)) &&
        (lstat(e.path().c_str(), &link) != 0 || link.st_uid != 0 || !e.is_directory(e2))) {
      continue;
    }
    if (!fs::is_symlink(e.symlink_status(e2)) && !fs::is_directory(e.symlink_status(e2))) continue;
    if (fs::is_directory(fs::symlink_status(e.path() / "manifests", e2)) ||
        fs::is_regular_file(fs::symlink_status(e.path() / "metadata.json", e2))) {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> CanonicalModuleList(std::vector<std::string> modules) {
  for (auto& m : modules) m = NormalizeModulePath(m);
  std::sort(modules.begin(), modules.end());
  modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
  return modules;
}

namespace {

// For MODULE/examples/X.pp or MODULE/tests/X.pp: the position of "/examples/" or "/tests/".
size_t ExampleDirAt(std::string_view run) {
  if (!run.ends_with(".pp")) return std::string_view::npos;
  for (std::string_view dir : {"/examples/", "/tests/"}) {
    const size_t at = run.rfind(dir);
    if (at != std::string_view::npos && at > 0 &&
        run.find('/', at + dir.size()) == std::string_view::npos) {
      return at;
    }
  }
  return std::string_view::npos;
}

}  // namespace

bool IsClassRun(std::string_view run) { return !ClassRunClass(run).empty(); }

std::string_view ClassRunClass(std::string_view run) {
  const size_t hash = run.rfind('#');
  if (hash == std::string_view::npos || hash == 0 || run.find('/', hash) != std::string_view::npos)
    return {};
  const std::string_view name = run.substr(hash + 1);
  return exec::IsValidClassName(name) ? name : std::string_view();
}

std::vector<std::string> ControlRepoRuns(const std::string& repo) {
  const std::string norm = NormalizeModulePath(repo);
  const absl::StatusOr<exec::EnvironmentConf> conf = exec::ReadEnvironmentConf(repo);
  if (!conf.ok()) return {norm};  // its check says what is wrong
  const std::vector<std::string>& modulepath = conf->modulepath;
  // Puppet takes the first module of a name on the modulepath: the first `role` there.
  std::vector<std::string> runs;
  for (const std::string& entry : modulepath) {
    std::error_code ec;
    const fs::path role = fs::path(repo) / entry / "role";
    if (entry.starts_with('$') || !fs::is_directory(role / "manifests", ec)) continue;
    // A link that leads out of the repo is refused by the check; its classes are not read.
    if (fs::is_symlink(fs::path(repo) / entry, ec) || fs::is_symlink(role, ec)) break;
    for (const std::string& c : IncludableClasses(role.string(), kMaxRoleRuns))
      runs.push_back(fmt::format("{}#{}", norm, c));
    break;
  }
  if (runs.empty()) runs.push_back(norm);
  return runs;
}

std::vector<std::string> ExpandModuleRuns(const std::string& module) {
  if (module.ends_with(".pp") || IsClassRun(module)) return {module};
  if (exec::LooksLikeControlRepo(module)) return ControlRepoRuns(module);
  std::vector<std::string> runs;
  std::error_code ec;
  const IncludeClass include = ModuleIncludeClass(module);
  if (include.found) runs.push_back(module);
  const char* dir = fs::is_directory(fs::path(module) / "examples", ec) ? "examples" : "tests";
  std::vector<std::string> examples;
  for (fs::directory_iterator it(fs::path(module) / dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code e2;
    const std::string name = it->path().filename().string();
    // A link is listed too, so that its run says it is refused (PrepareRunBeneath).
    if (name.ends_with(".pp") && name.front() != '.' &&
        (it->is_regular_file(e2) || it->is_symlink(e2))) {
      examples.push_back(NormalizeModulePath(fmt::format("{}/{}/{}", module, dir, name)));
    }
  }
  std::sort(examples.begin(), examples.end());
  runs.insert(runs.end(), examples.begin(), examples.end());
  const std::vector<std::string> specs = AcceptanceRuns(module, kMaxAcceptanceRuns);
  runs.insert(runs.end(), specs.begin(), specs.end());
  // `include MODULE` alone cannot compile: the module's public classes that need nothing.
  if (!include.found || !include.declaration.required.empty()) {
    for (const std::string& c : IncludableClasses(module, kMaxClassRuns))
      runs.push_back(fmt::format("{}#{}", NormalizeModulePath(module), c));
  }
  if (runs.empty()) runs.push_back(module);
  return runs;
}

std::string NothingToApply(const std::string& module) {
  const IncludeClass include = ModuleIncludeClass(module);
  if (include.found) return {};
  const std::vector<std::string> runs = ExpandModuleRuns(module);
  if (runs.size() == 1 && runs.front() == module) {
    return include.why_not +
           "; nor a manifest under examples/ or tests/, a literal acceptance-spec manifest or a "
           "public class whose parameters all have defaults: name a manifest for it in a list "
           "file";
  }
  return fmt::format("{} ({} other run{} left out by --no-examples)", include.why_not, runs.size(),
                     runs.size() == 1 ? "" : "s");
}

std::string_view RunSource(std::string_view run) {
  if (IsAcceptanceRun(run)) return "acceptance";
  if (IsClassRun(run)) return "class";
  if (!run.ends_with(".pp")) return "include";
  return ExampleDirAt(run) != std::string_view::npos ? "example" : "manifest";
}

std::string RunModule(std::string_view run) {
  if (IsAcceptanceRun(run)) return AcceptanceRunModule(run);
  if (IsClassRun(run)) return std::string(run.substr(0, run.rfind('#')));
  if (!run.ends_with(".pp")) return std::string(run);
  const size_t at = ExampleDirAt(run);
  return at == std::string_view::npos ? std::string() : std::string(run.substr(0, at));
}

std::string ModuleDirName(std::string_view module) {
  std::string norm = NormalizeModulePath(module);
  // An example's folder is named after its module and file: apache_examples_vhost.pp-HASH.
  std::string base = fs::path(norm).filename().string();
  if (IsClassRun(norm)) {
    base = fs::path(RunModule(norm)).filename().string() + "_class_" +
           std::string(ClassRunClass(norm));
  } else if (const std::string of = RunModule(norm); !of.empty() && of != norm) {
    base = fs::path(of).filename().string() + "_" +
           fs::path(norm).parent_path().filename().string() + "_" + base;
  }
  if (base.empty() || base == "." || base == "..") base = "module";
  for (char& c : base) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-';
    if (!safe) c = '_';
  }
  if (base.front() == '.') base.front() = '_';  // no hidden folders, no "..": never a path step
  if (base.size() > 64) base.resize(64);
  return fmt::format("{}-{}", base, base::Sha256Hex(norm).substr(0, 8));
}

}  // namespace fsmove::scan
