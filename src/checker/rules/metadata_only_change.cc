// metadata-only-change: a producer that changed only owner or mode. Only a lookup of the path
// can depend on that (an MOR, weak); a service needs no restart for it (MN); and owner or mode
// set twice is no content race (write-write).
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class MetadataOnlyChange final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& /*context*/) const override {
    const analysis::Access& p = q.evidence.first;
    const analysis::Access& c = q.evidence.second;
    if (q.kind == kWriteWriteEvidence) return p.shallow || c.shallow ? 0 : kStrongest;
    if (!p.shallow) return kStrongest;
    if (q.kind == kNotificationEvidence) return 0;
    return c.effect == analysis::Effect::kConsumed && c.shallow && !c.failed ? 1 : 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeMetadataOnlyChangeRule() {
  return std::make_unique<MetadataOnlyChange>();
}

}  // namespace fsmove::checker
