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
  for (std::size_t slash = source_path.find('/'); slash != std::string_view::npos;
       slash = source_path.find('/', slash + 1)) {
    if (std::optional<RefMatch> match = catalog_->LookupRef(source_path.substr(slash + 1))) {
      return FromMatch(*match);
    }
  }
  if (parsed) {
    if (std::optional<ResourceId> generator = GeneratorOf(parsed->type, parsed->title)) {
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
  }
  return BlockResolution{};
}

}  // namespace fsmove::catalog
