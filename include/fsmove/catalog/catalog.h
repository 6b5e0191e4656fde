// A compiled Puppet catalog (catalog_format 2) held in memory: its resources, their
// containment, their relationship metaparameters, and reference lookup with Puppet's rules.
#ifndef FSMOVE_CATALOG_CATALOG_H_
#define FSMOVE_CATALOG_CATALOG_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "fsmove/base/host_budget.h"
#include "nlohmann/json.hpp"

namespace fsmove::catalog {

// The largest catalog fsmove ever reads, whatever the budget says (what a sandbox's supervisor
// passes on; the host process reads at most LoadOptions::max_bytes).
inline constexpr std::size_t kMaxCatalogBytes = std::size_t{1} << 30;

// How a catalog is read: the host's budget for it (base/host_budget.h), and the paths of its
// manifests as the user knows them.
struct LoadOptions {
  // A larger text is not parsed; a document holding more JSON values at once (those of one
  // resource, one edge, or the document outside its resources and edges: each resource and
  // edge is dropped once taken) stops being read. Either is ResourceExhausted, with the
  // budget's sentence (BudgetHit::Sentence) as its message.
  std::uint64_t max_bytes = base::kDefaultMaxCatalogBytes;
  std::uint64_t max_values = base::kDefaultMaxCatalogValues;
  // A resource's `file` that starts with `first` starts with `second` instead (the sandbox's
  // paths of the manifests, and the host's).
  std::vector<std::pair<std::string, std::string>> file_prefixes;
};

// Index into Catalog::resources(); stable for the catalog's lifetime.
using ResourceId = std::uint32_t;

struct Resource {
  std::string type;   // canonical spelling: "File", "App::Inst", "Class", "Stage"
  std::string title;  // verbatim, as in the catalog
  std::string ref;    // "Type[title]"
  std::string file;   // manifest that declared it; empty when the catalog has none
  std::optional<int> line;
  std::vector<std::string> tags;
  std::string kind;  // "compilable_type", "defined_type", "class", "unknown", or "" if absent
  // Classes, stages and defined-type instances: Puppet turns them into containers
  // (whit pairs) at apply time, and relationships on them reach everything inside.
  bool is_container = false;
  // An object; null when the resource has none left (an empty object costs an allocation
  // per resource). Read it through FindParameter.
  nlohmann::json parameters;
  std::size_t json_index = 0;  // position in the document's "resources" array

  const nlohmann::json* FindParameter(std::string_view name) const;
  // The parameter when it is a string.
  std::optional<std::string> StringParameter(std::string_view name) const;
  // A string parameter, or the strings of an array parameter (nested arrays flattened,
  // other elements skipped): the shapes Puppet accepts for list-valued attributes.
  std::vector<std::string> StringListParameter(std::string_view name) const;
  // An Exec's command as one line: the string, or an argv array's strings joined by spaces
  // (`['systemctl', 'daemon-reload']`, which Puppet runs without a shell); an Exec's title when
  // it has no command (its namevar: the catalog does not repeat the title); nullopt if none.
  std::optional<std::string> CommandLine(std::string_view name = "command") const;
};

enum class RelationshipKind : std::uint8_t {
  kBefore,  // before / require: ordering only
  kNotify,  // notify / subscribe: ordering plus refresh events
};

// One reference of a relationship metaparameter, resolved and oriented: source is
// applied first (require/subscribe are flipped so that the required resource is source).
struct Relationship {
  ResourceId source = 0;
  ResourceId target = 0;
  RelationshipKind kind = RelationshipKind::kBefore;
  std::string_view parameter;  // "before", "notify", "require" or "subscribe" (static text)
};

// From the catalog's top-level "edges": `container` directly contains `member`.
struct ContainmentEdge {
  ResourceId container = 0;
  ResourceId member = 0;
};

// Something Puppet would refuse at apply time but that does not stop the analysis
// (a reference to a resource that is not in the catalog, a clashing alias, ...).
struct CatalogWarning {
  std::string json_pointer;
  std::string message;
};

enum class RefMatchKind : std::uint8_t {
  kExact,  // type and title (class titles compared case-insensitively)
  kAlias,  // explicit alias, namevar alias, or File title with trailing slashes stripped
};

struct RefMatch {
  ResourceId id = 0;
  RefMatchKind how = RefMatchKind::kExact;
};

class Catalog {
 public:
  // Reads a catalog as `puppet catalog find --terminus compiler --render-as json` prints
  // it (log lines before the opening '{' are skipped) or as our tools store it.
  // Errors name the file and the JSON pointer (line and column for syntax errors).
  static absl::StatusOr<Catalog> LoadFile(const std::string& path, const LoadOptions& options = {});
  static absl::StatusOr<Catalog> LoadString(std::string_view text, std::string_view source_name,
                                            const LoadOptions& options = {});

  const std::string& source_name() const { return source_name_; }
  const std::string& node_name() const { return node_name_; }

  // Exported resources (@@) are dropped: they are never applied on this node.
  const std::vector<Resource>& resources() const { return resources_; }
  const Resource& resource(ResourceId id) const { return resources_[id]; }
  std::size_t size() const { return resources_.size(); }
  std::size_t exported_dropped() const { return exported_refs_.size(); }

  // Puppet's catalog.resource(type, title): the title, then aliases (explicit `alias`,
  // namevar of isomorphic single-key types), then for File the title with trailing
  // slashes stripped (File's title pattern). Types are case-insensitive; class titles
  // too (Class[main] is printed Class[Main] in logs).
  std::optional<RefMatch> Lookup(std::string_view type, std::string_view title) const;
  std::optional<ResourceId> Find(std::string_view type, std::string_view title) const;
  // The same for "Type[title]" text; nullopt for text that is not a reference.
  std::optional<ResourceId> ResolveRef(std::string_view ref) const;
  std::optional<RefMatch> LookupRef(std::string_view ref) const;

  // Relationship metaparameters of every resource, resolved; unresolvable references
  // are in warnings() instead.
  const std::vector<Relationship>& relationships() const { return relationships_; }
  const std::vector<ContainmentEdge>& containment() const { return containment_; }
  const std::vector<CatalogWarning>& warnings() const { return warnings_; }

  // Every resource of one type, in catalog order.
  const std::vector<ResourceId>& ResourcesOfType(std::string_view type) const;

 private:
  friend class CatalogLoader;
  friend class CatalogLinker;

  std::string source_name_;
  std::string node_name_;
  std::vector<Resource> resources_;
  // Keys are IndexKey(type, title): canonical type plus case-folded class titles.
  absl::flat_hash_map<std::string, ResourceId> title_index_;
  absl::flat_hash_map<std::string, ResourceId> alias_index_;
  absl::flat_hash_set<std::string> exported_refs_;  // IndexKey of dropped @@ resources
  absl::flat_hash_map<std::string, std::vector<ResourceId>> type_index_;
  std::vector<Relationship> relationships_;
  std::vector<ContainmentEdge> containment_;
  std::vector<CatalogWarning> warnings_;
};

// The key under which (type, title) is indexed: "Type[title]" with the type canonicalised
// and, for classes, the title lower-cased.
std::string IndexKey(std::string_view type, std::string_view title);

}  // namespace fsmove::catalog

#endif  // FSMOVE_CATALOG_CATALOG_H_
