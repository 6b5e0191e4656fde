// Serialises a dependency graph for people and tools: Graphviz DOT and JSON, both listing
// catalog resources, declared edges (kind + origin), cycles and catalog warnings.
#ifndef FSMOVE_GRAPH_GRAPH_WRITERS_H_
#define FSMOVE_GRAPH_GRAPH_WRITERS_H_

#include <ostream>
#include <string>
#include <string_view>

#include "fsmove/graph/dependency_graph.h"
#include "nlohmann/json.hpp"

namespace fsmove::graph {

// digraph with one node per resource (id = its reference, quoted and escaped; type, file
// and line as attributes) and one edge per declared edge (kind, origin, rule attributes;
// notify edges dashed, containment grey). Cycles are listed in a comment at the end.
void WriteDot(const DependencyGraph& graph, std::ostream& out);
std::string ToDot(const DependencyGraph& graph);

// {"nodes":[{ref,type,title,file,line}], "edges":[{source,target,kind,origin,rule}],
//  "cycles":[[ref,...,ref]], "warnings":[{pointer,message}]}; file/line null when absent.
nlohmann::json ToJson(const DependencyGraph& graph);

// A DOT double-quoted string: '"' and '\' escaped, newlines as \n.
std::string DotQuoted(std::string_view text);

}  // namespace fsmove::graph

#endif  // FSMOVE_GRAPH_GRAPH_WRITERS_H_
