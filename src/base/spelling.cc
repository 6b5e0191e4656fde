// The optimal string alignment distance and the nearest-name rule of spelling.h.
#include "fsmove/base/spelling.h"

#include <algorithm>
#include <vector>

namespace fsmove::base {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: the one before the previous is for swaps.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> NearestName(std::string_view typed, std::span<const std::string> names) {
  if (typed.empty()) return std::nullopt;
  std::optional<std::string> best;
  size_t best_distance = 0;
  std::optional<std::string> only_prefix;
  size_t prefixes = 0;
  for (const std::string& name : names) {
    if (name == typed) return std::nullopt;
    if (name.starts_with(typed)) {
      ++prefixes;
      only_prefix = name;
    }
    const size_t distance = EditDistance(typed, name);
    const size_t allowed = std::max<size_t>(1, std::max(typed.size(), name.size()) / 3);
    if (distance <= allowed && (!best || distance < best_distance)) {
      best = name;
      best_distance = distance;
    }
  }
  if (best) return best;
  if (prefixes == 1) return only_prefix;
  return std::nullopt;
}

}  // namespace fsmove::base
