// Test input for one rule (fsmove/checker/rules/registry.h): a catalog and what each resource
// did (test_catalog.h, analysis_builder.h), re-keyed by resource and turned into relations as
// the checker's driver does; then the rule of an id is asked about one pair or one path's
// evidence, as the driver would ask it. A rule asked about a kind its table row does not name
// fails the test: the row is what the driver reads.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../test_catalog.h"
#include "../analysis_builder.h"
#include "fsmove/checker/resource_accesses.h"
#include "fsmove/checker/rules/registry.h"
#include "fsmove/checker/rules/rule_context.h"

namespace fsmove::testing {

class RuleHarness {
 public:
  RuleHarness(const std::vector<TestResource>& resources, const AnalysisBuilder& run,
              checker::CheckOptions options = {})
      : catalog_(MakeTestCatalog(resources)),
        graph_(graph::DependencyGraph::Build(catalog_)),
        options_(std::move(options)),
        filter_(*checker::PathFilter::Create({}, true)),
        managed_(catalog_),
        analysis_(run.Result()),
        resources_(analysis_, catalog_, managed_, filter_, ignored_, &stats_),
        relations_(resources_.InferRelations()),
        context_(catalog_, graph_, options_, resources_) {}

  // The rule's verdict on the pair (`first` must come first or notify), by reference.
  checker::PairVerdict Pair(std::string_view id, checker::Judged kind, std::string_view first,
                            std::string_view second) {
    const checker::RegisteredRule* rule = Find(id, kind);
    if (rule == nullptr) return checker::PairVerdict::kKeep;
    return rule->rule->JudgePair({kind, Id(first), Id(second)}, context_);
  }

  // The rule's ceiling for the evidence on `path` of the relation between `producer` and
  // `consumer` of that kind (kInstallEvidence: the ordering `consumer` -> `producer` the driver
  // turned round), given the strength the driver starts from; -1 when there is no such
  // evidence (a failure).
  int MaxStrength(std::string_view id, checker::Judged kind, std::string_view producer,
                  std::string_view consumer, std::string_view path,
                  int strength = checker::kStrongest) {
    const checker::RegisteredRule* rule = Find(id, kind);
    const analysis::Evidence* e = FindEvidence(kind, Id(producer), Id(consumer), path);
    if (rule == nullptr || e == nullptr) return -1;
    context_.TakeCitation();
    int ceiling =
        rule->rule->MaxStrength({kind, *e, Id(producer), Id(consumer), strength}, context_);
    const checker::knowledge::Row* row = context_.TakeCitation();
    cited_ = row == nullptr ? "" : row->id;
    return ceiling;
  }

  // The id of the knowledge table's row the last MaxStrength cited, or "" when it cited none.
  std::string_view cited() const { return cited_; }

  checker::RuleContext& context() { return context_; }

 private:
  catalog::ResourceId Id(std::string_view ref) {
    std::optional<catalog::ResourceId> id = catalog_.ResolveRef(std::string(ref));
    EXPECT_TRUE(id.has_value()) << ref;
    return id.value_or(0);
  }

  const checker::RegisteredRule* Find(std::string_view id, checker::Judged kind) {
    const checker::RegisteredRule* rule = checker::FindRule(id);
    if (rule == nullptr || !rule->Judges(kind)) {
      ADD_FAILURE() << id << " is not registered for kind " << int{kind};
      return nullptr;
    }
    return rule;
  }

  const analysis::Evidence* FindEvidence(checker::Judged kind, catalog::ResourceId producer,
                                         catalog::ResourceId consumer, std::string_view path) {
    const std::vector<analysis::Relation>* list = &relations_.ordering;
    if (kind == checker::kNotificationEvidence) list = &relations_.notification;
    if (kind == checker::kWriteWriteEvidence) list = &relations_.write_write;
    if (kind == checker::kInstallEvidence) std::swap(producer, consumer);
    for (const analysis::Relation& r : *list) {
      bool same = r.first == producer && r.second == consumer;
      bool either =
          kind == checker::kWriteWriteEvidence && r.first == consumer && r.second == producer;
      if (!same && !either) continue;
      for (const analysis::Evidence& e : r.evidence) {
        if (e.path == path) return &e;
      }
    }
    ADD_FAILURE() << "no evidence on " << path << " between " << producer << " and " << consumer;
    return nullptr;
  }

  catalog::Catalog catalog_;
  graph::DependencyGraph graph_;
  checker::CheckOptions options_;
  checker::PathFilter filter_;
  catalog::ManagedPaths managed_;
  absl::flat_hash_set<catalog::ResourceId> ignored_;
  checker::CheckStats stats_;
  analysis::AnalysisResult analysis_;
  checker::ResourceAccesses resources_;
  analysis::Relations relations_;
  checker::RuleContext context_;
  std::string_view cited_;
};

}  // namespace fsmove::testing
