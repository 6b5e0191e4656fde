// The dependency graph Puppet builds at apply time from a catalog (relationships,
// autorequires, containment expanded into whits), with fast ordering/notification queries.
#include "fsmove/graph/dependency_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "fsmove/catalog/managed_paths.h"
#include "fsmove/graph/autorequire.h"
#include "pair_key.h"

namespace fsmove::graph {
namespace {

using catalog::ResourceId;

// Types whose `refresh` queues a "restarted" event, so that notifications pass through.
bool IsBuiltinRefreshRelay(std::string_view type) {
  return type == "Exec" || type == "Service" || type == "Package" || type == "Mount" ||
         type == "Anchor";
}

// A static name for the metaparameter (DeclaredEdge keeps a string_view).
std::string_view ParameterRule(std::string_view parameter) {
  for (const std::string_view name : {"before", "notify", "require", "subscribe"}) {
    if (parameter == name) return name;
  }
  return "relationship";
}

}  // namespace

std::string_view EdgeKindName(EdgeKind kind) {
  return kind == EdgeKind::kNotify ? "notify" : "before";
}

std::string_view EdgeOriginName(EdgeOrigin origin) {
  switch (origin) {
    case EdgeOrigin::kParameter:
      return "parameter";
    case EdgeOrigin::kContainment:
      return "containment";
    case EdgeOrigin::kAutorequire:
      return "autorequire";
    case EdgeOrigin::kStage:
      return "stage";
    case EdgeOrigin::kPuppet:
      return "puppet";
  }
  return "parameter";
}

VertexIndex DependencyGraph::AdmissibleVertex(ResourceId id) const {
  const std::int64_t slot = container_slot_[id];
  return slot < 0 ? id
                  : static_cast<VertexIndex>(catalog_->size() + 2 * static_cast<std::size_t>(slot));
}

VertexIndex DependencyGraph::CompletedVertex(ResourceId id) const {
  const std::int64_t slot = container_slot_[id];
  return slot < 0
             ? id
             : static_cast<VertexIndex>(catalog_->size() + 2 * static_cast<std::size_t>(slot) + 1);
}

ResourceId DependencyGraph::ResourceOfVertex(VertexIndex v) const {
  if (v < catalog_->size()) return v;
  return container_of_slot_[(v - catalog_->size()) / 2];
}

std::string DependencyGraph::ExpandedVertexName(VertexIndex v) const {
  if (v < catalog_->size()) return catalog_->resource(v).ref;
  const bool completed = (v - catalog_->size()) % 2 == 1;
  return fmt::format("Whit[{}_{}]", completed ? "completed" : "admissible",
                     catalog_->resource(ResourceOfVertex(v)).ref);
}

DependencyGraph DependencyGraph::Build(const catalog::Catalog& catalog,
                                       const GraphOptions& options) {
  DependencyGraph graph;
  graph.catalog_ = &catalog;
  graph.ClassifyResources(options);
  graph.AddDeclaredEdges(options);
  graph.ExpandContainers();
  graph.IndexOrdering();
  graph.IndexRefresh();
  graph.FindCycles();
  return graph;
}

// Who relays refresh, and which resources are containers (each gets a whit pair).
void DependencyGraph::ClassifyResources(const GraphOptions& options) {
  const absl::flat_hash_set<std::string> extra_relays(options.extra_refresh_relays.begin(),
                                                      options.extra_refresh_relays.end());
  relays_refresh_.assign(catalog_->size(), false);
  container_slot_.assign(catalog_->size(), -1);
  for (ResourceId id = 0; id < catalog_->size(); ++id) {
    const catalog::Resource& resource = catalog_->resource(id);
    if (resource.is_container) {
      container_slot_[id] = static_cast<std::int64_t>(container_of_slot_.size());
      container_of_slot_.push_back(id);
    }
    relays_refresh_[id] = resource.is_container || IsBuiltinRefreshRelay(resource.type) ||
                          extra_relays.contains(resource.type);
  }
}

// Parameters first, then autorelations unless a direct edge between the pair exists in
// either direction (Puppet: build_autorelation_dependencies), then containment.
void DependencyGraph::AddDeclaredEdges(const GraphOptions& options) {
  absl::flat_hash_set<std::uint64_t> direct_pairs;
  edges_.reserve(edges_.size() + catalog_->relationships().size() + catalog_->containment().size());
  for (const catalog::Relationship& relationship : catalog_->relationships()) {
    const EdgeKind kind = relationship.kind == catalog::RelationshipKind::kNotify
                              ? EdgeKind::kNotify
                              : EdgeKind::kBefore;
    edges_.push_back(DeclaredEdge{relationship.source, relationship.target, kind,
                                  EdgeOrigin::kParameter, ParameterRule(relationship.parameter)});
    direct_pairs.insert(PairKey(relationship.source, relationship.target));
  }
  if (options.autorequires) {
    const catalog::ManagedPaths paths(*catalog_);
    const AutorelationContext context{*catalog_, paths};
    for (ResourceId id = 0; id < catalog_->size(); ++id) {
      for (const AutoRelation& relation : AutorelationsOf(id, context)) {
        if (direct_pairs.contains(PairKey(relation.source, relation.target)) ||
            direct_pairs.contains(PairKey(relation.target, relation.source))) {
          continue;
        }
        direct_pairs.insert(PairKey(relation.source, relation.target));
        edges_.push_back(DeclaredEdge{relation.source, relation.target, EdgeKind::kBefore,
                                      EdgeOrigin::kAutorequire, relation.rule});
      }
    }
  }
  for (const ObservedEdge& edge : options.observed_edges) {
    if (edge.source == edge.target || edge.source >= catalog_->size() ||
        edge.target >= catalog_->size() ||
        direct_pairs.contains(PairKey(edge.source, edge.target))) {
      continue;
    }
    direct_pairs.insert(PairKey(edge.source, edge.target));
    edges_.push_back(
        DeclaredEdge{edge.source, edge.target, edge.kind, EdgeOrigin::kPuppet, edge.rule});
  }
  for (const catalog::ContainmentEdge& containment : catalog_->containment()) {
    const bool stage = catalog_->resource(containment.container).type == "Stage";
    edges_.push_back(DeclaredEdge{containment.container, containment.member, EdgeKind::kNotify,
                                  stage ? EdgeOrigin::kStage : EdgeOrigin::kContainment,
                                  "contains"});
  }
}

// Exactly RelationshipGraph#replace_containers_with_anchors: every edge S -> T becomes
// completed(S) -> admissible(T) with its label; a container X gets admissible_X ->
// admissible_v and completed_v -> completed_X (refresh-labelled) for each member v, and
// admissible_X -> completed_X (unlabelled) when it has no members.
void DependencyGraph::ExpandContainers() {
  const std::size_t vertex_count = catalog_->size() + 2 * container_of_slot_.size();
  expanded_ = std::make_unique<ExpandedGraph>(vertex_count);
  std::vector<bool> has_members(catalog_->size(), false);
  for (const DeclaredEdge& edge : edges_) {
    if (edge.origin == EdgeOrigin::kContainment || edge.origin == EdgeOrigin::kStage) {
      has_members[edge.source] = true;
      boost::add_edge(AdmissibleVertex(edge.source), AdmissibleVertex(edge.target),
                      ExpandedEdge{true}, *expanded_);
      boost::add_edge(CompletedVertex(edge.target), CompletedVertex(edge.source),
                      ExpandedEdge{true}, *expanded_);
    } else {
      boost::add_edge(CompletedVertex(edge.source), AdmissibleVertex(edge.target),
                      ExpandedEdge{edge.kind == EdgeKind::kNotify}, *expanded_);
    }
  }
  for (const ResourceId container : container_of_slot_) {
    if (!has_members[container]) {
      boost::add_edge(AdmissibleVertex(container), CompletedVertex(container), ExpandedEdge{false},
                      *expanded_);
    }
  }
}

// Queries start at a resource or at a container's completed whit, and end at a resource
// or at a container's admissible whit.
std::vector<bool> DependencyGraph::QueryTargets(std::size_t vertex_count) const {
  std::vector<bool> targets(vertex_count, false);
  for (ResourceId id = 0; id < catalog_->size(); ++id) targets[AdmissibleVertex(id)] = true;
  return targets;
}

void DependencyGraph::IndexOrdering() {
  const std::size_t vertex_count = boost::num_vertices(*expanded_);
  // Walking out_edges per vertex rather than boost::edges(): GCC 12 warns (falsely) about
  // the latter's optional-based iterator under -O2.
  Digraph ordering(vertex_count);
  for (VertexIndex v = 0; v < vertex_count; ++v) {
    for (const auto edge : boost::make_iterator_range(boost::out_edges(v, *expanded_))) {
      boost::add_edge(v, boost::target(edge, *expanded_), ordering);
    }
  }
  std::vector<bool> sources(vertex_count, false);
  for (ResourceId id = 0; id < catalog_->size(); ++id) sources[CompletedVertex(id)] = true;
  ordering_ = Reachability(ordering, sources, QueryTargets(vertex_count));
}

// Only refresh-labelled edges, leaving a vertex only if it relays. Whits always relay; a
// resource that does not gets a sender copy holding its outgoing edges (see header).
void DependencyGraph::IndexRefresh() {
  const std::size_t vertex_count = boost::num_vertices(*expanded_);
  sender_vertex_.assign(catalog_->size(), -1);
  std::size_t refresh_vertex_count = vertex_count;
  for (ResourceId id = 0; id < catalog_->size(); ++id) {
    if (!relays_refresh_[id]) {
      sender_vertex_[id] = static_cast<std::int64_t>(refresh_vertex_count++);
    }
  }
  Digraph refresh(refresh_vertex_count);
  for (VertexIndex v = 0; v < vertex_count; ++v) {
    const VertexIndex from = v < catalog_->size() && sender_vertex_[v] >= 0
                                 ? static_cast<VertexIndex>(sender_vertex_[v])
                                 : v;
    for (const auto edge : boost::make_iterator_range(boost::out_edges(v, *expanded_))) {
      if ((*expanded_)[edge].refresh) {
        boost::add_edge(from, boost::target(edge, *expanded_), refresh);
      }
    }
  }
  std::vector<bool> sources(refresh_vertex_count, false);
  for (ResourceId id = 0; id < catalog_->size(); ++id) sources[NotificationSource(id)] = true;
  std::vector<bool> targets = QueryTargets(vertex_count);
  targets.resize(refresh_vertex_count, false);
  refresh_ = Reachability(refresh, sources, targets);
}

VertexIndex DependencyGraph::NotificationSource(ResourceId id) const {
  return sender_vertex_[id] >= 0 ? static_cast<VertexIndex>(sender_vertex_[id])
                                 : CompletedVertex(id);
}

bool DependencyGraph::HappensBefore(ResourceId a, ResourceId b) const {
  if (a >= catalog_->size() || b >= catalog_->size()) return false;
  return ordering_.Reaches(CompletedVertex(a), AdmissibleVertex(b));
}

bool DependencyGraph::Notifies(ResourceId a, ResourceId b) const {
  if (a >= catalog_->size() || b >= catalog_->size()) return false;
  return refresh_.Reaches(NotificationSource(a), AdmissibleVertex(b));
}

bool DependencyGraph::RelaysRefresh(ResourceId id) const {
  return id < relays_refresh_.size() && relays_refresh_[id];
}

void DependencyGraph::FindCycles() {
  for (std::size_t component = 0; component < ordering_.component_count(); ++component) {
    if (!ordering_.IsCyclic(component)) continue;
    const std::span<const VertexIndex> vertices = ordering_.ComponentMembers(component);
    DependencyCycle cycle;
    for (const VertexIndex v : vertices) cycle.members.push_back(ResourceOfVertex(v));
    std::sort(cycle.members.begin(), cycle.members.end());
    cycle.members.erase(std::unique(cycle.members.begin(), cycle.members.end()),
                        cycle.members.end());

    // Shortest way back to the start inside the component, by breadth-first search;
    // start at a plain resource when there is one, it reads better than a whit.
    VertexIndex start = vertices.front();
    for (const VertexIndex v : vertices) {
      if (v < catalog_->size()) {
        start = v;
        break;
      }
    }
    std::vector<std::int64_t> parent(boost::num_vertices(*expanded_), -1);
    std::deque<VertexIndex> queue = {start};
    std::int64_t last = -1;
    while (!queue.empty() && last < 0) {
      const VertexIndex v = queue.front();
      queue.pop_front();
      for (const auto edge : boost::make_iterator_range(boost::out_edges(v, *expanded_))) {
        const VertexIndex next = static_cast<VertexIndex>(boost::target(edge, *expanded_));
        if (ordering_.ComponentOf(next) != component) continue;
        if (next == start) {
          last = v;
          break;
        }
        if (parent[next] < 0) {
          parent[next] = v;
          queue.push_back(next);
        }
      }
    }
    std::vector<VertexIndex> walk = {start};
    for (std::int64_t v = last; v >= 0 && static_cast<VertexIndex>(v) != start; v = parent[v]) {
      walk.push_back(static_cast<VertexIndex>(v));
    }
    walk.push_back(start);
    std::reverse(walk.begin() + 1, walk.end() - 1);
    for (std::size_t i = 0; i < walk.size(); ++i) {
      std::string ref = catalog_->resource(ResourceOfVertex(walk[i])).ref;
      // A container's two whits both read as the container; the closing step stays.
      if (cycle.path.empty() || cycle.path.back() != ref || i + 1 == walk.size()) {
        cycle.path.push_back(std::move(ref));
      }
    }
    cycles_.push_back(std::move(cycle));
  }
  // Stable report order: by the first member's position in the catalog.
  std::sort(cycles_.begin(), cycles_.end(), [](const DependencyCycle& a, const DependencyCycle& b) {
    return a.members < b.members;
  });
}

}  // namespace fsmove::graph
