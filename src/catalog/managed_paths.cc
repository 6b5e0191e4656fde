// Which file-system paths each catalog resource manages on every machine, and the
// reverse index: who manages exactly this path, and the nearest managed ancestor.
#include "fsmove/catalog/managed_paths.h"

#include "fsmove/catalog/file_path.h"

namespace fsmove::catalog {
namespace {

void AddIfAbsolute(std::string_view path, std::vector<std::string>& out) {
  if (IsAbsolutePath(path)) out.push_back(CanonicalFilePath(path));
}

// `parameter` when it is a string, else the title: the namevar default of these types.
void AddParameterOrTitle(const Resource& resource, std::string_view parameter,
                         std::vector<std::string>& out) {
  const std::optional<std::string> value = resource.StringParameter(parameter);
  AddIfAbsolute(value ? *value : resource.title, out);
}

}  // namespace

std::vector<std::string> PathsManagedBy(const Resource& resource) {
  std::vector<std::string> paths;
  const std::string& type = resource.type;
  if (type == "File" || type == "Concat_file" || type == "Concat") {
    AddParameterOrTitle(resource, "path", paths);
  } else if (type == "Exec") {
    for (const std::string& created : resource.StringListParameter("creates")) {
      AddIfAbsolute(created, paths);
    }
  } else if (type == "File_line" || type == "Ini_setting") {
    if (std::optional<std::string> path = resource.StringParameter("path"))
      AddIfAbsolute(*path, paths);
  } else if (type == "Augeas") {
    if (std::optional<std::string> incl = resource.StringParameter("incl"))
      AddIfAbsolute(*incl, paths);
  }
  return paths;
}

ManagedPaths::ManagedPaths(const Catalog& catalog) : catalog_(&catalog), paths_of_(catalog.size()) {
  for (ResourceId id = 0; id < catalog.size(); ++id) {
    paths_of_[id] = PathsManagedBy(catalog.resource(id));
    for (const std::string& path : paths_of_[id]) {
      std::vector<ResourceId>& managers = managers_[path];
      if (managers.empty() || managers.back() != id) managers.push_back(id);
    }
  }
}

namespace {

// Whether CanonicalFilePath would return `path` itself: absolute, and no empty, "." or ".."
// component (no "//", no trailing '/' but the root's). The paths the checker asks about
// nearly always are: then no copy is made.
bool IsCanonical(std::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  if (path.size() == 1) return true;
  const size_t n = path.size();
  for (size_t i = 0; i < n; ++i) {
    if (path[i] != '/') continue;
    if (i + 1 == n || path[i + 1] == '/') return false;
    if (path[i + 1] != '.') continue;
    if (i + 2 == n || path[i + 2] == '/') return false;                          // "/."
    if (path[i + 2] == '.' && (i + 3 == n || path[i + 3] == '/')) return false;  // "/.."
  }
  return true;
}

}  // namespace

const std::vector<ResourceId>& ManagedPaths::ManagersOf(std::string_view path) const {
  static const std::vector<ResourceId> kNone;
  if (IsCanonical(path)) {
    const auto it = managers_.find(absl::string_view(path.data(), path.size()));
    return it == managers_.end() ? kNone : it->second;
  }
  const auto it = managers_.find(CanonicalFilePath(path));
  return it == managers_.end() ? kNone : it->second;
}

std::optional<ResourceId> ManagedPaths::FileAt(std::string_view path) const {
  for (const ResourceId id : ManagersOf(path)) {
    if (catalog_->resource(id).type == "File") return id;
  }
  return std::nullopt;
}

std::optional<std::string> ManagedPaths::NearestManagedAncestor(std::string_view path) const {
  const std::string canonical = CanonicalFilePath(path);
  for (std::string_view dir = ParentDirectory(canonical); !dir.empty();
       dir = ParentDirectory(dir)) {
    if (managers_.contains(absl::string_view(dir.data(), dir.size()))) return std::string(dir);
  }
  return std::nullopt;
}

std::optional<ResourceId> ManagedPaths::NearestFileAncestor(std::string_view path) const {
  const std::string canonical = CanonicalFilePath(path);
  for (std::string_view dir = ParentDirectory(canonical); !dir.empty();
       dir = ParentDirectory(dir)) {
    if (std::optional<ResourceId> file = FileAt(dir)) return file;
  }
  return std::nullopt;
}

}  // namespace fsmove::catalog
