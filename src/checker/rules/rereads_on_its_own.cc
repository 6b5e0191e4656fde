// rereads-on-its-own: a daemon that notices a change of its file by itself and reads it again
// (cron looks at its crontabs' times every minute and reloads them) needs neither a notify from
// what changes the file nor an ordering before it: started before the change, or never
// restarted after it, it picks the change up. Only the daemon's own accesses count (the program
// that made them, ResourceAccesses::ProgramsAbove), not a tool's that reads the same file.
// Drops the evidence (0); a daemon that reads its configuration again only when it acts
// (unattended-upgrade-shutdown at the shutdown signal), keeping minor settings from its start
// (its log directory), makes it weak (1).
// Policy: IsReadAgainByItself (resource_semantics.h; knowledge/rereading_daemons.tsv).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class RereadsOnItsOwn final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!context.IsService(q.consumer)) return kStrongest;
    const std::vector<std::string_view> above =
        context.resources().ProgramsAbove(q.evidence.second, 1);  // the daemon's own
    if (above.empty()) return kStrongest;
    const knowledge::Row* row = IsReadAgainByItself(above[0], q.evidence.path);
    if (row == nullptr) return kStrongest;
    context.Cite(*row);
    return row->kind == "config-when-it-acts" ? 1 : 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeRereadsOnItsOwnRule() { return std::make_unique<RereadsOnItsOwn>(); }

}  // namespace fsmove::checker
