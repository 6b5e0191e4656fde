// conffile-kept: a Package's read of a file another resource wrote before it is dpkg comparing
// the file it finds with the package's conffile, when dpkg then parks its own version beside
// it (FILE.dpkg-dist; ucf: FILE.ucf-dist): the file it found is kept (apt's --force-confold,
// what Puppet's apt provider passes). The other order ends the same (the package installs its
// default, the resource then writes its own), so the package does not need the writer first;
// the order a maintainer adds is the other one, which the write-write pair asks for.
#include <string>

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
    for (const char* suffix : {".dpkg-dist", ".ucf-dist"}) {
      for (const analysis::Access& a : context.Accesses(q.evidence.path + suffix)) {
        if (a.block == q.consumer && a.effect == analysis::Effect::kProduced && !a.failed) {
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
