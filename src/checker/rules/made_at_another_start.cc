// made-at-another-start: what a daemon's start made when it was missing is no change its restart
// repeats, so it asks no notify of another daemon. A Service's refresh restarts its daemon; the
// daemon makes a directory or runtime state only when they are missing (samba's smbd and nmbd
// each `mkdir` /var/log/samba/cores, nmbd's failing with EEXIST, and each opens
// /run/samba/names.tdb with O_CREAT), so a restart of the one that started first changes nothing
// the other reads. Two cases, both between Services: the consumer made entries in a directory the
// producer's start made, or the path is runtime state (knowledge/runtime_state.tsv: made afresh at
// each boot and start). Such a read is weak, not dropped: `--all` still shows it. Runtime state
// both daemons write (each opens the database with O_CREAT) is no write-write evidence at all:
// either order leaves what the two daemons make of it. An ordering need between the two starts
// is runtime-directory-of-another's to judge, not this rule's.
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class MadeAtAnotherStart final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!context.IsService(q.producer) || !context.IsService(q.consumer)) return kStrongest;
    if (q.evidence.first.effect != analysis::Effect::kProduced) return kStrongest;
    if (q.evidence.second.parent && q.evidence.second.effect == analysis::Effect::kConsumed) {
      return 1;
    }
    const knowledge::Row* row = IsRuntimeState(q.evidence.path);
    if (row == nullptr || row->fact == q.evidence.path) return kStrongest;
    context.Cite(*row);
    return q.kind == kWriteWriteEvidence ? 0 : 1;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeMadeAtAnotherStartRule() {
  return std::make_unique<MadeAtAnotherStart>();
}

}  // namespace fsmove::checker
