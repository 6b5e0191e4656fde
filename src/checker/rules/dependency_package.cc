// dependency-package: a file apt unpacked for a Package resource from another Debian package
// than the one it names: a dependency it pulled in (the shared library package of a client).
// Whoever else installs that package gets the file too: nothing (0) when a Package resource
// naming it is ordered before the consumer; weak (1) when another Package resource is, whose
// package may depend on it as well (apt knows, the trace does not).
// Policy: PackageName (resource_semantics.h); who unpacked what: ResourceAccesses::UnpackedFrom.
#include <optional>
#include <string>

#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class DependencyPackage final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (q.kind == kOrderingEvidence && !q.OfContent()) return kStrongest;
    std::optional<int> s = Strength(q.producer, q.consumer, q.evidence.path, context);
    return s ? *s : kStrongest;
  }

 private:
  static std::optional<int> Strength(catalog::ResourceId producer, catalog::ResourceId consumer,
                                     const std::string& path, RuleContext& context) {
    if (!context.IsPackage(producer)) return std::nullopt;
    const std::string* package = context.resources().UnpackedFrom(path);
    if (package == nullptr || *package == PackageName(context.resource(producer))) {
      return std::nullopt;
    }
    auto [memo, fresh] =
        context.dependency_strengths().try_emplace(std::make_tuple(producer, consumer, *package));
    if (!fresh) return memo->second;
    bool another_before = false;
    for (catalog::ResourceId r = 0; r < context.catalog().size(); ++r) {
      if (r == producer || !context.IsPackage(r) || !context.HappensBefore(r, consumer)) continue;
      if (PackageName(context.resource(r)) == *package) return memo->second = 0;
      another_before = true;
    }
    if (another_before) memo->second = 1;
    return memo->second;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDependencyPackageRule() { return std::make_unique<DependencyPackage>(); }

}  // namespace fsmove::checker
