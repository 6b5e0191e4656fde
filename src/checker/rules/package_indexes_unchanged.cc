// package-indexes-unchanged: a Package whose install read apt's caches or lists that another
// resource rewrote (an Exec running apt-get update) chooses among the packages the indexes
// offer. When that resource wrote no package index and no resource of the run changed a
// sources list or dpkg's architectures, the indexes are the ones the install found anyway: the
// update rebuilt the caches from them and renewed translations and stamps, and either order
// installs the same package. puppetlabs-apt's rule is the same: a package from a source the
// catalog adds must come after Class['apt::update']; one from the sources the machine had needs
// no update. A Package as the rewriter is package-manager-state's. Weak (1).
// Policy: PathFilter::IsPackageManagerState (package_manager_state.tsv: apt's state and cache),
// IsPackageIndexInput (package_indexes.tsv), IsAptSourcesList (apt_sources.tsv).
#include "fsmove/checker/path_filter.h"
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class PackageIndexesUnchanged final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!context.IsPackage(q.consumer) || context.IsPackage(q.producer)) return kStrongest;
    const knowledge::Row* state = PathFilter::IsPackageManagerState(q.evidence.path);
    if (state == nullptr || (state->kind != "apt-state" && state->kind != "apt-cache")) {
      return kStrongest;
    }
    const PackageUniverse& universe = context.package_universe();
    if (universe.sources_changed || universe.index_writers.contains(q.producer)) {
      return kStrongest;
    }
    static const knowledge::Row& row =
        knowledge::TableNamed("package_indexes").RowWithId("apt.packages-index");
    context.Cite(row);
    return 1;
  }
};

}  // namespace

std::unique_ptr<Rule> MakePackageIndexesUnchangedRule() {
  return std::make_unique<PackageIndexesUnchanged>();
}

}  // namespace fsmove::checker
