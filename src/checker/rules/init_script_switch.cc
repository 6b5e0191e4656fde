// init-script-switch: systemd (PID 1) loads an environment file whole (EnvironmentFile=) when it
// starts a unit, but the unit's command line uses only some of its variables. A resource that
// sets nothing there but the switch a SysV init script tests before it starts the daemon
// (START_KNOCKD=1, `set START yes`) changes nothing of what systemd starts: neither its order
// before the start nor a restart after it matters. Only PID 1's read is judged so: an init
// script that reads the file itself (no systemd, or a unit systemd-sysv-generator made of the
// script) obeys the switch, and that evidence stays. Weak, not dropped. Policy: ShellAssignments,
// IsInitScriptSwitch (resource_semantics.h; knowledge/init_script_switches.tsv).
#include <strings.h>

#include <string>

#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

// The values init scripts compare their switches with.
bool IsSwitchValue(std::string_view value) {
  for (std::string_view word : {"yes", "no", "true", "false", "on", "off", "1", "0"}) {
    if (value.size() == word.size() && strncasecmp(value.data(), word.data(), word.size()) == 0) {
      return true;
    }
  }
  return false;
}

class InitScriptSwitch final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (q.evidence.second.pid != analysis::kInitPid || !context.IsService(q.consumer))
      return kStrongest;
    auto assignments = ShellAssignments(context.resource(q.producer));
    if (!assignments) return kStrongest;
    const knowledge::Row* first = nullptr;
    for (const auto& [name, value] : *assignments) {
      const knowledge::Row* row = IsInitScriptSwitch(name);
      if (row == nullptr || !IsSwitchValue(value)) return kStrongest;
      if (first == nullptr) first = row;
    }
    context.Cite(*first);
    return 1;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeInitScriptSwitchRule() { return std::make_unique<InitScriptSwitch>(); }

}  // namespace fsmove::checker
