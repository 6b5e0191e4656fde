// name-service-entries: the name-service databases (/etc/passwd, group, shadow, ...) are keyed
// by entry. A consumer depends on a producer of them only through the accounts it names (owner
// => mysql after the package that adds mysql); an account the catalog manages (User[git],
// Group[git]) is made by that resource, which Puppet autorequires. Two writers add different
// entries. A User without a gid and the Group of its name are weak (user private groups:
// knowledge/user_private_groups.tsv). Policies: IsNameServiceDatabase
// (knowledge/name_service_databases.tsv), NamedAccounts (resource_semantics.h).
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
    const knowledge::Row* row = IsNameServiceDatabase(q.evidence.path);
    if (row == nullptr) return kStrongest;
    // A User's own name is a group only for its private group: either order makes it the same
    // (IsUserPrivateGroup), so that need is weak.
    const knowledge::Row* private_group = nullptr;
    if (q.kind != kWriteWriteEvidence) {
      const catalog::Catalog& catalog = context.catalog();
      for (const std::string& account : NamedAccounts(context.resource(q.consumer))) {
        std::optional<catalog::ResourceId> user = catalog.Find("User", account);
        std::optional<catalog::ResourceId> group = catalog.Find("Group", account);
        if (group == q.producer && user == q.consumer) {
          private_group = IsUserPrivateGroup(context.resource(q.consumer),
                                             context.resource(q.producer), q.evidence.path);
          if (private_group != nullptr) continue;
        }
        if ((!user && !group) || user == q.producer || group == q.producer) return kStrongest;
      }
    }
    context.Cite(private_group != nullptr ? *private_group : *row);
    return private_group != nullptr ? 1 : 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeNameServiceEntriesRule() {
  return std::make_unique<NameServiceEntries>();
}

}  // namespace fsmove::checker
