// Where a finding's fix goes, and how the findings of one check are folded once found: the
// instances of one defined type's code become one finding, and a missing ordering that the
// fix of another one implies is listed under that one.
#pragma once

#include <optional>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/graph/dependency_graph.h"

namespace fsmove::checker {

// How code written beside `from` names `r` in a relationship: `r` itself, or, when `r` is
// declared in another module's manifests than `from`, the innermost class that holds it (not
// main or Settings, and not one that also holds `from`). That class is the other module's
// interface, `require => Class['apt::update']` (puppetlabs-apt's README, Puppet's containment
// guide), where its resources' titles are its internals. The catalog's containment is read once.
class ModuleInterfaces {
 public:
  explicit ModuleInterfaces(const catalog::Catalog& catalog);
  catalog::ResourceId For(catalog::ResourceId r, catalog::ResourceId from) const;
  // The innermost class that contains `r` (main and Settings too); none past 64 containers.
  std::optional<catalog::ResourceId> InnermostClass(catalog::ResourceId r) const;

 private:
  bool Holds(catalog::ResourceId container, catalog::ResourceId r) const;

  const catalog::Catalog& catalog_;
  std::vector<std::optional<catalog::ResourceId>> container_;  // per resource (the last edge's)
};

class FixPlacement {
 public:
  FixPlacement(const catalog::Catalog& catalog, const graph::DependencyGraph& graph);

  // Sets the finding's declarations and its fix sentence. A resource inside a defined-type
  // instance is fixed at the outermost instance that holds it but not the other resource
  // (the user's own declaration), unless that edge would close a cycle the resources' own
  // edge would not. Each way of writing the fix names the other module's resource as
  // ModuleInterfaces does (not a notification's target: notifying a class refreshes all of it),
  // unless the class's edge would close a cycle.
  void Place(Finding& f) const;

 private:
  bool IsDefinedTypeInstance(catalog::ResourceId r) const;
  bool Contains(catalog::ResourceId container, catalog::ResourceId r) const;
  catalog::ResourceId Declaration(catalog::ResourceId r, catalog::ResourceId other) const;

  const catalog::Catalog& catalog_;
  const graph::DependencyGraph& graph_;
  std::vector<std::vector<catalog::ResourceId>> parent_;  // per resource: its containers
  ModuleInterfaces interfaces_;
};

// Findings whose two resources are declared at the same two manifest lines as another's are
// instances of one piece of code (a defined type's body): one finding lists them all, and
// its fix sentence says where the one change goes. `findings` keep their order.
void GroupInstances(const catalog::Catalog& catalog, std::vector<Finding>* findings);

// A missing ordering A -> B that the fix of another one implies (A -> C with C already before
// B, or C -> B with A already before C) is listed under that one (`also_fixes`).
void FoldImpliedFixes(const graph::DependencyGraph& graph, std::vector<Finding>* findings);

// Removes the findings marked in `drop`, keeping the others' order.
void DropFindings(const std::vector<bool>& drop, std::vector<Finding>* findings);

}  // namespace fsmove::checker
