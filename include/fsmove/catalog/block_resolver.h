// Maps the resource named by a trace block marker to the catalog resource it stands for,
// including resources Puppet generates at apply time (recursive files, concat, tidy).
#ifndef FSMOVE_CATALOG_BLOCK_RESOLVER_H_
#define FSMOVE_CATALOG_BLOCK_RESOLVER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
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
  //     or, of a type of its own, the one resource of its container (the source path's) with
  //     its title: a type's `generate` may copy itself into a resource of another type
  //     (Knot_zone[x] makes Knot_zone_private[x]), which Puppet puts in its generator's
  //     container;
  //  4. a bare absolute path (the sentinel Puppet prints for a recursive file's children)
  //     is treated as File[path]; another bare name is the sentinel Puppet makes for the
  //     resources a resource's `eval_generate` returned (a Whit named by its title): that
  //     resource, when one resource (not a class or defined type) has the title.
  BlockResolution Resolve(std::string_view trailing_ref, std::string_view source_path = {}) const;

 private:
  // What the rarer rules look up, made on their first use: most checks never need it.
  struct Index {
    absl::flat_hash_map<std::string, std::vector<ResourceId>> by_title;  // non-containers
    absl::flat_hash_map<ResourceId, std::vector<ResourceId>> members;    // by container
  };

  std::optional<ResourceId> GeneratorOfFile(std::string_view path) const;
  std::optional<ResourceId> GeneratorOf(std::string_view type, std::string_view title) const;
  std::optional<ResourceId> SameTitleGenerator(std::string_view trailing_ref,
                                               std::string_view title,
                                               std::string_view source_path) const;
  std::optional<ResourceId> OnlyResourceTitled(std::string_view title) const;
  std::optional<ResourceId> ContainerOf(std::string_view trailing_ref,
                                        std::string_view source_path) const;
  // The longest part of `path` after a '/' that is a reference of the catalog's (titles may
  // hold '/' and '['): "/Stage[main]/App/Exec[a/b]" -> Exec[a/b].
  std::optional<RefMatch> LongestRefSuffix(std::string_view path) const;
  const Index& index() const;

  const Catalog* catalog_;
  const ManagedPaths* paths_;
  mutable std::unique_ptr<Index> index_;
};

}  // namespace fsmove::catalog

#endif  // FSMOVE_CATALOG_BLOCK_RESOLVER_H_
