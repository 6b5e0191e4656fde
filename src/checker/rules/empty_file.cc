// empty-file: a File with no content, source or target makes at most an empty file: the
// service reads no setting from it. Kept, weak (1): a flag file's existence may matter.
// Policy: MakesOnlyAnEmptyFile (resource_semantics.h).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class EmptyFile final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    return MakesOnlyAnEmptyFile(context.resource(q.producer)) ? 1 : kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeEmptyFileRule() { return std::make_unique<EmptyFile>(); }

}  // namespace fsmove::checker
