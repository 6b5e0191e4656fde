// sources-list-install: a Package that read an apt sources list (apt-get install reads them
// all) installs only from the package indexes an update downloaded: a source added before the
// install but after the last update gives it nothing, and one added after it takes nothing
// away. What an install needs is the update (an Exec running apt-get update writes the indexes
// it reads, and that pair is judged on its own); an update reading the list keeps its strength.
// Weak (1).
// Policy: IsAptSourcesList (resource_semantics.h; knowledge/apt_sources.tsv).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class SourcesListInstall final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (context.resource(q.consumer).type != "Package") return kStrongest;
    const knowledge::Row* row = IsAptSourcesList(q.evidence.path);
    if (row == nullptr) return kStrongest;
    context.Cite(*row);
    return 1;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSourcesListInstallRule() {
  return std::make_unique<SourcesListInstall>();
}

}  // namespace fsmove::checker
