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

// The comment that suppresses `f`, or null; marks it used.
const SourceSuppression* CommentFor(const Finding& f, const catalog::Catalog& catalog,
                                    const SourceSuppressions& in_source, std::vector<bool>* used) {
  const std::string_view rule = checker::FaultRuleId(f.kind);
  for (catalog::ResourceId r : {f.source, f.target, f.source_declaration, f.target_declaration}) {
    const catalog::Resource& res = catalog.resource(r);
    if (res.file.empty() || !res.line) continue;
    for (size_t k = 0; k < in_source.comments.size(); ++k) {
      if (!in_source.comments[k].Covers(res.file, *res.line, rule)) continue;
      (*used)[k] = true;
      return &in_source.comments[k];
    }
  }
  return nullptr;
}

}  // namespace

Suppressions Suppress(const CheckResult& result, const catalog::Catalog& catalog,
                      const ProjectConfig& config, const Baseline* baseline,
                      const SourceSuppressions* in_source) {
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
  std::vector<bool> used(in_source != nullptr ? in_source->comments.size() : 0);
  for (size_t i = 0; i < result.findings.size(); ++i) {
    const Finding& f = result.findings[i];
    FindingSuppression& out = s.findings[i];
    if (baseline != nullptr && baseline->Find(f.fingerprint) != nullptr) {
      out.in_baseline = true;
      matched.insert(f.fingerprint);
    }
    if (in_source != nullptr) {
      if (const SourceSuppression* c = CommentFor(f, catalog, *in_source, &used)) {
        out.kind = SuppressionKind::kInSource;
        out.file = c->path;
        out.line = c->line;
        out.justification = c->reason.empty() ? c->Directive() : c->reason;
        ++s.by_source;
        continue;
      }
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
  if (in_source != nullptr) {
    s.warnings.insert(s.warnings.end(), in_source->warnings.begin(), in_source->warnings.end());
    for (size_t k = 0; k < used.size(); ++k) {
      if (used[k]) continue;
      const SourceSuppression& c = in_source->comments[k];
      s.warnings.push_back(fmt::format("{}:{}: `{}` suppresses no finding of this run", c.path,
                                       c.line, c.Directive()));
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
