// optional-program: evidence made by a program its caller runs only when it is installed, and
// does without otherwise (apt-key's clean-up runs gpgconf if there is one): the caller's
// resource does not need the package that installs it, nor what it reads while it runs. Who
// made an access comes from the trace's execs (ResourceAccesses::ProgramsAbove): the access is
// the caller's own lookup or exec of the optional program, or was made while the optional
// program (or what it ran) was running. Weak (1).
// Policy: IsOptionalProgram (resource_semantics.h; knowledge/optional_programs.tsv).
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class OptionalProgram final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const std::vector<std::string_view> above =
        context.resources().ProgramsAbove(q.evidence.second);
    if (above.empty()) return kStrongest;
    const knowledge::Row* row = IsOptionalProgram(above[0], q.evidence.path);
    // above[i] was run by a process running above[i + 1].
    for (size_t i = 0; row == nullptr && i + 1 < above.size(); ++i) {
      row = IsOptionalProgram(above[i + 1], above[i]);
    }
    if (row == nullptr) return kStrongest;
    context.Cite(*row);
    return 1;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeOptionalProgramRule() { return std::make_unique<OptionalProgram>(); }

}  // namespace fsmove::checker
