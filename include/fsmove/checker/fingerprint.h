// The stable identity of a finding across runs, machines and releases: what a baseline file
// stores and SARIF's partialFingerprints carry. It hashes what the finding is about (its
// kind, both resources' canonical references and every path they conflict on) and nothing
// that moves when unrelated code changes (manifest lines, trace lines, pids, timings).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fsmove/checker/checker.h"

namespace fsmove::checker {

// Bumped only if the hashed fields change; old baselines then stop matching, loudly (the
// version is part of the hashed text and of the baseline file).
inline constexpr int kFingerprintVersion = 1;

// 32 lower-case hex digits: the first 128 bits of SHA-256 over
//   "fsmove-finding/v1\n" rule "\n" len(source) ":" source len(target) ":" target
//   then for each path, sorted and unique: len(path) ":" path
// with rule "missing-ordering"|"missing-notifier", references "Type[title]" and lengths in
// decimal bytes (so no choice of separator can make two findings collide).
std::string FindingFingerprint(FaultKind kind, std::string_view source_ref,
                               std::string_view target_ref, std::vector<std::string> paths);

}  // namespace fsmove::checker
