// What a rule may look at; see rule_context.h.
#include "fsmove/checker/rules/rule_context.h"

#include "fsmove/checker/resource_semantics.h"

namespace fsmove::checker {

RuleContext::RuleContext(const catalog::Catalog& catalog, const graph::DependencyGraph& graph,
                         const CheckOptions& options, ResourceAccesses& resources)
    : catalog_(catalog),
      graph_(graph),
      options_(options),
      resources_(resources),
      relays_(catalog, graph, resources.accesses()) {}

bool RuleContext::IsService(catalog::ResourceId r) const { return checker::IsService(resource(r)); }

const absl::InlinedVector<analysis::Access, 1>& RuleContext::Accesses(std::string_view path) {
  analysis::AccessMap& map = resources_.accesses();
  return map.accesses(map.Intern(path));
}

const std::vector<catalog::ResourceId>& RuleContext::UnitReloads() {
  if (!unit_reloads_) {
    unit_reloads_.emplace();
    for (catalog::ResourceId r = 0; r < catalog_.size(); ++r) {
      if (IsUnitReload(catalog_.resource(r))) unit_reloads_->push_back(r);
    }
  }
  return *unit_reloads_;
}

}  // namespace fsmove::checker
