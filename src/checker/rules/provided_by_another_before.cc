// provided-by-another-before: a consumer that needs only the path's existence (a lookup, a
// failed open, an entry made in the directory) gets it from another resource applied before
// it: a real producer of the path's content or existence, or a package whose install used the
// path (it ships it, or ships files inside it). The producer's order then changes nothing.
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class ProvidedByAnotherBefore final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const analysis::Access& c = q.evidence.second;
    bool existence_only =
        c.effect == analysis::Effect::kConsumed && (c.parent || c.failed || c.shallow);
    if (q.evidence.first.shallow || !existence_only) return kStrongest;
    for (const analysis::Access& a : context.Accesses(q.evidence.path)) {
      if (a.block == q.producer || a.block == q.consumer) continue;
      bool provides =
          (a.effect == analysis::Effect::kProduced && !a.shallow) ||
          (context.IsPackage(a.block) && !a.failed && a.effect == analysis::Effect::kConsumed);
      if (provides && context.HappensBefore(a.block, q.consumer)) return 0;
    }
    return kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeProvidedByAnotherBeforeRule() {
  return std::make_unique<ProvidedByAnotherBefore>();
}

}  // namespace fsmove::checker
