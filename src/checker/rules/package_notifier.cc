// package-notifier: a Package is no notifier of the services that read its files unless
// --package-notify asks (as in the paper: an upgrade restarts the package's own services).
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class PackageNotifier final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    return context.IsPackage(q.first) && !context.options().package_notify ? PairVerdict::kDropped
                                                                           : PairVerdict::kKeep;
  }
};

}  // namespace

std::unique_ptr<Rule> MakePackageNotifierRule() { return std::make_unique<PackageNotifier>(); }

}  // namespace fsmove::checker
