// restart-relay: an Exec that restarts, reloads or signals a service (by its command, or
// because it ran the service's init script) is that service's own restart. What it writes is
// the daemon's doing (no MN), and no ordering is needed between it and the service either way.
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class RestartRelay final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    return context.relays().IsRestartRelay(q.first, q.second) ? PairVerdict::kGuaranteed
                                                              : PairVerdict::kKeep;
  }
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const ServiceRelays& relays = context.relays();
    return relays.IsRestartRelay(q.producer, q.consumer) ||
                   relays.IsRestartRelay(q.consumer, q.producer)
               ? 0
               : kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeRestartRelayRule() { return std::make_unique<RestartRelay>(); }

}  // namespace fsmove::checker
