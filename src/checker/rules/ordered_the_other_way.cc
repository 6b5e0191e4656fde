// ordered-the-other-way: the graph applies the pair in the other order on purpose (a service
// before the file it writes, a consumer before its producer): the suggested edge would close a
// dependency cycle.
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class OrderedTheOtherWay final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    return context.HappensBefore(q.second, q.first) ? PairVerdict::kAgainstDeclaredOrder
                                                    : PairVerdict::kKeep;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeOrderedTheOtherWayRule() {
  return std::make_unique<OrderedTheOtherWay>();
}

}  // namespace fsmove::checker
