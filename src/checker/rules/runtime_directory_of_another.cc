// runtime-directory-of-another: a daemon that made its pid file or socket in a directory of /run
// that another daemon's start made first does not need that daemon before it. /run is emptied at
// every boot, so a daemon's start must make the directories it needs there itself (its init
// script, its unit's RuntimeDirectory=, a tmpfiles.d entry), or it would fail after each reboot;
// in the other order it makes the directory and the other daemon finds it (clamav-freshclam's
// init script and clamav-daemon's both `mkdir -p /run/clamav`). Only another Service's start
// counts as the maker: a File or Exec of the module that makes the directory is there because
// the daemon needs it. Weak, not dropped: `--all` still shows it. Policy: IsRuntimeState
// (resource_semantics.h; knowledge/runtime_state.tsv, its runtime-directory rows).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class RuntimeDirectoryOfAnother final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const analysis::Access& c = q.evidence.second;
    if (!c.parent || c.effect != analysis::Effect::kConsumed) return kStrongest;
    if (!context.IsService(q.consumer) || !context.IsService(q.producer)) return kStrongest;
    const knowledge::Row* row = IsRuntimeState(q.evidence.path);
    if (row == nullptr || row->kind != "runtime-directory" || row->fact == q.evidence.path) {
      return kStrongest;
    }
    context.Cite(*row);
    return 1;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeRuntimeDirectoryOfAnotherRule() {
  return std::make_unique<RuntimeDirectoryOfAnother>();
}

}  // namespace fsmove::checker
