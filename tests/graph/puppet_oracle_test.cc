// Puppet as the oracle: the graphs `puppet apply --graph` wrote for our test catalogs
// (tests/data/catalogs/NAME.relationships.dot and NAME.expanded.dot, see regenerate.sh)
// must match ours edge for edge, and imply exactly the orderings we answer.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../catalog/catalog_test_support.h"
#include "fsmove/catalog/resource_ref.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/puppet_graph.h"
#include "gtest/gtest.h"

namespace fsmove::graph {
namespace {

using ::fsmove::testing::CatalogDataPath;
using ::fsmove::testing::LoadTestCatalog;

// Puppet's graph by vertex names, read with the DOT reader `fsmove check` uses.
struct PuppetDot {
  std::vector<std::string> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
};

PuppetDot LoadPuppetDot(const std::string& name) {
  std::ifstream in(CatalogDataPath(name));
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<DotGraph> parsed = ParseDot(text.str(), name);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  PuppetDot dot;
  if (!parsed.ok()) return dot;
  for (const DotGraph::Vertex& v : parsed->vertices) dot.nodes.push_back(v.name);
  for (const DotGraph::Edge& e : parsed->edges) {
    dot.edges.emplace_back(parsed->vertices[e.from].name, parsed->vertices[e.to].name);
  }
  return dot;
}

bool IsWhit(const std::string& name) { return name.rfind("Whit[", 0) == 0; }

class GraphPuppetOracleTest : public ::testing::TestWithParam<const char*> {};

// relationships.dot holds the manual and automatic edges before container expansion:
// they must be exactly our parameter and autorequire edges.
TEST_P(GraphPuppetOracleTest, DeclaredEdgesMatchRelationshipsDot) {
  const std::string name = GetParam();
  const catalog::Catalog catalog = LoadTestCatalog(name + ".json");
  const DependencyGraph graph = DependencyGraph::Build(catalog);
  const PuppetDot dot = LoadPuppetDot(name + ".relationships.dot");

  std::set<std::pair<catalog::ResourceId, catalog::ResourceId>> puppet;
  for (const auto& [from, to] : dot.edges) {
    const std::optional<catalog::ResourceId> source = catalog.ResolveRef(from);
    const std::optional<catalog::ResourceId> target = catalog.ResolveRef(to);
    ASSERT_TRUE(source && target) << from << " -> " << to;
    puppet.emplace(*source, *target);
  }
  std::set<std::pair<catalog::ResourceId, catalog::ResourceId>> ours;
  for (const DeclaredEdge& edge : graph.edges()) {
    if (edge.origin == EdgeOrigin::kParameter || edge.origin == EdgeOrigin::kAutorequire) {
      ours.emplace(edge.source, edge.target);
    }
  }
  for (const auto& [source, target] : puppet) {
    EXPECT_TRUE(ours.contains({source, target}))
        << "Puppet has " << catalog.resource(source).ref << " -> " << catalog.resource(target).ref;
  }
  for (const auto& [source, target] : ours) {
    EXPECT_TRUE(puppet.contains({source, target}))
        << "we have " << catalog.resource(source).ref << " -> " << catalog.resource(target).ref;
  }
  EXPECT_FALSE(puppet.empty());
}

// expanded_relationships.dot is the graph Puppet traverses. Whit names differ only in
// case ("Whit[Admissible_class[Main]]" vs our "Whit[admissible_Class[main]]").
TEST_P(GraphPuppetOracleTest, ExpandedGraphMatchesExpandedRelationshipsDot) {
  const std::string name = GetParam();
  const catalog::Catalog catalog = LoadTestCatalog(name + ".json");
  const DependencyGraph graph = DependencyGraph::Build(catalog);
  const PuppetDot dot = LoadPuppetDot(name + ".expanded.dot");

  // Resource names are compared through the catalog (class titles fold case); whits by
  // their lower-cased names.
  const auto key = [&catalog](const std::string& vertex) {
    if (IsWhit(vertex)) return catalog::AsciiLowercase(vertex);
    const std::optional<catalog::ResourceId> id = catalog.ResolveRef(vertex);
    return id ? catalog.resource(*id).ref : "<unknown " + vertex + ">";
  };
  std::set<std::pair<std::string, std::string>> puppet;
  for (const auto& [from, to] : dot.edges) puppet.emplace(key(from), key(to));
  std::set<std::pair<std::string, std::string>> ours;
  const DependencyGraph::ExpandedGraph& expanded = graph.expanded();
  for (VertexIndex v = 0; v < boost::num_vertices(expanded); ++v) {
    for (const auto edge : boost::make_iterator_range(boost::out_edges(v, expanded))) {
      ours.emplace(
          key(graph.ExpandedVertexName(v)),
          key(graph.ExpandedVertexName(static_cast<VertexIndex>(boost::target(edge, expanded)))));
    }
  }
  for (const auto& edge : puppet)
    EXPECT_TRUE(ours.contains(edge)) << "Puppet has " << edge.first << " -> " << edge.second;
  for (const auto& edge : ours)
    EXPECT_TRUE(puppet.contains(edge)) << "we have " << edge.first << " -> " << edge.second;
}

// Every ordering Puppet's expanded graph implies between two real resources is implied by
// ours, and vice versa (reachability over all pairs, whits as intermediate steps only).
TEST_P(GraphPuppetOracleTest, OrderingsMatchPuppetsExpandedGraph) {
  const std::string name = GetParam();
  const catalog::Catalog catalog = LoadTestCatalog(name + ".json");
  const DependencyGraph graph = DependencyGraph::Build(catalog);
  const PuppetDot dot = LoadPuppetDot(name + ".expanded.dot");

  std::vector<std::string> names = dot.nodes;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < names.size(); ++i) index[names[i]] = i;
  std::vector<std::vector<std::size_t>> successors(names.size());
  for (const auto& [from, to] : dot.edges) successors[index.at(from)].push_back(index.at(to));

  std::vector<std::size_t> resources;  // Puppet's non-whit vertices
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!IsWhit(names[i])) resources.push_back(i);
  }
  // Puppet's vertex set is our non-container resources.
  std::size_t non_containers = 0;
  for (const catalog::Resource& resource : catalog.resources())
    non_containers += resource.is_container ? 0 : 1;
  EXPECT_EQ(resources.size(), non_containers);

  std::size_t orderings = 0;
  for (const std::size_t from : resources) {
    std::vector<bool> reached(names.size(), false);
    std::vector<std::size_t> stack = successors[from];
    while (!stack.empty()) {
      const std::size_t v = stack.back();
      stack.pop_back();
      if (reached[v]) continue;
      reached[v] = true;
      for (const std::size_t next : successors[v]) stack.push_back(next);
    }
    const catalog::ResourceId a = *catalog.ResolveRef(names[from]);
    for (const std::size_t to : resources) {
      const catalog::ResourceId b = *catalog.ResolveRef(names[to]);
      EXPECT_EQ(graph.HappensBefore(a, b), static_cast<bool>(reached[to]))
          << names[from] << " before " << names[to] << " (Puppet: " << reached[to] << ")";
      orderings += reached[to] ? 1 : 0;
    }
  }
  EXPECT_GT(orderings, 0u);
}

// notify_relay.refreshed.txt lists what a real `puppet apply` of notify_relay.json
// refreshed ("Triggered 'refresh'") when every File in it changed: exactly the resources
// some File notifies, among those that act on refresh.
TEST(GraphPuppetRefreshOracleTest, RefreshedResourcesAreThoseSomeFileNotifies) {
  const catalog::Catalog catalog = LoadTestCatalog("notify_relay.json");
  const DependencyGraph graph = DependencyGraph::Build(catalog);
  std::ifstream in(CatalogDataPath("notify_relay.refreshed.txt"));
  std::set<std::string> puppet;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) puppet.insert(line);
  }
  ASSERT_EQ(puppet.size(), 9u);
  std::set<std::string> ours;
  for (catalog::ResourceId target = 0; target < catalog.size(); ++target) {
    const catalog::Resource& resource = catalog.resource(target);
    if (resource.is_container || !graph.RelaysRefresh(target)) continue;  // acts on refresh
    for (catalog::ResourceId source = 0; source < catalog.size(); ++source) {
      if (catalog.resource(source).type == "File" && graph.Notifies(source, target))
        ours.insert(resource.ref);
    }
  }
  EXPECT_EQ(ours, puppet);
}

INSTANTIATE_TEST_SUITE_P(GraphOracle, GraphPuppetOracleTest,
                         ::testing::Values("chains", "containment", "stages", "aliases", "titles",
                                           "autorequire", "notify_relay", "cycle"));

}  // namespace
}  // namespace fsmove::graph
