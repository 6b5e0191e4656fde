// Which file-system paths each catalog resource manages on every machine, and the
// reverse index: who manages exactly this path, and the nearest managed ancestor.
#ifndef FSMOVE_CATALOG_MANAGED_PATHS_H_
#define FSMOVE_CATALOG_MANAGED_PATHS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fsmove/catalog/catalog.h"

namespace fsmove::catalog {

// The canonical absolute paths one resource manages, from its parameters alone:
//   File          its `path` (or title)
//   Exec          each `creates` (string or array)
//   File_line     `path`
//   Concat_file   `path` (or title)
//   Concat        `path` (or title)   (the puppetlabs-concat define)
//   Ini_setting   `path`
//   Augeas        `incl`, when set
// Relative values are dropped (Puppet rejects them for all of these).
std::vector<std::string> PathsManagedBy(const Resource& resource);

class ManagedPaths {
 public:
  explicit ManagedPaths(const Catalog& catalog);

  // Canonical paths resource `id` manages (see PathsManagedBy).
  const std::vector<std::string>& PathsOf(ResourceId id) const { return paths_of_[id]; }

  // Resources managing exactly `path` (canonicalised first), in catalog order.
  // Exact comparison: File[/etc] does not manage /usr/local/etc/x, nor /etc/x.
  const std::vector<ResourceId>& ManagersOf(std::string_view path) const;

  // The File resource whose canonical path is `path`, if any.
  std::optional<ResourceId> FileAt(std::string_view path) const;

  // Walks up from the parent of `path` and returns the first directory some resource
  // manages (nullopt at the root without a hit). "/a/b/c" with only "/a" managed gives "/a".
  std::optional<std::string> NearestManagedAncestor(std::string_view path) const;

  // The same walk restricted to File resources: what File autorequires.
  std::optional<ResourceId> NearestFileAncestor(std::string_view path) const;

 private:
  const Catalog* catalog_;
  std::vector<std::vector<std::string>> paths_of_;
  absl::flat_hash_map<std::string, std::vector<ResourceId>> managers_;
};

}  // namespace fsmove::catalog

#endif  // FSMOVE_CATALOG_MANAGED_PATHS_H_
