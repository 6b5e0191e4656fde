// Resource references ("Type[title]") as Puppet writes them in catalogs and logs:
// parsing with Puppet's own bracket rule and the canonical spelling of type names.
#include "fsmove/catalog/resource_ref.h"

#include <fmt/format.h>

namespace fsmove::catalog {

std::string ResourceRef::ToString() const { return fmt::format("{}[{}]", type, title); }

namespace {

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string AsciiLowercase(std::string_view text) {
  std::string result(text);
  for (char& c : result) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return result;
}

bool IsValidTypeName(std::string_view type) {
  if (type.empty()) return false;
  bool at_segment_start = true;
  for (std::size_t i = 0; i < type.size(); ++i) {
    const char c = type[i];
    if (c == ':') {
      // Exactly two colons, followed by another segment.
      if (at_segment_start || i + 2 >= type.size() || type[i + 1] != ':') return false;
      ++i;
      at_segment_start = true;
      continue;
    }
    if (at_segment_start) {
      if (!IsAsciiLetter(c)) return false;
      at_segment_start = false;
      continue;
    }
    if (!IsAsciiLetter(c) && !IsAsciiDigit(c) && c != '_') return false;
  }
  return !at_segment_start;
}

std::string CanonicalTypeName(std::string_view type) {
  std::string result = AsciiLowercase(type);
  bool at_segment_start = true;
  for (char& c : result) {
    if (c == ':') {
      at_segment_start = true;
    } else if (at_segment_start) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      at_segment_start = false;
    }
  }
  return result;
}

std::optional<ResourceRef> ParseResourceRef(std::string_view text) {
  const std::size_t open = text.find('[');
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  if (text.size() < open + 3 || text.back() != ']') return std::nullopt;  // title not empty
  const std::string_view type = text.substr(0, open);
  if (!IsValidTypeName(type)) return std::nullopt;
  return ResourceRef{CanonicalTypeName(type),
                     std::string(text.substr(open + 1, text.size() - open - 2))};
}

std::string FormatResourceRef(std::string_view type, std::string_view title) {
  return fmt::format("{}[{}]", CanonicalTypeName(type), title);
}

}  // namespace fsmove::catalog
