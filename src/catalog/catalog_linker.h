// The second half of loading a catalog (catalog_loader.cc reads and checks the document):
// its resources linked to each other as Puppet links them before it applies them. Aliases
// (explicit ones and namevars), containment edges, which resources are containers, and the
// relationship metaparameters become the Catalog's indexes, edges and relationships; a
// reference the catalog cannot resolve is a warning (Catalog::warnings) naming its JSON pointer.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "fsmove/catalog/catalog.h"
#include "nlohmann/json.hpp"

namespace fsmove::catalog {

// A containment edge as the document gave it, checked for shape; resolved once every
// resource (and alias) is known.
struct PendingEdge {
  std::size_t index;
  std::array<std::string, 2> ends;  // source, target
};

class CatalogLinker {
 public:
  static constexpr int kMaxReferenceNesting = 8;

  // `source`: the catalog's name in errors and warnings.
  CatalogLinker(Catalog& catalog, std::string_view source) : catalog_(catalog), source_(source) {}

  void Warn(std::string pointer, std::string message);
  // Puppet's create_resource_aliases: explicit `alias` values, then the namevar (the
  // canonical path for File) when it differs from the title.
  void IndexAliases();
  // The edges whose ends resolve, as the catalog's containment.
  void AddContainment(const std::vector<PendingEdge>& edges);
  // Classes, stages and defined types become containers at apply time; edges from anything
  // else are dropped with a warning.
  void MarkContainers();
  // Resource `id`'s before, notify, require and subscribe as relationships.
  absl::Status LoadRelationships(ResourceId id);

 private:
  void AddAlias(ResourceId id, std::string_view alias, std::string pointer);
  std::optional<ResourceId> ResolveReference(std::string_view ref, std::string pointer,
                                             std::string_view what);
  absl::Status CollectReferences(const nlohmann::json& value, const std::string& pointer,
                                 std::vector<std::pair<std::string, std::string>>& out,
                                 int depth = 0) const;

  Catalog& catalog_;
  std::string_view source_;
};

}  // namespace fsmove::catalog
