// Which findings a project has accepted: a pair listed in its configuration's ignore_pairs
// (with a reason), or a fingerprint in its baseline. Suppressed findings stay in the result
// (reports can show them and count them) but do not fail the run.
#pragma once

#include <string>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/checker/project_config.h"
#include "fsmove/gating/baseline.h"

namespace fsmove::gating {

enum class SuppressionKind : uint8_t {
  kNone,
  kIgnoredPair,  // the configuration's ignore_pairs
  kBaseline,     // the baseline file
};

struct FindingSuppression {
  SuppressionKind kind = SuppressionKind::kNone;
  std::string justification;  // the pair's reason, or "in baseline FILE"
  bool in_baseline = false;   // its fingerprint is in the baseline (even if a pair matched)
};

struct Suppressions {
  std::vector<FindingSuppression> findings;  // parallel to CheckResult::findings
  std::string baseline_name;                 // empty without a baseline
  std::string config_name;                   // the configuration with ignore_pairs, if any
  size_t by_pair = 0;
  size_t by_baseline = 0;
  // Baseline entries no finding matched: fixed, or changed (other paths, other resources).
  std::vector<BaselineEntry> absent;
  // ignore_pairs naming resources this catalog does not have (skipped).
  std::vector<std::string> warnings;

  bool has_baseline() const { return !baseline_name.empty(); }
  size_t suppressed() const { return by_pair + by_baseline; }
  bool IsSuppressed(size_t i) const {
    return i < findings.size() && findings[i].kind != SuppressionKind::kNone;
  }
};

// A pair matches findings between its two resources in either direction (the checker picks
// the direction from what the run shows, and that can change), of its rule or of both.
// A pair suppresses before the baseline does: its reason says more.
Suppressions Suppress(const checker::CheckResult& result, const catalog::Catalog& catalog,
                      const checker::ProjectConfig& config, const Baseline* baseline);

}  // namespace fsmove::gating
