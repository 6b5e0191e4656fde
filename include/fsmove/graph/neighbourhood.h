// The neighbourhood of one resource or a pair in the dependency graph: the few resources that
// order, notify or contain them, small enough to read (never the whole catalog), drawn as
// Graphviz DOT or Mermaid. `fsmove graph --around` and the markdown report share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/dependency_graph.h"

namespace fsmove::graph {

// The relationship a finding says is missing, drawn thick and red, labelled "missing LABEL".
struct MissingEdge {
  catalog::ResourceId source = 0;  // to be applied first / to notify
  catalog::ResourceId target = 0;
  std::string_view label;  // static text: "require", "notify"
};

// One of the graph's declared edges between two drawn resources (one per ordered pair: a
// relationship wins over containment, notify over before).
struct NeighbourhoodEdge {
  catalog::ResourceId source = 0;
  catalog::ResourceId target = 0;
  EdgeKind kind = EdgeKind::kBefore;
  EdgeOrigin origin = EdgeOrigin::kParameter;
};

struct Neighbourhood {
  std::vector<catalog::ResourceId> nodes;  // the focus first, then the closest first
  size_t focus_count = 0;                  // nodes[0 .. focus_count) are the focus
  std::vector<NeighbourhoodEdge> edges;    // sorted by (source, target)
  std::optional<MissingEdge> missing;
  // Resources within reach that the bound left out of the picture.
  size_t left_out = 0;
};

struct NeighbourhoodOptions {
  size_t max_nodes = 8;  // focus included (at least the focus is drawn)
  // How far to look, in steps: a relationship costs 1, going up to a container 2, down to a
  // container's other members or across a run stage 3 (a class's other members and the stage
  // holding everything are rarely what orders a resource).
  int reach = 4;
};

// Built once per graph (an adjacency index of its declared edges, O(E)); each query explores
// only what lies within reach of the focus.
class NeighbourhoodFinder {
 public:
  explicit NeighbourhoodFinder(const DependencyGraph& graph);

  // The focus (one or two resources, duplicates dropped) and the resources closest to them:
  // first those on the shortest connection between two foci, then by distance to either,
  // then by id. Deterministic.
  Neighbourhood Around(std::span<const catalog::ResourceId> focus,
                       const NeighbourhoodOptions& options = {}) const;

 private:
  struct Step {
    catalog::ResourceId to;
    uint8_t cost;
    uint32_t edge;  // index into graph.edges()
  };
  // Distance from `from` to every resource within `reach` (-1 beyond), as (id, distance).
  std::vector<std::pair<catalog::ResourceId, int>> Distances(catalog::ResourceId from,
                                                             int reach) const;

  const DependencyGraph* graph_;
  std::vector<uint32_t> offsets_;  // compressed rows: steps_[offsets_[v] .. offsets_[v + 1])
  std::vector<Step> steps_;
};

// Graphviz: a left-to-right digraph, one box per resource (its reference and manifest
// basename:line), the focus bold red, existing edges solid (labelled unless plain ordering;
// containment grey), the missing one thick red, labelled "missing require"/"missing notify".
void WriteNeighbourhoodDot(const Neighbourhood& n, const catalog::Catalog& cat, std::ostream& out);

// Mermaid `flowchart LR` (without the ``` fence): nodes n0, n1, ... with quoted labels escaped by
// MermaidLabel, `-->` for existing edges (`-->|notify|`, `-->|contains|`, ...), `==>|missing
// label|` for the missing one; `linkStyle` lines draw containment grey and the missing edge
// thick red (the most visible line), the focus in class `focus`. MermaidLegend says so.
void WriteNeighbourhoodMermaid(const Neighbourhood& n, const catalog::Catalog& cat,
                               std::ostream& out);

// Text for inside a Mermaid quoted label: every character but letters, digits, space and
// harmless punctuation as an entity code `#NNN;` (so quotes, brackets, backticks, `-->`, `%%`
// directives, `;`, `|`, `<`, `>` and `&` stay text), control characters as spaces, UTF-8 kept;
// cut to `max_chars` code points with an ellipsis.
std::string MermaidLabel(std::string_view text, size_t max_chars = 60);

// One sentence under a drawing of WriteNeighbourhoodMermaid: what its lines and boxes mean.
std::string_view MermaidLegend();

// The edge's label in both drawings: "notify", "contains", "stage", "autorequire", "puppet",
// or "" for a plain ordering relationship.
std::string_view NeighbourhoodEdgeLabel(const NeighbourhoodEdge& e);

}  // namespace fsmove::graph
