// package-pair: two Packages are ordered by apt and dpkg (dependencies, triggers), not by
// Puppet, and dpkg refuses a real file conflict between them itself.
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class PackagePair final : public Rule {
 public:
  PairVerdict JudgePair(const PairQuery& q, RuleContext& context) const override {
    return context.IsPackage(q.first) && context.IsPackage(q.second)
               ? PairVerdict::kPackageManagerPair
               : PairVerdict::kKeep;
  }
};

}  // namespace

std::unique_ptr<Rule> MakePackagePairRule() { return std::make_unique<PackagePair>(); }

}  // namespace fsmove::checker
