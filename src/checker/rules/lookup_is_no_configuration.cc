// lookup-is-no-configuration: a service runs stale only on content it read; a lookup (stat,
// access) or a failed open of the path is no configuration it keeps.
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class LookupIsNoConfiguration final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& /*context*/) const override {
    const analysis::Access& c = q.evidence.second;
    return c.shallow || c.failed ? 0 : kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeLookupIsNoConfigurationRule() {
  return std::make_unique<LookupIsNoConfiguration>();
}

}  // namespace fsmove::checker
