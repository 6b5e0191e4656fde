// A false-alarm rule of the checker: one class in one file under src/checker/rules/, registered
// by a stable id in the one table (registry.h). The driver (checker.cc) asks each rule, in
// table order, about the pairs and the pieces of evidence of the relation kinds it judges.
#pragma once

#include <cstdint>

#include "fsmove/analysis/relations.h"
#include "fsmove/catalog/catalog.h"

namespace fsmove::checker {

class RuleContext;

// What a rule judges: a whole pair of one of the three relation kinds, or one piece of its
// evidence. Bits, so that a rule names every kind it judges.
enum Judged : uint8_t {
  kOrderingPair = 1 << 0,          // MOR: `first` produced what `second` needs
  kOrderingEvidence = 1 << 1,      //      one path of it
  kInstallEvidence = 1 << 2,       // MOR turned round: a package installing into a directory
                                   //      another resource made (the package goes first)
  kNotificationPair = 1 << 3,      // MN: `first` changed what service `second` reads
  kNotificationEvidence = 1 << 4,  //     one path of it
  kWriteWritePair = 1 << 5,        // both write one path
  kWriteWriteEvidence = 1 << 6,    //     one path of it
};

// What a pair rule says of a pair; each verdict but kKeep drops it and names the counter of
// CheckStats it goes to (kDropped: none).
enum class PairVerdict : uint8_t {
  kKeep,                  // not this rule's case: the next rule judges
  kGuaranteed,            // stats.guaranteed: the graph (or a refresh) already orders it
  kAgainstDeclaredOrder,  // stats.against_declared_order: ordered the other way on purpose
  kCommutes,              // stats.commuting_edits
  kPackageManagerPair,    // stats.package_manager_pairs
  kDropped,               // no counter (a kind the options leave out)
};

// A pair, in the direction its finding would have: `first` must come first or notify.
struct PairQuery {
  Judged kind;
  catalog::ResourceId first;
  catalog::ResourceId second;
};

// The strongest a piece of evidence can be (see PathEvidence::strength).
inline constexpr int kStrongest = 3;

// One piece of evidence of a pair. `evidence.first` is what `producer` did and
// `evidence.second` what `consumer` did, but for kInstallEvidence, where the driver turned the
// pair round (`producer` is the package and `evidence.first` the other resource's access).
// For write-write evidence `producer` is the relation's first resource.
struct EvidenceQuery {
  Judged kind;
  const analysis::Evidence& evidence;
  catalog::ResourceId producer;
  catalog::ResourceId consumer;
  int strength;  // before any rule: what the accesses show (1 to kStrongest)

  // An ordering's evidence of content: its producer changed more than metadata and its consumer
  // did not remove the path (a removal's need is of the strongest kind, whatever else holds).
  bool OfContent() const {
    return !evidence.first.shallow && evidence.second.effect != analysis::Effect::kExpunged;
  }
};

class Rule {
 public:
  virtual ~Rule() = default;
  // Pairs of the kinds the rule's table entry names (k*Pair).
  virtual PairVerdict JudgePair(const PairQuery& /*query*/, RuleContext& /*context*/) const {
    return PairVerdict::kKeep;
  }
  // Evidence of the kinds the rule's table entry names (k*Evidence): the strongest the evidence
  // may count, 0 to drop it, kStrongest to leave it as it is.
  virtual int MaxStrength(const EvidenceQuery& /*query*/, RuleContext& /*context*/) const {
    return kStrongest;
  }
};

}  // namespace fsmove::checker
