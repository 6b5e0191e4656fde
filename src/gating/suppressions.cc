// Applying ignore_pairs and a baseline to the checker's findings; see suppressions.h.
#include "fsmove/gating/suppressions.h"

#include <optional>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"

namespace fsmove::gating {

using checker::CheckResult;
using checker::Finding;
using checker::IgnoredPair;
using checker::ProjectConfig;
namespace {

struct ResolvedPair {
  catalog::ResourceId a, b;
  const IgnoredPair* pair;
};

}  // namespace

Suppressions Suppress(const CheckResult& result, const catalog::Catalog& catalog,
                      const ProjectConfig& config, const Baseline* baseline) {
  Suppressions s;
  s.findings.resize(result.findings.size());
  if (!config.ignore_pairs.empty()) s.config_name = config.source_name;
  std::vector<ResolvedPair> pairs;
  for (const IgnoredPair& p : config.ignore_pairs) {
    std::optional<catalog::ResourceId> a = catalog.ResolveRef(p.source);
    std::optional<catalog::ResourceId> b = catalog.ResolveRef(p.target);
    if (!a || !b) {
      s.warnings.push_back(fmt::format("{}: {}: {} is not in {}; pair skipped", config.source_name,
                                       p.json_pointer, !a ? p.source : p.target,
                                       catalog.source_name()));
      continue;
    }
    pairs.push_back({*a, *b, &p});
  }
  absl::flat_hash_set<std::string> matched;
  for (size_t i = 0; i < result.findings.size(); ++i) {
    const Finding& f = result.findings[i];
    FindingSuppression& out = s.findings[i];
    if (baseline != nullptr && baseline->Find(f.fingerprint) != nullptr) {
      out.in_baseline = true;
      matched.insert(f.fingerprint);
    }
    for (const ResolvedPair& p : pairs) {
      bool same = (p.a == f.source && p.b == f.target) || (p.a == f.target && p.b == f.source);
      if (!same || (p.pair->rule && *p.pair->rule != f.kind)) continue;
      out.kind = SuppressionKind::kIgnoredPair;
      out.justification = p.pair->reason;
      ++s.by_pair;
      break;
    }
    if (out.kind == SuppressionKind::kNone && out.in_baseline) {
      out.kind = SuppressionKind::kBaseline;
      out.justification = fmt::format("in baseline {}", baseline->source_name());
      ++s.by_baseline;
    }
  }
  if (baseline != nullptr) {
    s.baseline_name = baseline->source_name();
    for (const BaselineEntry& e : baseline->entries()) {
      if (!matched.contains(e.fingerprint)) s.absent.push_back(e);
    }
  }
  return s;
}

}  // namespace fsmove::gating
