// graph-orders-pair: the dependency graph already applies the producer first (an MOR), or
// orders the two writers of a path one way or the other (write-write): Puppet guarantees it.
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class GraphOrdersPair final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    bool ordered = context.HappensBefore(q.first, q.second) ||
                   (q.kind == kWriteWritePair && context.HappensBefore(q.second, q.first));
    return ordered ? PairVerdict::kGuaranteed : PairVerdict::kKeep;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeGraphOrdersPairRule() { return std::make_unique<GraphOrdersPair>(); }

}  // namespace fsmove::checker
