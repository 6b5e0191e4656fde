// A pair of resources as one 64-bit key (the first in the high half), for the hash sets of
// edges and containment pairs the graph stage builds.
#pragma once

#include <cstdint>

#include "fsmove/catalog/catalog.h"

namespace fsmove::graph {

inline std::uint64_t PairKey(catalog::ResourceId a, catalog::ResourceId b) {
  return (std::uint64_t{a} << 32) | b;
}

}  // namespace fsmove::graph
