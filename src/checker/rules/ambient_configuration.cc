// ambient-configuration: settings every program reads in passing (time zone, locale, resolver,
// hosts, OpenSSL's defaults, apt's configuration): a reader that is not a service shows no
// dependency worth more than a weak (1) edge. A service keeps what it read, and stays strong.
// Policy: IsAmbientConfiguration (resource_semantics.h; knowledge/ambient_configuration.tsv).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class AmbientConfiguration final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!q.OfContent() || context.IsService(q.consumer)) return kStrongest;
    const knowledge::Row* row = IsAmbientConfiguration(q.evidence.path);
    if (row == nullptr) return kStrongest;
    context.Cite(*row);
    return 1;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeAmbientConfigurationRule() {
  return std::make_unique<AmbientConfiguration>();
}

}  // namespace fsmove::checker
