// entry-edits-of-one-type: two resources of one type that is not File, Exec, Package, Service,
// User or Group, the producer looking at or reading the file before it writes it: edits of the
// entries their distinct titles name (an ini_setting subtype whatever its name: openstacklib's
// Neutron_agent_ovs['DEFAULT/x']). What the other reads of the file is its own entry; two
// such writers (each reading first) edit different entries. Not two Augeas resources of which
// one makes the node the other's path selects below (commuting-edits' exception: a share's
// section and the share's options, AugeasMakesWhatTheOtherSelects in resource_semantics.h).
#include <cstdint>
#include <string_view>

#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/rule_context.h"
#include "rule_factories.h"

namespace fsmove::checker {
namespace {

class EntryEditsOfOneType final : public Rule {
 public:
  int MaxStrength(const EvidenceQuery& q, RuleContext& context) const override {
    const std::string& path = q.evidence.path;
    bool entries =
        EditsEntry(q.producer, q.consumer, path, context) &&
        (q.kind != kWriteWriteEvidence || EditsEntry(q.consumer, q.producer, path, context));
    return entries ? 0 : kStrongest;
  }

 private:
  static bool EditsEntry(catalog::ResourceId producer, catalog::ResourceId other,
                         std::string_view path, RuleContext& context) {
    const catalog::Resource& x = context.resource(producer);
    const catalog::Resource& y = context.resource(other);
    if (x.type != y.type) return false;
    for (std::string_view t : {"File", "Exec", "Package", "Service", "User", "Group"}) {
      if (x.type == t) return false;
    }
    if (AugeasMakesWhatTheOtherSelects(x, y)) return false;
    uint64_t read = 0;
    for (const analysis::Access& a : context.Accesses(path)) {
      if (a.block != producer) continue;
      // A read of it, or the look that found none (the first edit creates the file).
      if (a.effect == analysis::Effect::kConsumed && !a.parent && read == 0) read = a.line;
      if (a.effect == analysis::Effect::kProduced && !a.shallow && read != 0 && a.line > read) {
        return true;
      }
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeEntryEditsOfOneTypeRule() {
  return std::make_unique<EntryEditsOfOneType>();
}

}  // namespace fsmove::checker
