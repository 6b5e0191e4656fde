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

const PackageUniverse& RuleContext::package_universe() {
  if (package_universe_) return *package_universe_;
  PackageUniverse& u = package_universe_.emplace();
  const analysis::AccessMap& map = resources_.accesses();
  for (analysis::PathId p = 0; p < map.path_count(); ++p) {
    const knowledge::Row* input = IsPackageIndexInput(map.path(p));
    bool index = input != nullptr && input->kind == "package-index";
    if (!index && input == nullptr && IsAptSourcesList(map.path(p)) == nullptr) continue;
    for (const analysis::Access& a : map.accesses(p)) {
      bool changed = (a.effect == analysis::Effect::kProduced && !a.shallow) ||
                     a.effect == analysis::Effect::kExpunged;
      if (!changed || a.managed || a.failed) continue;
      if (index) {
        u.index_writers.insert(a.block);
      } else {
        u.sources_changed = true;
      }
    }
  }
  return u;
}

}  // namespace fsmove::checker
