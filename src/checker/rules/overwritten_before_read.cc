// overwritten-before-read: another whole-content writer of the path always runs after the
// producer and before the consumer, so the consumer never reads the producer's version (a
// partial editor's write does not count: it keeps the rest). Policy: IsPartialEditor
// (resource_semantics.h).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class OverwrittenBeforeRead final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const analysis::Access& c = q.evidence.second;
    // An ordering's consumer that reads content (not only the path's existence), after a
    // change of content; a notification's service, whatever it did (the other rules judge).
    if (q.kind == kOrderingEvidence &&
        (q.evidence.first.shallow || c.effect != analysis::Effect::kConsumed || c.parent ||
         c.failed || c.shallow)) {
      return kStrongest;
    }
    for (const analysis::Access& a : context.Accesses(q.evidence.path)) {
      if (a.block == q.producer || a.block == q.consumer ||
          a.effect != analysis::Effect::kProduced || a.shallow ||
          IsPartialEditor(context.resource(a.block))) {
        continue;
      }
      if (context.HappensBefore(q.producer, a.block) &&
          context.HappensBefore(a.block, q.consumer)) {
        return 0;
      }
    }
    return kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeOverwrittenBeforeReadRule() {
  return std::make_unique<OverwrittenBeforeRead>();
}

}  // namespace fsmove::checker
