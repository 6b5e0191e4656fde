// The checked code's scope for --fix-diff and --fix; see fix_scope.h.
#include "fsmove/check/fix_scope.h"

#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "fsmove/exec/module_sources.h"

namespace fsmove::check {
namespace fs = std::filesystem;
namespace {

// The prefix of the catalog's manifest paths that stands for `root` on the machine that
// compiled it: of the prefixes that map some manifest to a file under `root` (its path
// minus a trailing part that exists there), the one most manifests agree on. A dependency
// module beside the checked one (the same `manifests/init.pp` under another prefix) loses the
// vote, so it is never mapped into the checked code.
std::string RecordedPrefix(const std::string& root, const catalog::Catalog& cat) {
  std::set<std::string> files;
  for (const catalog::Resource& r : cat.resources()) {
    if (!r.file.empty() && r.file.front() == '/') files.insert(r.file);
  }
  std::map<std::string, size_t> votes;
  std::error_code ec;
  for (const std::string& file : files) {
    const fs::path path(file);
    const std::vector<fs::path> parts(path.begin(), path.end());
    for (size_t k = 1; k < parts.size(); ++k) {
      fs::path tail, prefix("/");
      for (size_t j = 1; j < k; ++j) prefix /= parts[j];
      for (size_t j = k; j < parts.size(); ++j) tail /= parts[j];
      if (fs::is_regular_file(fs::path(root) / tail, ec)) {
        ++votes[prefix.lexically_normal().string()];
        break;
      }
    }
  }
  std::string best;
  size_t most = 0;
  for (const auto& [prefix, n] : votes) {
    if (n > most || (n == most && prefix.size() > best.size())) best = prefix, most = n;
  }
  while (best.size() > 1 && best.back() == '/') best.pop_back();
  return best;
}

// The dependencies a module check took from module sources (target.h: dependency_links, with
// resolved_dependencies saying what each is, in the same order).
void AddDependencies(const exec::ResolvedTarget& target, fix::FixScope* scope) {
  for (size_t i = 0; i < target.dependency_links.size(); ++i) {
    const std::string what = i < target.resolved_dependencies.size()
                                 ? target.resolved_dependencies[i]
                                 : target.dependency_links[i].first;
    scope->others.emplace_back(target.dependency_links[i].second,
                               absl::StrCat("the dependency ", what));
  }
}

}  // namespace

absl::StatusOr<fix::FixScope> CheckFixScope(const exec::ResolvedTarget& target) {
  fix::FixScope scope;
  switch (target.kind) {
    case exec::ResolvedTarget::Kind::kModule:
      scope.root = target.module_dir;
      AddDependencies(target, &scope);
      return scope;
    case exec::ResolvedTarget::Kind::kManifest:
      if (!target.module_dir.empty()) {
        // A manifest of the module's examples/, or one given --with-module: the module is the
        // code being checked, and its fixes go where they would for the module itself. The
        // manifest takes a chain only when it is the module's own file.
        scope.root = target.module_dir;
        const std::string rel =
            fs::path(target.manifest_path).lexically_relative(target.module_dir).string();
        if (!rel.empty() && !rel.starts_with("..")) scope.manifest = target.manifest_path;
        return scope;
      }
      scope.only_file = scope.manifest = target.manifest_path;
      scope.root = fs::path(target.manifest_path).parent_path().string();
      return scope;
    case exec::ResolvedTarget::Kind::kEnvironment:
      // A control repo: fixes go in its own code (site/'s profiles, its manifests), never in a
      // module its Puppetfile deployed.
      scope.root = target.environment_dir;
      if (!target.deployed_modules.empty()) {
        for (const exec::SourceModule& m : exec::ListSourceModules({target.deployed_modules})) {
          scope.others.emplace_back(
              m.dir, absl::StrCat("the module ", m.name, m.version.empty() ? "" : " ", m.version,
                                  " its Puppetfile deployed"));
        }
      }
      return scope;
    case exec::ResolvedTarget::Kind::kCode:
      break;
  }
  return absl::FailedPreconditionError(
      "--fix-diff and --fix need a module or a manifest: code given with -e has no file to patch");
}

fix::FixScope AnalyzeFixScope(const std::string& source_root, const catalog::Catalog& cat) {
  fix::FixScope scope;
  std::error_code ec;
  fs::path root = fs::absolute(source_root.empty() ? "." : source_root, ec).lexically_normal();
  scope.root = root.string();
  while (scope.root.size() > 1 && scope.root.back() == '/') scope.root.pop_back();
  const std::string prefix = RecordedPrefix(scope.root, cat);
  scope.locate = [r = scope.root, prefix](const std::string& file) {
    if (prefix.empty() || prefix == r) return file;
    const std::string rel = fs::path(file).lexically_normal().lexically_relative(prefix).string();
    if (rel.empty() || rel == "." || rel.starts_with("..")) return file;
    return (fs::path(r) / rel).lexically_normal().string();
  };
  return scope;
}

}  // namespace fsmove::check
