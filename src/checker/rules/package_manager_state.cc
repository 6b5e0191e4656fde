// package-manager-state: dpkg's and apt's databases, caches and logs as a package install
// rewrites them: apt and dpkg order their own work (an apt update, an Exec, that rewrites apt's
// lists stays). Two writers of them race on nothing: caches and databases both rebuild.
// Policy: PathFilter::IsPackageManagerState (path_filter.h; knowledge/package_manager_state.tsv,
// enablement_links.tsv); the name-service databases in it are name-service-entries' (by entry).
#include "fsmove/checker/path_filter.h"
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class PackageManagerState final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const std::string& path = q.evidence.path;
    const knowledge::Row* row = PathFilter::IsPackageManagerState(path);
    if (row == nullptr) return kStrongest;
    if (q.kind != kWriteWriteEvidence &&
        (!context.IsPackage(q.producer) || IsNameServiceDatabase(path) != nullptr)) {
      return kStrongest;
    }
    context.Cite(*row);
    return 0;
  }
};

}  // namespace

std::unique_ptr<Rule> MakePackageManagerStateRule() {
  return std::make_unique<PackageManagerState>();
}

}  // namespace fsmove::checker
