// `fsmove graph`: writes the dependency graph a catalog declares (relationships, containment,
// autorequires), as Graphviz DOT or JSON, with each edge's kind and origin; with
// --compare-puppet, lists the pairs it orders differently from the graph Puppet applied.
#include <fcntl.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "catalog_warnings.h"
#include "commands.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/graph_writers.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/report/json_output.h"
#include "fsmove/report/terminal_text.h"

namespace fsmove::cli {
namespace {

struct GraphOptions {
  std::string catalog;
  std::string format = "dot";
  std::string output;
  std::string compare_puppet;
};

// Every ordered pair of resources one graph orders and the other does not, one per line.
int ComparePuppet(const GraphOptions& o, const catalog::Catalog& cat,
                  const graph::DependencyGraph& g) {
  auto text = graph::ReadPuppetGraphFile(AT_FDCWD, o.compare_puppet);
  if (!text.ok()) {
    return Fail(text.status());
  }
  auto puppet = graph::LoadPuppetGraph(*text, o.compare_puppet, cat);
  if (!puppet.ok()) {
    return Fail(puppet.status());
  }
  for (const std::string& w : puppet->warnings) {
    std::cerr << "fsmove: warning: " << report::TerminalSafe(w) << "\n";
  }
  ReportOutput file;
  std::ostream* out = file.Open(o.output);
  if (out == nullptr) return kExitError;
  const auto differences = graph::CompareOrderings(g, *puppet);
  for (const graph::OrderingDifference& d : differences) {
    *out << cat.resource(d.first).ref << " before " << cat.resource(d.second).ref << ": "
         << (d.ours ? "fsmove only" : "Puppet only") << "\n";
  }
  std::cerr << "fsmove: " << differences.size() << " ordered pair"
            << (differences.size() == 1 ? " differs" : "s differ") << " between fsmove's graph and "
            << o.compare_puppet << "\n";
  if (!file.Close()) return kExitError;
  return differences.empty() ? kExitOk : kExitFindings;
}

int RunGraph(const GraphOptions& o) {
  auto cat = catalog::Catalog::LoadFile(o.catalog);
  if (!cat.ok()) {
    return Fail(cat.status());
  }
  PrintCatalogWarnings(*cat);
  graph::DependencyGraph g = graph::DependencyGraph::Build(*cat);
  if (!o.compare_puppet.empty()) return ComparePuppet(o, *cat, g);
  ReportOutput file;
  std::ostream* out = file.Open(o.output);
  if (out == nullptr) return kExitError;
  if (o.format == "json") {
    *out << report::DumpJson(graph::ToJson(g)) << "\n";
  } else {
    graph::WriteDot(g, *out);
  }
  if (!file.Close()) return kExitError;
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
  cmd->add_option("--compare-puppet", o->compare_puppet,
                  "instead, list the ordered pairs of resources fsmove's graph orders and "
                  "Puppet's does not, or the reverse (FILE: expanded_relationships.dot of the "
                  "same catalog); exit 1 when there are any")
      ->type_name("FILE");
  return [o] { return RunGraph(*o); };
}

}  // namespace fsmove::cli
