// name-service-entries: the name-service databases (/etc/passwd, group, shadow, ...) are keyed
// by entry. A consumer depends on a producer of them only through the accounts it names (owner
// => mysql after the package that adds mysql); an account the catalog manages (User[git],
// Group[git]) is made by that resource, which Puppet autorequires. Two writers add different
// entries. Policies: IsNameServiceDatabase, NamedAccounts (resource_semantics.h).
#include <optional>
#include <string>

#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class NameServiceEntries final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!IsNameServiceDatabase(q.evidence.path)) return kStrongest;
    if (q.kind == kWriteWriteEvidence) return 0;
    const catalog::Catalog& catalog = context.catalog();
    for (const std::string& account : NamedAccounts(context.resource(q.consumer))) {
      std::optional<catalog::ResourceId> user = catalog.Find("User", account);
      std::optional<catalog::ResourceId> group = catalog.Find("Group", account);
      if ((!user && !group) || user == q.producer || group == q.producer) return kStrongest;
    }
    return 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeNameServiceEntriesRule() {
  return std::make_unique<NameServiceEntries>();
}

}  // namespace fsmove::checker
