// stop-edit-start: an Exec that runs on every apply stops the service before the producer
// changes anything, and the service is applied after: the daemon never runs with the old
// content while the new is in place (no MN). And a stop acts on the daemon the last start made:
// what configuration the stopping Exec reads now is no need of it, only the programs it runs.
#include "fsmove/checker/rules/rule_context.h"
#include "fsmove/fstrace/lowering.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class StopEditStart final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    return context.relays().StoppedAround(q.first, q.second) ? PairVerdict::kGuaranteed
                                                             : PairVerdict::kKeep;
  }
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    return context.relays().StopsAService(q.consumer) &&
                   fstrace::SyscallName(q.evidence.second.syscall) != "execve"
               ? 0
               : kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeStopEditStartRule() { return std::make_unique<StopEditStart>(); }

}  // namespace fsmove::checker
