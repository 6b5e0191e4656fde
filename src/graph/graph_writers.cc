// Serialises a dependency graph for people and tools: Graphviz DOT and JSON, both listing
// catalog resources, declared edges (kind + origin), cycles and catalog warnings.
#include "fsmove/graph/graph_writers.h"

#include <sstream>

#include "fsmove/base/terminal_text.h"

namespace fsmove::graph {

std::string DotQuoted(std::string_view text) {
  std::string quoted = "\"";
  quoted.reserve(text.size() + 2);
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (c == '\n') {
      quoted += "\\n";
    } else if (c == '\r') {
      quoted += "\\r";
    } else if (byte >= 0x20 && byte != 0x7F && byte < 0x80) {
      quoted += c;
    } else {
      // Other controls, C1 and bidirectional controls and invalid UTF-8 as their escape
      // (TerminalSafe) after an escaped backslash: text in the label, inert on a terminal.
      const base::Utf8Char u = base::DecodeUtf8(text, i);
      const size_t n = u.length == 0 ? 1 : u.length;
      const std::string_view one = text.substr(i, n);
      if (base::IsTerminalSafe(one)) {
        quoted += one;
      } else {
        quoted += '\\';
        quoted += base::TerminalSafe(one);
      }
      i += n;
      continue;
    }
    ++i;
  }
  quoted += '"';
  return quoted;
}

void WriteDot(const DependencyGraph& graph, std::ostream& out) {
  const catalog::Catalog& catalog = graph.catalog();
  out << "digraph fsmove {\n";
  for (const catalog::Resource& resource : catalog.resources()) {
    out << "  " << DotQuoted(resource.ref) << " [type=" << DotQuoted(resource.type);
    if (!resource.file.empty()) out << ", file=" << DotQuoted(resource.file);
    if (resource.line) out << ", line=" << *resource.line;
    if (resource.is_container) out << ", shape=box";
    out << "];\n";
  }
  for (const DeclaredEdge& edge : graph.edges()) {
    out << "  " << DotQuoted(catalog.resource(edge.source).ref) << " -> "
        << DotQuoted(catalog.resource(edge.target).ref)
        << " [kind=" << DotQuoted(EdgeKindName(edge.kind))
        << ", origin=" << DotQuoted(EdgeOriginName(edge.origin))
        << ", rule=" << DotQuoted(edge.rule);
    if (edge.origin == EdgeOrigin::kContainment || edge.origin == EdgeOrigin::kStage) {
      out << ", color=grey";
    } else if (edge.kind == EdgeKind::kNotify) {
      out << ", style=dashed";
    }
    out << "];\n";
  }
  for (const DependencyCycle& cycle : graph.cycles()) {
    out << "  // cycle:";
    for (const std::string& ref : cycle.path) out << ' ' << DotQuoted(ref);
    out << '\n';
  }
  out << "}\n";
}

std::string ToDot(const DependencyGraph& graph) {
  std::ostringstream out;
  WriteDot(graph, out);
  return std::move(out).str();
}

nlohmann::json ToJson(const DependencyGraph& graph) {
  const catalog::Catalog& catalog = graph.catalog();
  nlohmann::json nodes = nlohmann::json::array();
  for (const catalog::Resource& resource : catalog.resources()) {
    nodes.push_back(
        {{"ref", resource.ref},
         {"type", resource.type},
         {"title", resource.title},
         {"file", resource.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(resource.file)},
         {"line", resource.line ? nlohmann::json(*resource.line) : nlohmann::json(nullptr)}});
  }
  nlohmann::json edges = nlohmann::json::array();
  for (const DeclaredEdge& edge : graph.edges()) {
    edges.push_back({{"source", catalog.resource(edge.source).ref},
                     {"target", catalog.resource(edge.target).ref},
                     {"kind", EdgeKindName(edge.kind)},
                     {"origin", EdgeOriginName(edge.origin)},
                     {"rule", edge.rule}});
  }
  nlohmann::json cycles = nlohmann::json::array();
  for (const DependencyCycle& cycle : graph.cycles()) cycles.push_back(cycle.path);
  nlohmann::json warnings = nlohmann::json::array();
  for (const catalog::CatalogWarning& warning : catalog.warnings()) {
    warnings.push_back({{"pointer", warning.json_pointer}, {"message", warning.message}});
  }
  return {{"nodes", std::move(nodes)},
          {"edges", std::move(edges)},
          {"cycles", std::move(cycles)},
          {"warnings", std::move(warnings)}};
}

}  // namespace fsmove::graph
