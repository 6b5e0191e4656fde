// Which findings a project has accepted: a `# fsmove:ignore:RULE reason` comment at a
// declaration in its code (source_suppressions.h), a pair listed in its configuration's
// ignore_pairs (with a reason), or a fingerprint in its baseline. Suppressed findings stay in the
// result (reports can show them and count them) but do not fail the run.
#pragma once

#include <string>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/checker/project_config.h"
#include "fsmove/gating/baseline.h"
#include "fsmove/gating/source_suppressions.h"

namespace fsmove::gating {

enum class SuppressionKind : uint8_t {
  kNone,
  kInSource,     // a comment in the code (source_suppressions.h)
  kIgnoredPair,  // the configuration's ignore_pairs
  kBaseline,     // the baseline file
};

struct FindingSuppression {
  SuppressionKind kind = SuppressionKind::kNone;
  std::string justification;  // the comment's or the pair's reason, or "in baseline FILE"
  bool in_baseline = false;   // its fingerprint is in the baseline (even if a pair matched)
  // kInSource: where the comment is (its manifest on this machine).
  std::string file;
  int line = 0;
};

struct Suppressions {
  std::vector<FindingSuppression> findings;  // parallel to CheckResult::findings
  std::string baseline_name;                 // empty without a baseline
  std::string config_name;                   // the configuration with ignore_pairs, if any
  size_t by_source = 0;
  size_t by_pair = 0;
  size_t by_baseline = 0;
  // Baseline entries no finding matched: fixed, or changed (other paths, other resources).
  std::vector<BaselineEntry> absent;
  // ignore_pairs naming resources this catalog does not have (skipped), and comments that
  // name no rule or suppress no finding.
  std::vector<std::string> warnings;

  bool has_baseline() const { return !baseline_name.empty(); }
  size_t suppressed() const { return by_source + by_pair + by_baseline; }
  bool IsSuppressed(size_t i) const {
    return i < findings.size() && findings[i].kind != SuppressionKind::kNone;
  }
};

// A comment matches the findings of its rules whose resource on either side (or the user's
// declaration it was lifted to) is declared on a line it covers. A pair matches findings
// between its two resources in either direction (the checker picks the direction from what
// the run shows, and that can change), of its rule or of both. A comment suppresses first
// (it stands at the code), then a pair, then the baseline: each reason says more than the
// next. `in_source` may be null (no comments read).
Suppressions Suppress(const checker::CheckResult& result, const catalog::Catalog& catalog,
                      const checker::ProjectConfig& config, const Baseline* baseline,
                      const SourceSuppressions* in_source = nullptr);

}  // namespace fsmove::gating
