// unit-directory-walk: deb-systemd-helper (purge, update-state) and systemctl walk every unit
// directory from a package's maintainer scripts, looking at each entry; a Package that only
// listed, looked up or made an entry beside a unit file needs none of them. What a unit's
// start reads of its definition is content, and stays. Policy: IsUnitDefinition
// (resource_semantics.h; knowledge/unit_directories.tsv).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class UnitDirectoryWalk final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const analysis::Access& c = q.evidence.second;
    if (!context.IsPackage(q.consumer) || c.effect != analysis::Effect::kConsumed ||
        !(c.listing || c.shallow || c.parent)) {
      return kStrongest;
    }
    const knowledge::Row* row = IsUnitDefinition(q.evidence.path);
    if (row == nullptr) return kStrongest;
    context.Cite(*row);
    return 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeUnitDirectoryWalkRule() { return std::make_unique<UnitDirectoryWalk>(); }

}  // namespace fsmove::checker
