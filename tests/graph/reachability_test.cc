// Tests for the SCC + bitset-closure reachability index, including the fallback search
// for vertices outside the declared source/target sets.
#include "fsmove/graph/reachability.h"

#include <random>

#include "gtest/gtest.h"

namespace fsmove::graph {
namespace {

Digraph MakeDigraph(std::size_t vertices, const std::vector<std::pair<int, int>>& edges) {
  Digraph graph(vertices);
  for (const auto& [from, to] : edges) boost::add_edge(from, to, graph);
  return graph;
}

Reachability Everything(const Digraph& graph) {
  const std::vector<bool> all(boost::num_vertices(graph), true);
  return Reachability(graph, all, all);
}

TEST(GraphReachabilityTest, PathsNeedAtLeastOneEdge) {
  const Digraph graph = MakeDigraph(4, {{0, 1}, {1, 2}});
  const Reachability reach = Everything(graph);
  EXPECT_TRUE(reach.Reaches(0, 1));
  EXPECT_TRUE(reach.Reaches(0, 2));
  EXPECT_FALSE(reach.Reaches(2, 0));
  EXPECT_FALSE(reach.Reaches(0, 0));
  EXPECT_FALSE(reach.Reaches(0, 3));
  EXPECT_FALSE(reach.Reaches(0, 99));
}

TEST(GraphReachabilityTest, CyclesAndSelfLoops) {
  const Digraph graph = MakeDigraph(5, {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {4, 4}});
  const Reachability reach = Everything(graph);
  EXPECT_TRUE(reach.Reaches(0, 0));
  EXPECT_TRUE(reach.Reaches(2, 1));
  EXPECT_TRUE(reach.Reaches(1, 3));
  EXPECT_FALSE(reach.Reaches(3, 0));
  EXPECT_TRUE(reach.Reaches(4, 4));
  EXPECT_TRUE(reach.IsCyclic(reach.ComponentOf(0)));
  EXPECT_EQ(reach.ComponentMembers(reach.ComponentOf(0)).size(), 3u);
  EXPECT_FALSE(reach.IsCyclic(reach.ComponentOf(3)));
  EXPECT_TRUE(reach.IsCyclic(reach.ComponentOf(4)));
}

TEST(GraphReachabilityTest, QueriesOutsideTheDeclaredSetsFallBackToSearch) {
  // 0 -> 1 -> 2 -> 3 with only 0 a source and only 3 a target: 1's closure is freed and
  // 2 has no column, yet every question gets the right answer.
  const Digraph graph = MakeDigraph(4, {{0, 1}, {1, 2}, {2, 3}});
  const Reachability reach(graph, {true, false, false, false}, {false, false, false, true});
  EXPECT_TRUE(reach.Reaches(0, 3));
  EXPECT_TRUE(reach.Reaches(1, 3));
  EXPECT_TRUE(reach.Reaches(0, 2));
  EXPECT_FALSE(reach.Reaches(3, 1));
}

TEST(GraphReachabilityTest, EmptyGraph) {
  const Reachability reach(Digraph(0), {}, {});
  EXPECT_EQ(reach.component_count(), 0u);
  EXPECT_FALSE(reach.Reaches(0, 0));
}

TEST(GraphReachabilityTest, AgreesWithSearchOnRandomGraphs) {
  std::mt19937 random(42);
  for (int round = 0; round < 20; ++round) {
    const int vertices = 60;
    std::vector<std::pair<int, int>> edges;
    std::uniform_int_distribution<int> pick(0, vertices - 1);
    for (int e = 0; e < 90; ++e) edges.emplace_back(pick(random), pick(random));
    const Digraph graph = MakeDigraph(vertices, edges);
    std::vector<bool> sources(vertices), targets(vertices);
    for (int v = 0; v < vertices; ++v) {
      sources[v] = random() % 2 == 0;
      targets[v] = random() % 2 == 0;
    }
    const Reachability reach(graph, sources, targets);
    // Over the memory budget: no closure, every query a search of the condensation.
    const Reachability searched(graph, sources, targets, /*closure_budget_bytes=*/0);
    ASSERT_TRUE(reach.has_closure());
    ASSERT_FALSE(searched.has_closure());
    for (int from = 0; from < vertices; ++from) {
      std::vector<bool> seen(vertices, false);
      std::vector<int> stack;
      for (const auto& [a, b] : edges) {
        if (a == from) stack.push_back(b);
      }
      while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        if (seen[v]) continue;
        seen[v] = true;
        for (const auto& [a, b] : edges) {
          if (a == v) stack.push_back(b);
        }
      }
      for (int to = 0; to < vertices; ++to) {
        ASSERT_EQ(reach.Reaches(from, to), seen[to])
            << "round " << round << ": " << from << " -> " << to;
        ASSERT_EQ(searched.Reaches(from, to), seen[to])
            << "round " << round << " (searched): " << from << " -> " << to;
      }
    }
  }
}

}  // namespace
}  // namespace fsmove::graph
