// `fsmove graph`: writes the dependency graph a catalog declares (relationships, containment,
// autorequires), as Graphviz DOT or JSON, with each edge's kind and origin.
#include <fstream>
#include <iostream>
#include <memory>

#include "catalog_warnings.h"
#include "commands.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/graph_writers.h"
#include "fsmove/report/json_output.h"

namespace fsmove::cli {
namespace {

struct GraphOptions {
  std::string catalog;
  std::string format = "dot";
  std::string output;
};

int RunGraph(const GraphOptions& o) {
  auto cat = catalog::Catalog::LoadFile(o.catalog);
  if (!cat.ok()) {
    std::cerr << "fsmove: error: " << cat.status().message() << "\n";
    return kExitError;
  }
  PrintCatalogWarnings(*cat);
  graph::DependencyGraph g = graph::DependencyGraph::Build(*cat);
  std::ofstream file;
  std::ostream* out = OpenOutput(o.output, &file);
  if (out == nullptr) return kExitError;
  if (o.format == "json") {
    *out << report::DumpJson(graph::ToJson(g)) << "\n";
  } else {
    graph::WriteDot(g, *out);
  }
  for (const auto& cycle : g.cycles()) {
    std::cerr << "fsmove: warning: dependency cycle:";
    for (const auto& ref : cycle.path) std::cerr << " " << ref;
    std::cerr << "\n";
  }
  return kExitOk;
}

}  // namespace

std::function<int()> RegisterGraph(CLI::App& app) {
  auto o = std::make_shared<GraphOptions>();
  CLI::App* cmd = app.add_subcommand("graph", "Write the dependency graph a catalog declares");
  cmd->add_option("--catalog", o->catalog, "compiled catalog (JSON)")->required();
  cmd->add_option("--format", o->format, "output format")->check(CLI::IsMember({"dot", "json"}));
  cmd->add_option("-o,--output", o->output, "write to this file");
  return [o] { return RunGraph(*o); };
}

}  // namespace fsmove::cli
