// one-key-edit: a one-key edit of a file that already existed, read by something other than a
// service: the reader works in either order and sees one setting differ. Weak (1).
// Policy: IsPartialEditor (resource_semantics.h).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class OneKeyEdit final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    bool weak = q.OfContent() && q.strength == kStrongest &&
                IsPartialEditor(context.resource(q.producer)) && !context.IsService(q.consumer);
    return weak ? 1 : kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeOneKeyEditRule() { return std::make_unique<OneKeyEdit>(); }

}  // namespace fsmove::checker
