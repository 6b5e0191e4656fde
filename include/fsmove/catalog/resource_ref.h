// Resource references ("Type[title]") as Puppet writes them in catalogs and logs:
// parsing with Puppet's own bracket rule and the canonical spelling of type names.
#ifndef FSMOVE_CATALOG_RESOURCE_REF_H_
#define FSMOVE_CATALOG_RESOURCE_REF_H_

#include <optional>
#include <string>
#include <string_view>

namespace fsmove::catalog {

struct ResourceRef {
  std::string type;   // canonical spelling, e.g. "App::Inst"
  std::string title;  // verbatim; may hold brackets, quotes, newlines, UTF-8

  std::string ToString() const;
  friend bool operator==(const ResourceRef&, const ResourceRef&) = default;
};

// Splits "Type[title]" the way Puppet does (Puppet::Resource.extract_type_and_title): the
// type is everything before the first '[', the title everything up to the last character,
// which must be ']'. So "Exec[a [b] c]" has title "a [b] c" and "Exec[ends ]]" has "ends ]".
// Returns nullopt when the text is not a reference or the type is not a valid type name.
std::optional<ResourceRef> ParseResourceRef(std::string_view text);

// Type names are case-insensitive in Puppet; catalogs capitalise each `::` segment
// ("ssh_authorized_key" -> "Ssh_authorized_key", "app::inst" -> "App::Inst").
std::string CanonicalTypeName(std::string_view type);

// Letters, digits and '_' in `::`-separated segments, each starting with a letter.
bool IsValidTypeName(std::string_view type);

// ASCII-only lower case: Puppet folds type names and class names this way; other titles
// (and any UTF-8 in them) are compared verbatim.
std::string AsciiLowercase(std::string_view text);

// "Type[title]" from parts, with the type canonicalised.
std::string FormatResourceRef(std::string_view type, std::string_view title);

}  // namespace fsmove::catalog

#endif  // FSMOVE_CATALOG_RESOURCE_REF_H_
