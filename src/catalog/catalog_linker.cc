// Links a loaded catalog's resources; see catalog_linker.h.
#include "catalog_linker.h"

#include <fmt/format.h>

#include "fsmove/base/json_reader.h"
#include "fsmove/catalog/file_path.h"
#include "fsmove/catalog/resource_ref.h"

namespace fsmove::catalog {
namespace {

using Json = nlohmann::json;

// Native types whose `name` is not their whole identity: Puppet's alias key for them is
// composite ([name, provider, ...]) and a plain Type[name] reference does not find it
// (checked: Package['fsmove-test-pkg'] for package { 'x': name => 'fsmove-test-pkg' }
// compiles, then apply fails with "Could not retrieve dependency").
bool HasNamevarAlias(std::string_view type) {
  return type != "Exec" && type != "Tidy" && type != "Package" && type != "Java_ks" &&
         type != "Sshkey";
}

}  // namespace

void CatalogLinker::Warn(std::string pointer, std::string message) {
  catalog_.warnings_.push_back(CatalogWarning{std::move(pointer), std::move(message)});
}

void CatalogLinker::AddContainment(const std::vector<PendingEdge>& edges) {
  for (const PendingEdge& edge : edges) {
    const std::string pointer = base::JsonPointer("/edges", edge.index);
    std::optional<ResourceId> ends[2];
    for (int end = 0; end < 2; ++end) {
      ends[end] = ResolveReference(edge.ends[end],
                                   base::JsonPointer(pointer, end == 0 ? "source" : "target"),
                                   "containment edge");
    }
    if (!ends[0] || !ends[1]) continue;
    catalog_.containment_.push_back(ContainmentEdge{*ends[0], *ends[1]});
  }
}

void CatalogLinker::AddAlias(ResourceId id, std::string_view alias, std::string pointer) {
  const Resource& resource = catalog_.resources_[id];
  const std::string key = IndexKey(resource.type, alias);
  if (const auto it = catalog_.title_index_.find(key); it != catalog_.title_index_.end()) {
    if (it->second != id) {
      Warn(std::move(pointer),
           fmt::format("cannot alias {} to \"{}\": {} already has that title", resource.ref, alias,
                       catalog_.resources_[it->second].ref));
    }
    return;
  }
  const auto [it, inserted] = catalog_.alias_index_.emplace(key, id);
  if (!inserted && it->second != id) {
    Warn(std::move(pointer), fmt::format("cannot alias {} to \"{}\": {} already uses that alias",
                                         resource.ref, alias, catalog_.resources_[it->second].ref));
  }
}

// Puppet's create_resource_aliases: explicit `alias` values, then the namevar (the
// canonical path for File) when it differs from the title.
void CatalogLinker::IndexAliases() {
  for (ResourceId id = 0; id < catalog_.resources_.size(); ++id) {
    const Resource& resource = catalog_.resources_[id];
    const std::string pointer = base::JsonPointer("/resources", resource.json_index);
    for (const std::string& alias : resource.StringListParameter("alias")) {
      AddAlias(id, alias, base::JsonPointer(base::JsonPointer(pointer, "parameters"), "alias"));
    }
    if (resource.kind != "compilable_type" && !resource.kind.empty()) continue;
    if (resource.type == "Class" || resource.type == "Stage") continue;
    if (resource.type == "File") {
      const std::optional<std::string> path = resource.StringParameter("path");
      const std::string canonical = CanonicalFilePath(path ? *path : resource.title);
      if (canonical != resource.title) {
        AddAlias(id, canonical,
                 base::JsonPointer(base::JsonPointer(pointer, "parameters"), "path"));
      }
    } else if (HasNamevarAlias(resource.type)) {
      const std::optional<std::string> name_parameter = resource.StringParameter("name");
      std::string name = name_parameter ? *name_parameter : resource.title;
      // mount_core munges its name with gsub(%r{^(.+?)/*$}, '\1').
      if (resource.type == "Mount") {
        while (name.size() > 1 && name.back() == '/') name.pop_back();
      }
      if (name != resource.title)
        AddAlias(id, name, base::JsonPointer(base::JsonPointer(pointer, "parameters"), "name"));
    }
  }
}

// Resolves a reference; warns (unless it names a dropped exported resource, whose
// containment edges are expected) when the catalog does not hold it.
std::optional<ResourceId> CatalogLinker::ResolveReference(std::string_view ref, std::string pointer,
                                                          std::string_view what) {
  const std::optional<ResourceRef> parsed = ParseResourceRef(ref);
  if (!parsed) {
    Warn(std::move(pointer), fmt::format("{}: \"{}\" is not a resource reference", what, ref));
    return std::nullopt;
  }
  if (std::optional<ResourceId> id = catalog_.Find(parsed->type, parsed->title)) return id;
  if (catalog_.exported_refs_.contains(IndexKey(parsed->type, parsed->title))) {
    if (what != "containment edge") {
      Warn(std::move(pointer),
           fmt::format("{}: {} is exported (@@) and never applied here", what, ref));
    }
    return std::nullopt;
  }
  Warn(std::move(pointer), fmt::format("{}: {} is not in the catalog", what, ref));
  return std::nullopt;
}

// Classes, stages and defined types become containers at apply time. Without `kind`
// (catalogs older than catalog_format 2) anything that contains something counts.
void CatalogLinker::MarkContainers() {
  std::vector<bool> has_members(catalog_.resources_.size(), false);
  for (const ContainmentEdge& edge : catalog_.containment_) has_members[edge.container] = true;
  for (ResourceId id = 0; id < catalog_.resources_.size(); ++id) {
    Resource& resource = catalog_.resources_[id];
    if (resource.type == "Class" || resource.type == "Stage") {
      resource.is_container = true;
    } else if (!resource.kind.empty()) {
      resource.is_container = resource.kind != "compilable_type";
    } else {
      resource.is_container = has_members[id];
    }
  }
  // Native resources never contain anything in Puppet; edges from them mean nothing.
  std::vector<ContainmentEdge> kept;
  kept.reserve(catalog_.containment_.size());
  for (const ContainmentEdge& edge : catalog_.containment_) {
    if (catalog_.resources_[edge.container].is_container) {
      kept.push_back(edge);
    } else {
      Warn("/edges",
           fmt::format(
               "containment edge from {}, which is not a class, stage or defined type: ignored",
               catalog_.resources_[edge.container].ref));
    }
  }
  catalog_.containment_ = std::move(kept);
}

absl::Status CatalogLinker::CollectReferences(const Json& value, const std::string& pointer,
                                              std::vector<std::pair<std::string, std::string>>& out,
                                              int depth) const {
  if (value.is_string()) {
    out.emplace_back(value.get<std::string>(), pointer);
    return absl::OkStatus();
  }
  // Puppet writes flat arrays; a little nesting is tolerated, a hostile depth is not
  // (it would exhaust the stack).
  if (value.is_array() && depth >= kMaxReferenceNesting) {
    return base::JsonError(source_, pointer, "arrays of references nested too deeply");
  }
  if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (absl::Status status =
              CollectReferences(value[i], base::JsonPointer(pointer, i), out, depth + 1);
          !status.ok()) {
        return status;
      }
    }
    return absl::OkStatus();
  }
  return base::JsonTypeError(source_, pointer, "a resource reference string or an array of them",
                             value);
}

absl::Status CatalogLinker::LoadRelationships(ResourceId id) {
  struct Metaparameter {
    const char* name;
    RelationshipKind kind;
    bool outgoing;  // before/notify point from the resource to the reference
  };
  static constexpr Metaparameter kMetaparameters[] = {
      {"before", RelationshipKind::kBefore, true},
      {"notify", RelationshipKind::kNotify, true},
      {"require", RelationshipKind::kBefore, false},
      {"subscribe", RelationshipKind::kNotify, false},
  };
  const Resource& resource = catalog_.resources_[id];
  const std::string parameters_pointer =
      base::JsonPointer(base::JsonPointer("/resources", resource.json_index), "parameters");
  for (const Metaparameter& metaparameter : kMetaparameters) {
    const Json* value = resource.FindParameter(metaparameter.name);
    if (value == nullptr || value->is_null()) continue;
    std::vector<std::pair<std::string, std::string>> references;
    if (absl::Status status = CollectReferences(
            *value, base::JsonPointer(parameters_pointer, metaparameter.name), references);
        !status.ok()) {
      return status;
    }
    for (auto& [ref, pointer] : references) {
      const std::optional<ResourceId> other =
          ResolveReference(ref, pointer, fmt::format("{} {}", resource.ref, metaparameter.name));
      if (!other) continue;
      Relationship relationship;
      relationship.source = metaparameter.outgoing ? id : *other;
      relationship.target = metaparameter.outgoing ? *other : id;
      relationship.kind = metaparameter.kind;
      relationship.parameter = metaparameter.name;
      catalog_.relationships_.push_back(relationship);
    }
  }
  return absl::OkStatus();
}

}  // namespace fsmove::catalog
