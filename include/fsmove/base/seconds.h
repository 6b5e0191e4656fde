// Seconds since a moment of the steady clock: how every stage times itself for its report
// (the compile and the apply, the catalog and the check, the replays).
#pragma once

#include <chrono>

namespace fsmove::base {

inline double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace fsmove::base
