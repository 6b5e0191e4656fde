// The dependency graph Puppet builds at apply time from a catalog (relationships,
// autorequires, containment expanded into whits), with fast ordering/notification queries.
#ifndef FSMOVE_GRAPH_DEPENDENCY_GRAPH_H_
#define FSMOVE_GRAPH_DEPENDENCY_GRAPH_H_

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/reachability.h"

namespace fsmove::graph {

enum class EdgeKind : std::uint8_t {
  kBefore,  // ordering only (before/require, autorequires)
  kNotify,  // ordering plus refresh events (notify/subscribe, containment)
};

enum class EdgeOrigin : std::uint8_t {
  kParameter,    // before/require/notify/subscribe, including chains and the require function
  kContainment,  // a class or defined type contains the target
  kAutorequire,  // added by Puppet at apply time (autorequire and autobefore)
  kStage,        // a run stage contains the target class
  kPuppet,       // Puppet said it added it (its --debug log, or its own graph)
};

std::string_view EdgeKindName(EdgeKind kind);        // "before", "notify"
std::string_view EdgeOriginName(EdgeOrigin origin);  // "parameter", "containment", ...

// An edge between catalog resources, before container expansion: what a reader of the
// manifest would draw. Containment edges point from container to member and carry
// refresh (kNotify): refreshing a class refreshes what it contains.
struct DeclaredEdge {
  catalog::ResourceId source = 0;
  catalog::ResourceId target = 0;
  EdgeKind kind = EdgeKind::kBefore;
  EdgeOrigin origin = EdgeOrigin::kParameter;
  std::string_view rule;  // "before", "subscribe", "file:parent-directory", "contains", ...
};

// A dependency cycle: Puppet refuses to apply a catalog that has one.
struct DependencyCycle {
  // Every resource in the strongly connected component (containers stand for their whits).
  std::vector<catalog::ResourceId> members;
  // One concrete cycle through them, closed: {"Exec[x]", "Exec[y]", "Exec[x]"}.
  std::vector<std::string> path;
};

// A relationship Puppet itself reported adding at apply time: the autorequires of types
// defined in modules, of generated resources and of Files whose title is not their path,
// which a reading of the catalog alone misses.
struct ObservedEdge {
  catalog::ResourceId source = 0;  // applied first
  catalog::ResourceId target = 0;
  EdgeKind kind = EdgeKind::kBefore;
  std::string_view rule = "puppet:autorequire";  // must outlive the graph
};

struct GraphOptions {
  // Add the autorequire/autobefore relationships Puppet adds at apply time.
  bool autorequires = true;
  // Custom types known to define `refresh` (they relay refresh events like exec does).
  // Unlisted custom types are taken not to relay, as Puppet's base type has no refresh
  // and most module types (all Resource API ones) define none; a wrong guess there makes
  // a notification chain through such a type look broken, never a broken one look fine.
  std::vector<std::string> extra_refresh_relays;
  // Edges Puppet reported (see ObservedEdge); added after the autorequires.
  std::vector<ObservedEdge> observed_edges;
};

class DependencyGraph {
 public:
  DependencyGraph(DependencyGraph&&) = default;
  DependencyGraph& operator=(DependencyGraph&&) = default;

  // The catalog must outlive the graph.
  static DependencyGraph Build(const catalog::Catalog& catalog, const GraphOptions& options = {});

  const catalog::Catalog& catalog() const { return *catalog_; }

  // Parameter, autorequire, containment and stage edges, in that order. Memory: the two
  // reachability indexes take about 2 * N^2 / 8 bytes for N resources plus whits
  // (10,000 -> 25 MB); queries are O(1).
  const std::vector<DeclaredEdge>& edges() const { return edges_; }
  const std::vector<DependencyCycle>& cycles() const { return cycles_; }

  // `a` is applied before `b` through any chain of edges, containment included. A
  // container as `a` means "everything in it", as `b` "before anything in it".
  bool HappensBefore(catalog::ResourceId a, catalog::ResourceId b) const;

  // A change of `a` refreshes `b`: a path of refresh-carrying edges (notify, subscribe,
  // ~>, containment) whose intermediate vertices all relay refresh (exec, service,
  // package, mount, anchor, containers). File ~> Exec ~> Service notifies the service;
  // File ~> File ~> Service does not. A notify to a class reaches every resource it
  // contains; a change inside a container goes out along the container's notify edges.
  bool Notifies(catalog::ResourceId a, catalog::ResourceId b) const;

  // Whether Puppet forwards refresh events through this resource.
  bool RelaysRefresh(catalog::ResourceId id) const;

  // Puppet's expanded relationship graph (the one `puppet apply --graph` writes as
  // expanded_relationships.dot): catalog resources keep their ids; each container X
  // gets Whit[admissible_X] and Whit[completed_X] and loses its own edges.
  struct ExpandedEdge {
    bool refresh = false;
  };
  using ExpandedGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS,
                                              boost::no_property, ExpandedEdge>;
  const ExpandedGraph& expanded() const { return *expanded_; }
  // "File[/x]", or "Whit[admissible_Class[App]]" for whits.
  std::string ExpandedVertexName(VertexIndex v) const;

 private:
  DependencyGraph() = default;
  // A container's whits; the resource itself when it is not a container.
  VertexIndex AdmissibleVertex(catalog::ResourceId id) const;
  VertexIndex CompletedVertex(catalog::ResourceId id) const;
  catalog::ResourceId ResourceOfVertex(VertexIndex v) const;
  // Build steps, in order.
  void ClassifyResources(const GraphOptions& options);
  void AddDeclaredEdges(const GraphOptions& options);
  void ExpandContainers();
  void IndexOrdering();
  void IndexRefresh();
  void FindCycles();
  std::vector<bool> QueryTargets(std::size_t vertex_count) const;
  // Where a notification from `id` starts in the refresh graph.
  VertexIndex NotificationSource(catalog::ResourceId id) const;

  const catalog::Catalog* catalog_ = nullptr;
  std::vector<DeclaredEdge> edges_;
  std::vector<DependencyCycle> cycles_;
  std::vector<bool> relays_refresh_;          // per resource
  std::vector<std::int64_t> container_slot_;  // per resource: index among containers or -1
  std::vector<catalog::ResourceId> container_of_slot_;
  // Behind a pointer: adjacency_list has no move constructor, and copying it is slow
  // (and trips a false -Wmaybe-uninitialized in GCC 12).
  std::unique_ptr<ExpandedGraph> expanded_;
  Reachability ordering_;
  // The refresh graph: expanded vertices, plus for each resource that does not relay a
  // separate "sender" vertex holding its outgoing refresh edges, so that it can start a
  // notification but never pass one on.
  std::vector<std::int64_t> sender_vertex_;  // per resource, -1 when it is its own sender
  Reachability refresh_;
};

}  // namespace fsmove::graph

#endif  // FSMOVE_GRAPH_DEPENDENCY_GRAPH_H_
