// A compiled Puppet catalog (catalog_format 2) held in memory: its resources, their
// containment, their relationship metaparameters, and reference lookup with Puppet's rules.
#include "fsmove/catalog/catalog.h"

#include <fmt/format.h>

#include "fsmove/catalog/resource_ref.h"

namespace fsmove::catalog {
namespace {

// Nesting beyond a few levels is not something Puppet writes; it is ignored rather than
// followed down (a hostile depth would exhaust the stack).
void AppendStrings(const nlohmann::json& value, std::vector<std::string>& out, int depth = 0) {
  if (value.is_string()) {
    out.push_back(value.get<std::string>());
  } else if (value.is_array() && depth < 8) {
    for (const nlohmann::json& element : value) AppendStrings(element, out, depth + 1);
  }
}

// File's title pattern (^(/|.+:/|.*[^/])/*\Z): trailing slashes go, the root stays.
std::string_view StripTrailingSlashes(std::string_view title) {
  std::size_t end = title.size();
  while (end > 1 && title[end - 1] == '/') --end;
  return title.substr(0, end);
}

}  // namespace

const nlohmann::json* Resource::FindParameter(std::string_view name) const {
  if (!parameters.is_object()) return nullptr;
  const auto it = parameters.find(std::string(name));
  return it == parameters.end() ? nullptr : &*it;
}

std::optional<std::string> Resource::StringParameter(std::string_view name) const {
  const nlohmann::json* value = FindParameter(name);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

std::optional<std::string> Resource::CommandLine(std::string_view name) const {
  const nlohmann::json* value = FindParameter(name);
  // An Exec's command is its namevar: without the parameter, its title is the command
  // (`exec { 'systemctl daemon-reload': }`), and the catalog does not repeat it.
  if (value == nullptr && type == "Exec" && name == "command") return title;
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return value->get<std::string>();
  if (!value->is_array() || value->empty()) return std::nullopt;
  std::string line;
  for (const nlohmann::json& word : *value) {
    if (!word.is_string()) return std::nullopt;
    if (!line.empty()) line += ' ';
    line += word.get_ref<const std::string&>();
  }
  return line;
}

std::vector<std::string> Resource::StringListParameter(std::string_view name) const {
  std::vector<std::string> values;
  if (const nlohmann::json* value = FindParameter(name)) AppendStrings(*value, values);
  return values;
}

std::string IndexKey(std::string_view type, std::string_view title) {
  std::string canonical_type = CanonicalTypeName(type);
  if (canonical_type == "Class") {
    return fmt::format("{}[{}]", canonical_type, AsciiLowercase(title));
  }
  return fmt::format("{}[{}]", canonical_type, title);
}

std::optional<RefMatch> Catalog::Lookup(std::string_view type, std::string_view title) const {
  const auto find_in = [this](std::string_view t, std::string_view ti) -> std::optional<RefMatch> {
    const std::string key = IndexKey(t, ti);
    if (const auto it = title_index_.find(key); it != title_index_.end()) {
      return RefMatch{it->second, RefMatchKind::kExact};
    }
    if (const auto it = alias_index_.find(key); it != alias_index_.end()) {
      return RefMatch{it->second, RefMatchKind::kAlias};
    }
    return std::nullopt;
  };
  if (std::optional<RefMatch> match = find_in(type, title)) return match;
  if (CanonicalTypeName(type) == "File") {
    const std::string_view stripped = StripTrailingSlashes(title);
    if (stripped.size() != title.size()) {
      if (std::optional<RefMatch> match = find_in(type, stripped)) {
        return RefMatch{match->id, RefMatchKind::kAlias};
      }
    }
  }
  return std::nullopt;
}

std::optional<ResourceId> Catalog::Find(std::string_view type, std::string_view title) const {
  if (std::optional<RefMatch> match = Lookup(type, title)) return match->id;
  return std::nullopt;
}

std::optional<RefMatch> Catalog::LookupRef(std::string_view ref) const {
  const std::optional<ResourceRef> parsed = ParseResourceRef(ref);
  if (!parsed) return std::nullopt;
  return Lookup(parsed->type, parsed->title);
}

std::optional<ResourceId> Catalog::ResolveRef(std::string_view ref) const {
  if (std::optional<RefMatch> match = LookupRef(ref)) return match->id;
  return std::nullopt;
}

const std::vector<ResourceId>& Catalog::ResourcesOfType(std::string_view type) const {
  static const std::vector<ResourceId> kNone;
  const auto it = type_index_.find(CanonicalTypeName(type));
  return it == type_index_.end() ? kNone : it->second;
}

}  // namespace fsmove::catalog
