// package-manager-state: dpkg's and apt's databases, caches and logs as a package install
// rewrites them: apt and dpkg order their own work (an apt update, an Exec, that rewrites apt's
// lists stays). Two writers of them race on nothing: caches and databases both rebuild.
// Policy: PathFilter::IsPackageManagerState (path_filter.h); the name-service databases in it
// are name-service-entries' (by entry).
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
    if (!PathFilter::IsPackageManagerState(path)) return kStrongest;
    if (q.kind == kWriteWriteEvidence) return 0;
    return context.IsPackage(q.producer) && !IsNameServiceDatabase(path) ? 0 : kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakePackageManagerStateRule() {
  return std::make_unique<PackageManagerState>();
}

}  // namespace fsmove::checker
