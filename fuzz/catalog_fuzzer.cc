// Fuzzes the catalog loader and what is built on a loaded catalog: the dependency graph
// (relationships, autorequires, containment whits, reachability, cycles), managed paths, the
// block resolver and the graph writers. A catalog that loads must give a graph whose answers
// agree with its own edges; one that does not load must say why, naming the source.
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "fsmove/catalog/block_resolver.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/catalog/managed_paths.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/graph_writers.h"
#include "fsmove/report/json_output.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fsmove;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = catalog::Catalog::LoadString(text, "fuzz.json");
  if (!loaded.ok()) {
    // An error, never a crash; and it names the file.
    FSMOVE_FUZZ_CHECK(std::string(loaded.status().message()).starts_with("fuzz.json"));
    return 0;
  }
  const catalog::Catalog& cat = *loaded;
  for (catalog::ResourceId id = 0; id < cat.size(); ++id) {
    const catalog::Resource& r = cat.resource(id);
    // Every resource can be found again by its own reference.
    auto found = cat.ResolveRef(r.ref);
    FSMOVE_FUZZ_CHECK(found.has_value());
    FSMOVE_FUZZ_CHECK(cat.resource(*found).ref == r.ref || cat.resource(*found).type == "Class");
  }
  for (const catalog::Relationship& rel : cat.relationships()) {
    FSMOVE_FUZZ_CHECK(rel.source < cat.size() && rel.target < cat.size());
  }
  for (const catalog::ContainmentEdge& edge : cat.containment()) {
    FSMOVE_FUZZ_CHECK(edge.container < cat.size() && edge.member < cat.size());
  }

  graph::DependencyGraph graph = graph::DependencyGraph::Build(cat);
  // Whatever a declared edge says first happens first (a cycle makes that true both ways).
  for (const graph::DeclaredEdge& edge : graph.edges()) {
    FSMOVE_FUZZ_CHECK(edge.source < cat.size() && edge.target < cat.size());
    if (edge.origin == graph::EdgeOrigin::kParameter ||
        edge.origin == graph::EdgeOrigin::kAutorequire) {
      FSMOVE_FUZZ_CHECK(graph.HappensBefore(edge.source, edge.target));
    }
  }
  for (const graph::DependencyCycle& cycle : graph.cycles()) {
    FSMOVE_FUZZ_CHECK(!cycle.members.empty());
    FSMOVE_FUZZ_CHECK(cycle.path.size() >= 2 && cycle.path.front() == cycle.path.back());
  }
  // A bounded sample of queries, each compared with its transitive consequence.
  const catalog::ResourceId n = static_cast<catalog::ResourceId>(std::min<size_t>(cat.size(), 24));
  for (catalog::ResourceId a = 0; a < n; ++a) {
    for (catalog::ResourceId b = 0; b < n; ++b) {
      graph.Notifies(a, b);
      if (!graph.HappensBefore(a, b)) continue;
      for (catalog::ResourceId c = 0; c < n; ++c) {
        if (graph.HappensBefore(b, c)) FSMOVE_FUZZ_CHECK(graph.HappensBefore(a, c));
      }
    }
  }

  catalog::ManagedPaths paths(cat);
  catalog::BlockResolver resolver(cat, paths);
  for (catalog::ResourceId id = 0; id < cat.size(); ++id) {
    const catalog::Resource& r = cat.resource(id);
    catalog::BlockResolution res = resolver.Resolve(r.ref, "/Stage[main]/Main/" + r.ref);
    FSMOVE_FUZZ_CHECK(res.resource.has_value());
    for (const std::string& p : paths.PathsOf(id)) {
      FSMOVE_FUZZ_CHECK(!p.empty() && p[0] == '/');
      resolver.Resolve("File[" + p + "/child]");
    }
  }
  std::ostringstream dot;
  graph::WriteDot(graph, dot);
  report::DumpJson(graph::ToJson(graph));
  return 0;
}
