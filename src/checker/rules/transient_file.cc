// transient-file: the producer created the path and removed it again (a scratch or temporary
// file): it leaves nothing behind for anyone. A Ruby Tempfile the producer made is its scratch
// file whoever's block its finalizer ran in. Policy: IsRubyTempfile (resource_semantics.h;
// knowledge/ruby_tempfiles.tsv).
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class TransientFile final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const std::string& path = q.evidence.path;
    bool transient = Transient(q.producer, path, context) ||
                     (q.kind == kWriteWriteEvidence && Transient(q.consumer, path, context));
    return transient ? 0 : kStrongest;
  }

 private:
  // Whether `producer` made the path and it was removed after; a Ruby Tempfile's removal by
  // whoever's block its finalizer ran in counts, and cites its row.
  static bool Transient(catalog::ResourceId producer, std::string_view path, RuleContext& context) {
    const knowledge::Row* tempfile = IsRubyTempfile(path);
    uint64_t produced = 0, expunged = 0;
    bool by_finalizer = false;  // the last removal is another block's
    for (const analysis::Access& a : context.Accesses(path)) {
      if (a.effect == analysis::Effect::kExpunged && (a.block == producer || tempfile != nullptr) &&
          a.line > expunged) {
        expunged = a.line;
        by_finalizer = a.block != producer;
      }
      if (a.block != producer) continue;
      if (a.effect == analysis::Effect::kProduced && !a.shallow) {
        produced = std::max(produced, a.line);
      }
    }
    if (produced == 0 || expunged <= produced) return false;
    if (by_finalizer) context.Cite(*tempfile);
    return true;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeTransientFileRule() { return std::make_unique<TransientFile>(); }

}  // namespace fsmove::checker
