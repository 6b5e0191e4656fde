// commuting-edits: edits of distinct keys or lines of one file give the same file in either
// order, and so do such an edit and a File that only makes the file exist; not two Augeas edits
// of which one makes the node the other's path selects below.
// Policies: IsPartialEditor, OnlyEnsuresExistence, AugeasMakesWhatTheOtherSelects
// (resource_semantics.h).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class CommutingEdits final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    const catalog::Resource& x = context.resource(q.first);
    const catalog::Resource& y = context.resource(q.second);
    bool ex = IsPartialEditor(x), ey = IsPartialEditor(y);
    bool commute = (ex && ey && !AugeasMakesWhatTheOtherSelects(x, y)) ||
                   (ex && OnlyEnsuresExistence(y)) || (ey && OnlyEnsuresExistence(x));
    return commute ? PairVerdict::kCommutes : PairVerdict::kKeep;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeCommutingEditsRule() { return std::make_unique<CommutingEdits>(); }

}  // namespace fsmove::checker
