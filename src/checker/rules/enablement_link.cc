// enablement-link: another service's enablement link (/etc/rcN.d/S..., UNIT.wants/...) is the
// boot order of that service, whoever made it (a Package's maintainer scripts, a Service's
// `enable`, an Exec running systemctl enable); what lists them is the init system's
// bookkeeping. Policy: PathFilter::IsEnablementLink (path_filter.h;
// knowledge/enablement_links.tsv).
#include "fsmove/checker/path_filter.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class EnablementLink final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const knowledge::Row* row = PathFilter::IsEnablementLink(q.evidence.path);
    if (row == nullptr) return kStrongest;
    context.Cite(*row);
    return 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeEnablementLinkRule() { return std::make_unique<EnablementLink>(); }

}  // namespace fsmove::checker
