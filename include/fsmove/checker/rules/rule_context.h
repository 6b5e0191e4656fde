// What a rule may look at during one check, so that no rule reaches into the driver: the
// catalog, the graph, the options, the accesses keyed by path and resource, and what is worked
// out once per check (restart relays, the Execs that reload systemd, memos).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/checker/knowledge.h"
#include "fsmove/checker/resource_accesses.h"
#include "fsmove/checker/rules/service_relays.h"
#include "fsmove/graph/dependency_graph.h"

namespace fsmove::checker {

// What a run did to the packages apt can install: the resources that wrote a package index, and
// a change of a sources list or of dpkg's architectures by any resource (a real call: not the
// catalog's view of a manager that found it right).
struct PackageUniverse {
  absl::flat_hash_set<catalog::ResourceId> index_writers;
  bool sources_changed = false;
};

class RuleContext {
 public:
  // Made after the relations are inferred: what a rule looks up of a path it interns.
  RuleContext(const catalog::Catalog& catalog, const graph::DependencyGraph& graph,
              const CheckOptions& options, ResourceAccesses& resources);

  const catalog::Catalog& catalog() const { return catalog_; }
  const graph::DependencyGraph& graph() const { return graph_; }
  const CheckOptions& options() const { return options_; }
  ResourceAccesses& resources() { return resources_; }
  const ServiceRelays& relays() const { return relays_; }

  const catalog::Resource& resource(catalog::ResourceId r) const { return catalog_.resource(r); }
  bool IsPackage(catalog::ResourceId r) const { return resource(r).type == "Package"; }
  bool IsService(catalog::ResourceId r) const;
  bool HappensBefore(catalog::ResourceId a, catalog::ResourceId b) const {
    return graph_.HappensBefore(a, b);
  }
  // The accesses of `path`, by resource.
  const absl::InlinedVector<analysis::Access, 1>& Accesses(std::string_view path);

  // The Execs that make PID 1 reload its units (`systemctl daemon-reload`), found once.
  const std::vector<catalog::ResourceId>& UnitReloads();

  // What the run did to the packages apt can install (package-indexes-unchanged), found once.
  const PackageUniverse& package_universe();

  // Pairs (changer, service) whose MN the refresh-guaranteed rule found refreshed: the
  // service is refreshed after every change of the changer, so their MOR is ordered too.
  absl::flat_hash_set<std::pair<catalog::ResourceId, catalog::ResourceId>>& refreshed() {
    return refreshed_;
  }
  // The dependency-package rule's answers by (producer, consumer, Debian package).
  using DependencyKey = std::tuple<catalog::ResourceId, catalog::ResourceId, std::string>;
  absl::flat_hash_map<DependencyKey, std::optional<int>>& dependency_strengths() {
    return dependency_strengths_;
  }

  // A rule that drops or weakens evidence because of a row of a knowledge table says which
  // (knowledge.h: a rule cites its row); the driver takes it after the rule's answer and cites it
  // in the finding's explanation.
  void Cite(const knowledge::Row& row) { cited_ = &row; }
  const knowledge::Row* TakeCitation() { return std::exchange(cited_, nullptr); }

 private:
  const catalog::Catalog& catalog_;
  const graph::DependencyGraph& graph_;
  const CheckOptions& options_;
  ResourceAccesses& resources_;
  ServiceRelays relays_;
  std::optional<std::vector<catalog::ResourceId>> unit_reloads_;
  std::optional<PackageUniverse> package_universe_;
  absl::flat_hash_set<std::pair<catalog::ResourceId, catalog::ResourceId>> refreshed_;
  absl::flat_hash_map<DependencyKey, std::optional<int>> dependency_strengths_;
  const knowledge::Row* cited_ = nullptr;
};

}  // namespace fsmove::checker
