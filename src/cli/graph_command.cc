// `fsmove graph`: writes the dependency graph a catalog declares (relationships, containment,
// autorequires), as Graphviz DOT or JSON, with each edge's kind and origin; with --around (and
// --and), only the neighbourhood of one resource or a pair, as DOT or Mermaid; with
// --compare-puppet, lists the pairs it orders differently from the graph Puppet applied.
#include <fcntl.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "budget_options.h"
#include "commands.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/graph/graph_writers.h"
#include "fsmove/graph/neighbourhood.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/report/json_output.h"

namespace fsmove::cli {
namespace {

struct GraphOptions {
  std::string catalog;
  std::string format = "dot";
  std::string output;
  std::string compare_puppet;
  std::string around;  // Type[title]
  std::string and_ref;
  size_t max_nodes = 8;
  BudgetFlags budget;
};

// The neighbourhood of --around (and --and) as DOT or Mermaid.
int WriteNeighbourhood(const GraphOptions& o, const catalog::Catalog& cat,
                       const graph::DependencyGraph& g) {
  std::vector<catalog::ResourceId> focus;
  for (const std::string* ref : {&o.around, &o.and_ref}) {
    if (ref->empty()) continue;
    std::optional<catalog::ResourceId> id = cat.ResolveRef(*ref);
    if (!id) {
      Say({check::Error(absl::StrCat(base::TerminalSafe(*ref), " is not a resource of ",
                                     base::TerminalSafe(o.catalog)))});
      return kExitError;
    }
    focus.push_back(*id);
  }
  graph::NeighbourhoodOptions options;
  options.max_nodes = std::max<size_t>(o.max_nodes, focus.size());
  graph::Neighbourhood n = graph::NeighbourhoodFinder(g).Around(focus, options);
  ReportOutput file;
  std::ostream* out = file.Open(o.output);
  if (out == nullptr) return kExitError;
  if (o.format == "mermaid") {
    graph::WriteNeighbourhoodMermaid(n, cat, *out);
  } else {
    graph::WriteNeighbourhoodDot(n, cat, *out);
  }
  if (!file.Close()) return kExitError;
  if (n.left_out > 0) {
    Say({check::Info(absl::StrCat(n.left_out, " more related resource", n.left_out == 1 ? "" : "s",
                                  " not drawn (--max-nodes)"))});
  }
  return kExitOk;
}

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
    Say({check::Warning(std::string(base::TerminalSafe(w)))});
  }
  ReportOutput file;
  std::ostream* out = file.Open(o.output);
  if (out == nullptr) return kExitError;
  const auto differences = graph::CompareOrderings(g, *puppet);
  for (const graph::OrderingDifference& d : differences) {
    *out << cat.resource(d.first).ref << " before " << cat.resource(d.second).ref << ": "
         << (d.ours ? "fsmove only" : "Puppet only") << "\n";
  }
  Say({check::Info(absl::StrCat(differences.size(), " ordered pair",
                                differences.size() == 1 ? " differs" : "s differ",
                                " between fsmove's graph and ", o.compare_puppet))});
  if (!file.Close()) return kExitError;
  return differences.empty() ? kExitOk : kExitFindings;
}

int RunGraph(const GraphOptions& o) {
  // Usage errors first, before the catalog loads.
  if (!o.and_ref.empty() && o.around.empty()) {
    Say({check::Error("--and needs --around")});
    return kExitError;
  }
  if (!o.around.empty() && (o.format == "json" || !o.compare_puppet.empty())) {
    Say(
        {check::Error("--around draws a neighbourhood as dot or mermaid; it does not go "
                      "with --format json or --compare-puppet")});
    return kExitError;
  }
  if (o.around.empty() && o.format == "mermaid") {
    Say(
        {check::Error("--format mermaid draws a neighbourhood, never the whole catalog: "
                      "give --around REF")});
    return kExitError;
  }
  absl::StatusOr<base::HostBudget> budget = BudgetFromFlags(o.budget);
  if (!budget.ok()) return Fail(budget.status());
  catalog::LoadOptions load;
  load.max_bytes = budget->catalog_bytes;
  load.max_values = budget->catalog_values;
  auto cat = catalog::Catalog::LoadFile(o.catalog, load);
  if (!cat.ok()) {
    return Fail(cat.status());
  }
  Say(check::CatalogWarnings(*cat));
  graph::DependencyGraph g = graph::DependencyGraph::Build(*cat);
  if (!o.compare_puppet.empty()) return ComparePuppet(o, *cat, g);
  if (!o.around.empty()) return WriteNeighbourhood(o, *cat, g);
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
    std::string text = "dependency cycle:";
    for (const auto& ref : cycle.path) absl::StrAppend(&text, " ", ref);
    Say({check::Warning(std::move(text))});
  }
  return kExitOk;
}

}  // namespace

std::function<int()> RegisterGraph(CLI::App& app) {
  auto o = std::make_shared<GraphOptions>();
  CLI::App* cmd = app.add_subcommand("graph", "Write the dependency graph a catalog declares");
  cmd->add_option("--catalog", o->catalog, "compiled catalog (JSON)")->required();
  cmd->add_option("--format", o->format,
                  "output format: dot or json (the whole graph), dot or mermaid (--around)")
      ->check(CLI::IsMember({"dot", "json", "mermaid"}));
  cmd->add_option("--around", o->around,
                  "draw only the neighbourhood of this resource (e.g. 'File[/etc/app.conf]'): the "
                  "resources that order, notify or contain it")
      ->type_name("REF");
  cmd->add_option("--and", o->and_ref,
                  "with --around: the neighbourhood of a pair, the resources connecting them first")
      ->type_name("REF");
  cmd->add_option("--max-nodes", o->max_nodes,
                  "with --around: at most this many resources in the picture (default 8)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", o->output, "write to this file");
  cmd->add_option("--compare-puppet", o->compare_puppet,
                  "instead, list the ordered pairs of resources fsmove's graph orders and "
                  "Puppet's does not, or the reverse (FILE: expanded_relationships.dot of the "
                  "same catalog); exit 1 when there are any")
      ->type_name("FILE");
  AddBudgetOptions(cmd, &o->budget, BudgetScope::kCatalog);
  return [o] { return RunGraph(*o); };
}

}  // namespace fsmove::cli
