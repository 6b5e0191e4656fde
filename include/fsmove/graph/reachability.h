// Answers "is there a non-empty path from u to v" in O(1) after one pass: strongly
// connected components, then transitive closure of the condensation with bitsets.
#ifndef FSMOVE_GRAPH_REACHABILITY_H_
#define FSMOVE_GRAPH_REACHABILITY_H_

#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fsmove::graph {

using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using VertexIndex = std::uint32_t;

// Built once, then const and safe to query from several threads.
//
// Cost: SCCs in O(V + E); closure in O(E_condensed * T / 64) word operations, where T is
// the number of query targets. Memory: one T-bit set per component that holds a query
// source (intermediate components are freed as soon as all their predecessors are done),
// so about S * T / 8 bytes: 10,000 sources and targets take 12.5 MB.
// Past a budget (kClosureBudgetBytes, 64 MiB: about 23,000 sources and targets) no closure is
// built: memory stays O(V + E) and each query is a search of the condensation that only
// enters components topologically between the two ends (a 200,000-resource catalog would
// otherwise need 5 GB).
// Cycles cost nothing special: a cycle is one component.
class Reachability {
 public:
  Reachability() = default;
  // `is_source[v]`: queries may start at v; `is_target[v]`: queries may end at v.
  // Queries outside these sets are still answered, by a search over the graph.
  Reachability(const Digraph& graph, const std::vector<bool>& is_source,
               const std::vector<bool>& is_target);

  // True when a path of at least one edge leads from `from` to `to` (so Reaches(v, v)
  // only for v on a cycle).
  bool Reaches(VertexIndex from, VertexIndex to) const;

  std::size_t component_count() const { return cyclic_.size(); }
  std::size_t ComponentOf(VertexIndex v) const { return component_of_[v]; }
  std::span<const VertexIndex> ComponentMembers(std::size_t component) const {
    return std::span<const VertexIndex>(component_members_)
        .subspan(component_member_offsets_[component],
                 component_member_offsets_[component + 1] - component_member_offsets_[component]);
  }
  // A component with two or more vertices, or one vertex with an edge to itself.
  bool IsCyclic(std::size_t component) const { return cyclic_[component]; }

  static constexpr std::size_t kClosureBudgetBytes = std::size_t{64} << 20;
  // Whether queries are answered from the closure (false: by search, see above).
  bool has_closure() const { return has_closure_; }

  // For tests: the budget to use instead of kClosureBudgetBytes.
  Reachability(const Digraph& graph, const std::vector<bool>& is_source,
               const std::vector<bool>& is_target, std::size_t closure_budget_bytes);

 private:
  // The construction's steps, in order. The graph's successors, into successor_offsets_ and
  // successors_.
  void CopySuccessors(const Digraph& graph);
  // The strongly connected components (component_of_) and their members; returns how many.
  std::size_t FindComponents(const Digraph& graph);
  // cyclic_ and the condensation's rows; returns each component's number of predecessors.
  std::vector<std::uint32_t> Condense(std::size_t component_count);
  std::vector<std::uint32_t> TopologicalOrder(const std::vector<std::uint32_t>& predecessors) const;
  // closure_, for the components `keep` marks (the others are freed once done with).
  void BuildClosure(const std::vector<std::uint32_t>& order, const std::vector<bool>& keep,
                    std::size_t words, std::vector<std::uint32_t>* pending_predecessors);
  std::span<const std::uint32_t> ComponentSuccessors(std::uint32_t c) const {
    return std::span<const std::uint32_t>(component_successors_)
        .subspan(component_successor_offsets_[c],
                 component_successor_offsets_[c + 1] - component_successor_offsets_[c]);
  }

  bool SearchReaches(VertexIndex from, VertexIndex to) const;
  bool SearchComponents(std::uint32_t from, std::uint32_t to) const;

  // The graph's successors (compressed rows), for the fallback search only.
  std::vector<std::uint32_t> successor_offsets_;
  std::vector<VertexIndex> successors_;
  std::vector<std::uint32_t> component_of_;
  // Each component's vertices: component_members_[offsets[c] .. offsets[c + 1]).
  std::vector<std::uint32_t> component_member_offsets_;
  std::vector<VertexIndex> component_members_;
  std::vector<bool> cyclic_;
  std::vector<std::int64_t> target_column_;          // -1 when v is not a target
  std::vector<std::vector<std::uint64_t>> closure_;  // per component; empty when freed
  bool has_closure_ = false;
  // The condensation in compressed rows, and each component's place in a topological order
  // (a path c1 -> c2 needs rank[c1] < rank[c2]).
  std::vector<std::uint32_t> component_successor_offsets_;
  std::vector<std::uint32_t> component_successors_;
  std::vector<std::uint32_t> rank_;
};

}  // namespace fsmove::graph

#endif  // FSMOVE_GRAPH_REACHABILITY_H_
