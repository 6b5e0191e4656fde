// Duplicate JSON keys; see json_keys.h.
#include "fsmove/base/json_keys.h"

#include <vector>

#include "absl/container/flat_hash_set.h"

namespace fsmove::base {

std::optional<DuplicateKey> FindDuplicateKey(std::string_view text, std::size_t start) {
  struct Frame {
    bool object = false;
    bool expecting_key = false;
    absl::flat_hash_set<std::string_view> keys;
  };
  std::vector<Frame> stack;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t open = i;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (!stack.empty() && stack.back().object && stack.back().expecting_key) {
        std::string_view key = text.substr(open + 1, i - open - 1);
        if (!stack.back().keys.insert(key).second) return DuplicateKey{open, std::string(key)};
        stack.back().expecting_key = false;
      }
    } else if (c == '{' || c == '[') {
      stack.push_back(Frame{c == '{', c == '{', {}});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',' && !stack.empty() && stack.back().object) {
      stack.back().expecting_key = true;
    }
  }
  return std::nullopt;
}

}  // namespace fsmove::base
