// The name a user most likely meant: `fsmove chek` suggests `check`, `--formt` suggests
// `--format`, the way git and cargo answer a mistyped command. The distance is the optimal
// string alignment distance (insertions, deletions, substitutions and swaps of two neighbours
// cost one each), and a name is suggested only when it is close for its length, so that a
// word that is no name at all gets no suggestion.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fsmove::base {

// Edits that turn `a` into `b`, counting a swap of two neighbouring characters as one.
size_t EditDistance(std::string_view a, std::string_view b);

// The name in `names` nearest to `typed`, when it is within a third of the longer one's
// length (at least one edit; a typed prefix of a single name, "sca" for "scan", counts too).
// Ties go to the first name listed. None when `typed` is itself a name or none is near.
std::optional<std::string> NearestName(std::string_view typed, std::span<const std::string> names);

}  // namespace fsmove::base
