// conffile-kept: a Package's read of a file another resource wrote before it is the package
// manager comparing the file it finds with the package's version, when the same Package then
// parks its own version beside it (FILE.dpkg-dist, FILE.ucf-dist): it kept the file it found
// (apt's --force-confold, which Puppet's apt provider passes). The other order ends the same (the
// package installs its default, the resource then writes its own), so the package does not
// need the writer first; the order a maintainer adds is the other one, which the write-write
// pair of the path asks for. Policy: ParkedVersionsOf (resource_semantics.h; table
// parked_conffiles.tsv).
#include <string>

#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class ConffileKept final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    if (!context.IsPackage(q.consumer) || context.IsPackage(q.producer)) return kStrongest;
    const analysis::Access& c = q.evidence.second;
    if (c.effect != analysis::Effect::kConsumed || c.parent || c.listing) return kStrongest;
    for (const auto& [parked, row] : ParkedVersionsOf(q.evidence.path)) {
      for (const analysis::Access& a : context.Accesses(parked)) {
        if (a.block == q.consumer && a.effect == analysis::Effect::kProduced && !a.failed) {
          context.Cite(*row);
          return 0;
        }
      }
    }
    return kStrongest;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeConffileKeptRule() { return std::make_unique<ConffileKept>(); }

}  // namespace fsmove::checker
