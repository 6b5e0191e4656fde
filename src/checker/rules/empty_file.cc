// empty-file: a File with no content, source or target makes at most an empty file. A service
// reads no setting from it (MN); a consumer that read its content read nothing, as from an
// absent file (MOR: the same holds when the file was already there and the File only looked at
// it, a manager's promoted look). Kept, weak (1): a flag file's existence may matter, and a
// program given the path may refuse an absent one. A consumer that only looked the path up (its
// existence is what it asked) keeps the evidence's strength.
// Policy: MakesOnlyAnEmptyFile (resource_semantics.h).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class EmptyFile final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!MakesOnlyAnEmptyFile(context.resource(q.producer))) return kStrongest;
    if (q.kind == kNotificationEvidence) return 1;
    const analysis::Access& c = q.evidence.second;
    const bool read_content = c.effect == analysis::Effect::kConsumed && !c.shallow && !c.failed &&
                              !c.parent && !c.listing;
    return read_content ? 1 : kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeEmptyFileRule() { return std::make_unique<EmptyFile>(); }

}  // namespace fsmove::checker
