// Answers "is there a non-empty path from u to v" in O(1) after one pass: strongly
// connected components, then transitive closure of the condensation with bitsets.
#ifndef FSMOVE_GRAPH_REACHABILITY_H_
#define FSMOVE_GRAPH_REACHABILITY_H_

#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <cstdint>
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

  std::size_t component_count() const { return component_members_.size(); }
  std::size_t ComponentOf(VertexIndex v) const { return component_of_[v]; }
  const std::vector<VertexIndex>& ComponentMembers(std::size_t component) const {
    return component_members_[component];
  }
  // A component with two or more vertices, or one vertex with an edge to itself.
  bool IsCyclic(std::size_t component) const { return cyclic_[component]; }

 private:
  bool SearchReaches(VertexIndex from, VertexIndex to) const;

  // The graph's successors (compressed rows), for the fallback search only.
  std::vector<std::uint32_t> successor_offsets_;
  std::vector<VertexIndex> successors_;
  std::vector<std::uint32_t> component_of_;
  std::vector<std::vector<VertexIndex>> component_members_;
  std::vector<bool> cyclic_;
  std::vector<std::int64_t> target_column_;          // -1 when v is not a target
  std::vector<std::vector<std::uint64_t>> closure_;  // per component; empty when freed
};

}  // namespace fsmove::graph

#endif  // FSMOVE_GRAPH_REACHABILITY_H_
