// reloaded-by-another: a reload of PID 1 (`systemctl daemon-reload`) reads every unit file and
// drop-in, so it "needs" each one written before it; but a unit file needs only *a* reload
// after it. When another reload is ordered after the producer already (the drop-in notifies its
// own), this one's order against the producer changes nothing systemd loads.
// Policies: IsUnitDefinition (knowledge/unit_directories.tsv), IsUnitReload
// (resource_semantics.h).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class ReloadedByAnother final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const knowledge::Row* row = IsUnitDefinition(q.evidence.path);
    if (row == nullptr || !IsUnitReload(context.resource(q.consumer))) return kStrongest;
    for (catalog::ResourceId other : context.UnitReloads()) {
      if (other != q.consumer && context.HappensBefore(q.producer, other)) {
        context.Cite(*row);
        return 0;
      }
    }
    return kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeReloadedByAnotherRule() { return std::make_unique<ReloadedByAnother>(); }

}  // namespace fsmove::checker
