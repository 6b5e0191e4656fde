// Answers "is there a non-empty path from u to v" in O(1) after one pass: strongly
// connected components, then transitive closure of the condensation with bitsets.
#include "fsmove/graph/reachability.h"

#include <algorithm>
#include <boost/graph/strong_components.hpp>
#include <deque>
#include <span>

namespace fsmove::graph {

Reachability::Reachability(const Digraph& graph, const std::vector<bool>& is_source,
                           const std::vector<bool>& is_target)
    : Reachability(graph, is_source, is_target, kClosureBudgetBytes) {}

Reachability::Reachability(const Digraph& graph, const std::vector<bool>& is_source,
                           const std::vector<bool>& is_target, std::size_t closure_budget_bytes) {
  const std::size_t vertex_count = boost::num_vertices(graph);
  CopySuccessors(graph);
  const std::size_t component_count = FindComponents(graph);
  std::vector<std::uint32_t> pending_predecessors = Condense(component_count);

  target_column_.assign(vertex_count, -1);
  std::int64_t target_count = 0;
  for (VertexIndex v = 0; v < vertex_count; ++v) {
    if (v < is_target.size() && is_target[v]) target_column_[v] = target_count++;
  }
  const std::size_t words = static_cast<std::size_t>((target_count + 63) / 64);
  std::vector<bool> keep(component_count, false);
  for (VertexIndex v = 0; v < vertex_count; ++v) {
    if (v < is_source.size() && is_source[v]) keep[component_of_[v]] = true;
  }

  const std::vector<std::uint32_t> order = TopologicalOrder(pending_predecessors);
  rank_.assign(component_count, 0);
  for (std::uint32_t i = 0; i < order.size(); ++i) rank_[order[i]] = i;
  std::size_t kept = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
  has_closure_ = kept * words * 8 <= closure_budget_bytes;
  if (!has_closure_) return;
  BuildClosure(order, keep, words, &pending_predecessors);
}

void Reachability::CopySuccessors(const Digraph& graph) {
  const std::size_t vertex_count = boost::num_vertices(graph);
  successor_offsets_.assign(vertex_count + 1, 0);
  successors_.reserve(boost::num_edges(graph));
  for (VertexIndex v = 0; v < vertex_count; ++v) {
    successor_offsets_[v + 1] =
        successor_offsets_[v] + static_cast<std::uint32_t>(boost::out_degree(v, graph));
    for (const auto edge : boost::make_iterator_range(boost::out_edges(v, graph))) {
      successors_.push_back(static_cast<VertexIndex>(boost::target(edge, graph)));
    }
  }
}

std::size_t Reachability::FindComponents(const Digraph& graph) {
  const std::size_t vertex_count = boost::num_vertices(graph);
  component_of_.assign(vertex_count, 0);
  const std::size_t component_count =
      vertex_count == 0
          ? 0
          : boost::strong_components(
                graph, boost::make_iterator_property_map(component_of_.begin(),
                                                         boost::get(boost::vertex_index, graph)));
  // Members of each component, in compressed rows (one allocation, not one per component).
  component_member_offsets_.assign(component_count + 1, 0);
  for (VertexIndex v = 0; v < vertex_count; ++v) ++component_member_offsets_[component_of_[v] + 1];
  for (std::size_t c = 0; c < component_count; ++c) {
    component_member_offsets_[c + 1] += component_member_offsets_[c];
  }
  component_members_.resize(vertex_count);
  {
    std::vector<std::uint32_t> next(component_member_offsets_.begin(),
                                    component_member_offsets_.end() - 1);
    for (VertexIndex v = 0; v < vertex_count; ++v) component_members_[next[component_of_[v]]++] = v;
  }
  return component_count;
}

std::vector<std::uint32_t> Reachability::Condense(std::size_t component_count) {
  const std::size_t vertex_count = component_of_.size();
  // Condensation: distinct successor components, in compressed rows; an edge inside a
  // component makes it cyclic.
  cyclic_.assign(component_count, false);
  for (std::size_t c = 0; c < component_count; ++c) cyclic_[c] = ComponentMembers(c).size() > 1;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> condensed;
  for (VertexIndex v = 0; v < vertex_count; ++v) {
    for (std::uint32_t i = successor_offsets_[v]; i < successor_offsets_[v + 1]; ++i) {
      const std::uint32_t from = component_of_[v];
      const std::uint32_t to = component_of_[successors_[i]];
      if (from == to) {
        cyclic_[from] = true;
      } else {
        condensed.emplace_back(from, to);
      }
    }
  }
  std::sort(condensed.begin(), condensed.end());
  condensed.erase(std::unique(condensed.begin(), condensed.end()), condensed.end());
  std::vector<std::uint32_t> pending_predecessors(component_count, 0);
  component_successor_offsets_.assign(component_count + 1, 0);
  component_successors_.reserve(condensed.size());
  for (const auto& [from, to] : condensed) {
    ++pending_predecessors[to];
    ++component_successor_offsets_[from + 1];
    component_successors_.push_back(to);
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>>().swap(condensed);
  for (std::size_t c = 0; c < component_count; ++c) {
    component_successor_offsets_[c + 1] += component_successor_offsets_[c];
  }
  return pending_predecessors;
}

// Kahn's order on the condensation.
std::vector<std::uint32_t> Reachability::TopologicalOrder(
    const std::vector<std::uint32_t>& predecessors) const {
  std::vector<std::uint32_t> order;
  order.reserve(component_count());
  std::vector<std::uint32_t> in_degree = predecessors;
  std::deque<std::uint32_t> ready;
  for (std::uint32_t c = 0; c < component_count(); ++c) {
    if (in_degree[c] == 0) ready.push_back(c);
  }
  while (!ready.empty()) {
    const std::uint32_t c = ready.front();
    ready.pop_front();
    order.push_back(c);
    for (const std::uint32_t s : ComponentSuccessors(c)) {
      if (--in_degree[s] == 0) ready.push_back(s);
    }
  }
  return order;
}

// Closures from the sinks backwards (`order` reversed):
// closure(c) = columns of c's own targets  ∪  closure(s) for every successor s.
void Reachability::BuildClosure(const std::vector<std::uint32_t>& order,
                                const std::vector<bool>& keep, std::size_t words,
                                std::vector<std::uint32_t>* pending_predecessors) {
  closure_.assign(component_count(), {});
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::uint32_t c = *it;
    std::vector<std::uint64_t>& bits = closure_[c];
    bits.assign(words, 0);
    for (const VertexIndex v : ComponentMembers(c)) {
      if (const std::int64_t column = target_column_[v]; column >= 0) {
        bits[static_cast<std::size_t>(column) / 64] |= std::uint64_t{1} << (column % 64);
      }
    }
    for (const std::uint32_t s : ComponentSuccessors(c)) {
      const std::vector<std::uint64_t>& successor_bits = closure_[s];
      for (std::size_t w = 0; w < words; ++w) bits[w] |= successor_bits[w];
    }
    // Successors whose predecessors are all done are no longer needed unless queried.
    for (const std::uint32_t s : ComponentSuccessors(c)) {
      if (--(*pending_predecessors)[s] == 0 && !keep[s])
        std::vector<std::uint64_t>().swap(closure_[s]);
    }
    if ((*pending_predecessors)[c] == 0 && !keep[c]) {
      std::vector<std::uint64_t>().swap(closure_[c]);
    }
  }
}

bool Reachability::Reaches(VertexIndex from, VertexIndex to) const {
  if (from >= component_of_.size() || to >= component_of_.size()) return false;
  const std::uint32_t from_component = component_of_[from];
  if (from_component == component_of_[to]) return cyclic_[from_component];
  if (!has_closure_) return SearchComponents(from_component, component_of_[to]);
  const std::int64_t column = target_column_[to];
  const std::vector<std::uint64_t>& bits = closure_[from_component];
  if (column < 0 || bits.empty()) return SearchReaches(from, to);
  return (bits[static_cast<std::size_t>(column) / 64] >> (column % 64)) & 1U;
}

// Depth-first over the condensation, never into a component ranked after the target's: no
// path from there comes back.
bool Reachability::SearchComponents(std::uint32_t from, std::uint32_t to) const {
  if (rank_[from] >= rank_[to]) return false;
  thread_local std::vector<std::uint32_t> seen_epoch;
  thread_local std::uint32_t epoch = 0;
  if (seen_epoch.size() < rank_.size()) seen_epoch.assign(rank_.size(), 0);
  if (++epoch == 0) {  // wrapped: start clean
    std::fill(seen_epoch.begin(), seen_epoch.end(), 0);
    epoch = 1;
  }
  std::vector<std::uint32_t> stack = {from};
  seen_epoch[from] = epoch;
  const std::uint32_t limit = rank_[to];
  while (!stack.empty()) {
    const std::uint32_t c = stack.back();
    stack.pop_back();
    for (std::uint32_t i = component_successor_offsets_[c]; i < component_successor_offsets_[c + 1];
         ++i) {
      const std::uint32_t next = component_successors_[i];
      if (next == to) return true;
      if (rank_[next] < limit && seen_epoch[next] != epoch) {
        seen_epoch[next] = epoch;
        stack.push_back(next);
      }
    }
  }
  return false;
}

bool Reachability::SearchReaches(VertexIndex from, VertexIndex to) const {
  std::vector<bool> seen(component_of_.size(), false);
  std::vector<VertexIndex> stack = {from};
  while (!stack.empty()) {
    const VertexIndex v = stack.back();
    stack.pop_back();
    for (std::uint32_t i = successor_offsets_[v]; i < successor_offsets_[v + 1]; ++i) {
      const VertexIndex next = successors_[i];
      if (next == to) return true;
      if (!seen[next]) {
        seen[next] = true;
        stack.push_back(next);
      }
    }
  }
  return false;
}

}  // namespace fsmove::graph
