// `text` cut at each `separator`, empty parts kept: the fields of a tab-separated record, the
// lines of a command's output. (Debian 12's Abseil has its own string_view, so absl::StrSplit
// does not give std::string_view.)
#pragma once

#include <string_view>
#include <vector>

namespace fsmove::base {

inline std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (size_t at = 0;;) {
    const size_t end = text.find(separator, at);
    parts.push_back(text.substr(at, end == std::string_view::npos ? end : end - at));
    if (end == std::string_view::npos) return parts;
    at = end + 1;
  }
}

}  // namespace fsmove::base
