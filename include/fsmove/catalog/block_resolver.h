// Maps the resource named by a trace block marker to the catalog resource it stands for,
// including resources Puppet generates at apply time (recursive files, concat, tidy).
#ifndef FSMOVE_CATALOG_BLOCK_RESOLVER_H_
#define FSMOVE_CATALOG_BLOCK_RESOLVER_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "fsmove/catalog/catalog.h"
#include "fsmove/catalog/managed_paths.h"

namespace fsmove::catalog {

enum class BlockMatch : std::uint8_t {
  kExact,      // the catalog holds this type and title (class titles case-insensitive)
  kAlias,      // found through an alias, a namevar or a stripped trailing slash
  kGenerated,  // not in the catalog; `resource` is the catalog resource that generates it
  kUnknown,    // Puppet's own resources (Schedule[daily], Filebucket[puppet]) or garbage
};

struct BlockResolution {
  std::optional<ResourceId> resource;  // empty only for kUnknown
  BlockMatch how = BlockMatch::kUnknown;
};

class BlockResolver {
 public:
  // Both must outlive the resolver.
  BlockResolver(const Catalog& catalog, const ManagedPaths& paths);

  // `trailing_ref` is the "Type[title]" a marker ends with (already unescaped), and
  // `source_path` the whole Puppet path when known ("/Stage[main]/App/App::Inst[one]/File[/x]",
  // "/User[bob]", "Class[App]"). Tried in order:
  //  1. the trailing reference (exact, then alias);
  //  2. the longest suffix of the source path after a '/' that is such a reference (a
  //     marker parser that split a title holding '/' or '[' wrongly still lands here);
  //  3. generators, for a File that is not in the catalog: the Concat_file whose path is
  //     it; else the nearest ancestor (or the path itself) that a Tidy manages or a File
  //     with `recurse` manages; for any other type, a Resources[type] with purge;
  //  4. a bare absolute path (the sentinel Puppet prints for a recursive file's children)
  //     is treated as File[path].
  BlockResolution Resolve(std::string_view trailing_ref, std::string_view source_path = {}) const;

 private:
  std::optional<ResourceId> GeneratorOfFile(std::string_view path) const;
  std::optional<ResourceId> GeneratorOf(std::string_view type, std::string_view title) const;

  const Catalog* catalog_;
  const ManagedPaths* paths_;
};

}  // namespace fsmove::catalog

#endif  // FSMOVE_CATALOG_BLOCK_RESOLVER_H_
