// runtime-state-entry: a service that made an entry in a directory the producer made is kept
// (its log file in a log directory: a daemon that keeps the old one open writes where the new
// one is not, the paper's "log files"), but its pid file or socket in runtime state (/run,
// /tmp) is no configuration. Policy: IsRuntimeState (resource_semantics.h;
// knowledge/runtime_state.tsv).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class RuntimeStateEntry final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!q.evidence.second.parent) return kStrongest;
    const knowledge::Row* row = IsRuntimeState(q.evidence.path);
    if (row == nullptr) return kStrongest;
    context.Cite(*row);
    return 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeRuntimeStateEntryRule() { return std::make_unique<RuntimeStateEntry>(); }

}  // namespace fsmove::checker
