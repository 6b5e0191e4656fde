// `text` cut at each `separator`, empty parts kept: the fields of a tab-separated record, the
// lines of a command's output. (Debian 12's Abseil has its own string_view, so absl::StrSplit
// does not give std::string_view.)
#pragma once

#include <algorithm>
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

// `text`'s words: the runs between any of `blanks` (spaces and tabs unless told), empty ones
// dropped: a command line's, a line of /etc/hosts.
inline std::vector<std::string_view> Words(std::string_view text, std::string_view blanks = " \t") {
  std::vector<std::string_view> words;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find_first_of(blanks, at), text.size());
    if (end > at) words.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return words;
}

}  // namespace fsmove::base
