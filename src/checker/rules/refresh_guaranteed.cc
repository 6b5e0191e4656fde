// refresh-guaranteed: the service is refreshed after every change of the producer, through
// Puppet's graph, a restart relay, or a refreshonly Exec whose every trigger refreshes it. No MN
// then, and no MOR for the pair either: the refresh comes after the change.
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class RefreshGuaranteed final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    auto pair = std::make_pair(q.first, q.second);
    if (q.kind == kOrderingPair) {
      return context.refreshed().contains(pair) ? PairVerdict::kGuaranteed : PairVerdict::kKeep;
    }
    const ServiceRelays& relays = context.relays();
    if (!relays.Refreshes(q.first, q.second) && !relays.TriggersRefresh(q.first, q.second)) {
      return PairVerdict::kKeep;
    }
    context.refreshed().insert(pair);
    return PairVerdict::kGuaranteed;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeRefreshGuaranteedRule() { return std::make_unique<RefreshGuaranteed>(); }

}  // namespace fsmove::checker
