// Maps the resource named by a trace block marker to the catalog resource it stands for,
// including resources Puppet generates at apply time (recursive files, concat, tidy).
#include "fsmove/catalog/block_resolver.h"

#include "fsmove/catalog/file_path.h"
#include "fsmove/catalog/resource_ref.h"

namespace fsmove::catalog {
namespace {

// `recurse => true | remote | inf` (and old integer depths) generate children;
// `recurse => false` does not.
bool Truthy(const nlohmann::json* value) {
  if (value == nullptr) return false;
  if (value->is_boolean()) return value->get<bool>();
  if (value->is_number_integer()) return value->get<long long>() > 0;
  if (value->is_string()) {
    const std::string text = AsciiLowercase(value->get<std::string>());
    return !text.empty() && text != "false" && text != "no" && text != "0";
  }
  return false;
}

BlockResolution FromMatch(const RefMatch& match) {
  return BlockResolution{
      match.id, match.how == RefMatchKind::kExact ? BlockMatch::kExact : BlockMatch::kAlias};
}

}  // namespace

BlockResolver::BlockResolver(const Catalog& catalog, const ManagedPaths& paths)
    : catalog_(&catalog), paths_(&paths) {}

std::optional<ResourceId> BlockResolver::GeneratorOfFile(std::string_view path) const {
  if (!IsAbsolutePath(path)) return std::nullopt;
  const std::string canonical = CanonicalFilePath(path);
  // Concat_file#generate creates File[path] for the file it assembles.
  for (const ResourceId id : paths_->ManagersOf(canonical)) {
    if (catalog_->resource(id).type == "Concat_file") return id;
  }
  const auto tidy_at = [this](std::string_view dir) -> std::optional<ResourceId> {
    for (const ResourceId id : catalog_->ResourcesOfType("Tidy")) {
      const Resource& tidy = catalog_->resource(id);
      const std::optional<std::string> tidy_path = tidy.StringParameter("path");
      if (CanonicalFilePath(tidy_path ? *tidy_path : tidy.title) == dir) return id;
    }
    return std::nullopt;
  };
  if (std::optional<ResourceId> tidy = tidy_at(canonical)) return tidy;
  for (std::string_view dir = ParentDirectory(canonical); !dir.empty();
       dir = ParentDirectory(dir)) {
    if (std::optional<ResourceId> tidy = tidy_at(dir)) return tidy;
    if (std::optional<ResourceId> file = paths_->FileAt(dir)) {
      if (Truthy(catalog_->resource(*file).FindParameter("recurse"))) return file;
    }
  }
  return std::nullopt;
}

std::optional<ResourceId> BlockResolver::GeneratorOf(std::string_view type,
                                                     std::string_view title) const {
  const std::string canonical_type = CanonicalTypeName(type);
  if (canonical_type == "File") {
    if (std::optional<ResourceId> generator = GeneratorOfFile(title)) return generator;
  }
  // resources { 'user': purge => true } generates a User for every unmanaged account.
  if (std::optional<ResourceId> purger =
          catalog_->Find("Resources", AsciiLowercase(canonical_type))) {
    if (Truthy(catalog_->resource(*purger).FindParameter("purge"))) return purger;
  }
  return std::nullopt;
}

const BlockResolver::Index& BlockResolver::index() const {
  if (index_ == nullptr) {
    index_ = std::make_unique<Index>();
    for (ResourceId id = 0; id < catalog_->size(); ++id) {
      const Resource& r = catalog_->resource(id);
      if (!r.is_container) index_->by_title[r.title].push_back(id);
    }
    for (const ContainmentEdge& edge : catalog_->containment()) {
      index_->members[edge.container].push_back(edge.member);
    }
  }
  return *index_;
}

std::optional<ResourceId> BlockResolver::OnlyResourceTitled(std::string_view title) const {
  const auto it = index().by_title.find(std::string(title));
  if (it == index().by_title.end() || it->second.size() != 1) return std::nullopt;
  return it->second.front();
}

// The container a source path names before its last reference: "/Stage[main]/Knot/
// Knot::Domain[x]/Knot_zone_private[x]" is in Knot::Domain[x], "/Stage[main]/Knot/Y[z]" in
// Class[Knot]. The longest suffix after a '/' that is a reference is taken, as titles may hold
// '/'.
std::optional<ResourceId> BlockResolver::ContainerOf(std::string_view trailing_ref,
                                                     std::string_view source_path) const {
  if (source_path.size() <= trailing_ref.size() || !source_path.ends_with(trailing_ref) ||
      source_path[source_path.size() - trailing_ref.size() - 1] != '/') {
    return std::nullopt;
  }
  const std::string_view prefix =
      source_path.substr(0, source_path.size() - trailing_ref.size() - 1);
  if (std::optional<RefMatch> match = LongestRefSuffix(prefix)) return match->id;
  // A class's segment is its name alone.
  const std::string_view last = prefix.substr(prefix.rfind('/') + 1);
  if (last.empty() || last.find('[') != std::string_view::npos) return std::nullopt;
  return catalog_->Find("Class", last);
}

std::optional<RefMatch> BlockResolver::LongestRefSuffix(std::string_view path) const {
  for (std::size_t slash = path.find('/'); slash != std::string_view::npos;
       slash = path.find('/', slash + 1)) {
    if (std::optional<RefMatch> match = catalog_->LookupRef(path.substr(slash + 1))) return match;
  }
  return std::nullopt;
}

std::optional<ResourceId> BlockResolver::SameTitleGenerator(std::string_view trailing_ref,
                                                            std::string_view title,
                                                            std::string_view source_path) const {
  const std::optional<ResourceId> container = ContainerOf(trailing_ref, source_path);
  if (!container) return std::nullopt;
  const auto members = index().members.find(*container);
  if (members == index().members.end()) return std::nullopt;
  std::optional<ResourceId> found;
  for (const ResourceId member : members->second) {
    const Resource& r = catalog_->resource(member);
    if (r.is_container || r.title != title) continue;
    if (found) return std::nullopt;  // two: which one generated it is not known
    found = member;
  }
  return found;
}

BlockResolution BlockResolver::Resolve(std::string_view trailing_ref,
                                       std::string_view source_path) const {
  const std::optional<ResourceRef> parsed = ParseResourceRef(trailing_ref);
  if (parsed) {
    if (std::optional<RefMatch> match = catalog_->Lookup(parsed->type, parsed->title))
      return FromMatch(*match);
  }
  if (!source_path.empty() && source_path.front() != '/') {
    if (std::optional<RefMatch> match = catalog_->LookupRef(source_path)) return FromMatch(*match);
  }
  if (std::optional<RefMatch> match = LongestRefSuffix(source_path)) return FromMatch(*match);
  if (parsed) {
    if (std::optional<ResourceId> generator = GeneratorOf(parsed->type, parsed->title)) {
      return BlockResolution{generator, BlockMatch::kGenerated};
    }
    if (std::optional<ResourceId> generator =
            SameTitleGenerator(trailing_ref, parsed->title, source_path)) {
      return BlockResolution{generator, BlockMatch::kGenerated};
    }
  } else if (IsAbsolutePath(trailing_ref)) {
    // "/tmp/demo/out5:" marks the end of a recursive File's generated children.
    if (std::optional<ResourceId> file = paths_->FileAt(trailing_ref)) {
      return BlockResolution{file, BlockMatch::kGenerated};
    }
    if (std::optional<ResourceId> generator = GeneratorOfFile(trailing_ref)) {
      return BlockResolution{generator, BlockMatch::kGenerated};
    }
  } else if (std::optional<ResourceId> file = catalog_->Find("File", trailing_ref)) {
    // The same sentinel of a File whose title is not its path prints the title.
    return BlockResolution{file, BlockMatch::kGenerated};
  } else if (std::optional<ResourceId> concat = catalog_->Find("Concat_file", trailing_ref)) {
    // A Concat_file contains the File it generates, and the end of that container prints as
    // its title alone ("named.conf.keys: Starting to evaluate the resource").
    return BlockResolution{concat, BlockMatch::kGenerated};
  } else if (std::optional<ResourceId> generator = OnlyResourceTitled(trailing_ref)) {
    // Puppet's sentinel after what a resource's eval_generate returned: a Whit named by the
    // resource's title ("exampe.org: Starting to evaluate the resource" after Knot_zone's).
    return BlockResolution{generator, BlockMatch::kGenerated};
  }
  return BlockResolution{};
}

}  // namespace fsmove::catalog
