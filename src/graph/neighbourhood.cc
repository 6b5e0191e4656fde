// The neighbourhood of a resource or a pair, and its DOT and Mermaid drawings; see
// neighbourhood.h.
#include "fsmove/graph/neighbourhood.h"

#include <algorithm>
#include <array>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/graph/graph_writers.h"

namespace fsmove::graph {
namespace {

// The missing relationship is the picture's most visible line.
constexpr std::string_view kMissingLinkStyle = "stroke:#cc2222,stroke-width:4px,color:#cc2222";

bool IsRelationship(EdgeOrigin o) {
  return o != EdgeOrigin::kContainment && o != EdgeOrigin::kStage;
}

// Lower is the better label for a pair joined by several edges.
int EdgePreference(const DeclaredEdge& e) {
  return (IsRelationship(e.origin) ? 0 : 2) + (e.kind == EdgeKind::kNotify ? 0 : 1);
}

// "init.pp:12": short enough for a box; the report around the picture names the full path.
std::string ShortLocation(const catalog::Resource& r) {
  if (r.file.empty()) return "";
  std::string_view base = r.file;
  if (size_t slash = base.rfind('/'); slash != std::string_view::npos) {
    base.remove_prefix(slash + 1);
  }
  std::string s(base);
  if (r.line) s += ":" + std::to_string(*r.line);
  return s;
}

bool Harmless(unsigned char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view(" /._,:=+@~!?'$^*-()[]").find(static_cast<char>(c)) !=
         std::string_view::npos;
}

}  // namespace

NeighbourhoodFinder::NeighbourhoodFinder(const DependencyGraph& graph) : graph_(&graph) {
  const size_t n = graph.catalog().size();
  std::vector<uint32_t> degree(n + 1, 0);
  const auto& edges = graph.edges();
  for (const DeclaredEdge& e : edges) {
    if (e.source == e.target) continue;
    ++degree[e.source];
    ++degree[e.target];
  }
  offsets_.assign(n + 1, 0);
  for (size_t v = 0; v < n; ++v) offsets_[v + 1] = offsets_[v] + degree[v];
  steps_.resize(offsets_[n]);
  std::vector<uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (uint32_t i = 0; i < edges.size(); ++i) {
    const DeclaredEdge& e = edges[i];
    if (e.source == e.target) continue;
    // Relationships cost 1 either way; a container is 2 up from its member and its members 3
    // down from it; a stage is 3 either way.
    uint8_t down = 1, up = 1;
    if (e.origin == EdgeOrigin::kContainment) {
      down = 3;
      up = 2;
    } else if (e.origin == EdgeOrigin::kStage) {
      down = up = 3;
    }
    steps_[fill[e.source]++] = {e.target, down, i};
    steps_[fill[e.target]++] = {e.source, up, i};
  }
}

std::vector<std::pair<catalog::ResourceId, int>> NeighbourhoodFinder::Distances(
    catalog::ResourceId from, int reach) const {
  // Dijkstra with a bucket per distance: costs are small integers and `reach` is small.
  absl::flat_hash_map<catalog::ResourceId, int> dist;
  std::vector<std::vector<catalog::ResourceId>> buckets(static_cast<size_t>(reach) + 1);
  dist[from] = 0;
  buckets[0].push_back(from);
  std::vector<std::pair<catalog::ResourceId, int>> out;
  for (int d = 0; d <= reach; ++d) {
    for (size_t k = 0; k < buckets[d].size(); ++k) {
      catalog::ResourceId v = buckets[d][k];
      if (dist[v] != d) continue;  // reached again later at a shorter distance
      out.emplace_back(v, d);
      for (uint32_t s = offsets_[v]; s < offsets_[v + 1]; ++s) {
        int nd = d + steps_[s].cost;
        if (nd > reach) continue;
        auto [it, inserted] = dist.try_emplace(steps_[s].to, nd);
        if (!inserted && it->second <= nd) continue;
        it->second = nd;
        buckets[nd].push_back(steps_[s].to);
      }
    }
  }
  return out;
}

Neighbourhood NeighbourhoodFinder::Around(std::span<const catalog::ResourceId> focus,
                                          const NeighbourhoodOptions& options) const {
  Neighbourhood n;
  for (catalog::ResourceId f : focus) {
    if (std::find(n.nodes.begin(), n.nodes.end(), f) == n.nodes.end()) n.nodes.push_back(f);
  }
  n.focus_count = n.nodes.size();
  if (n.nodes.empty()) return n;

  // Per resource within reach: its distance from each of (at most) two foci.
  constexpr int kFar = 1 << 20;
  absl::flat_hash_map<catalog::ResourceId, std::array<int, 2>> seen;
  const size_t sides = std::min<size_t>(n.focus_count, 2);
  for (size_t side = 0; side < sides; ++side) {
    for (const auto& [v, d] : Distances(n.nodes[side], options.reach)) {
      auto [it, inserted] = seen.try_emplace(v, std::array<int, 2>{kFar, kFar});
      it->second[side] = d;
    }
  }
  // The shortest connection between two foci, through resources both reach.
  int connection = kFar;
  if (sides == 2) {
    for (const auto& [v, d] : seen) connection = std::min(connection, d[0] + d[1]);
  }
  struct Candidate {
    bool on_connection;
    int distance;
    catalog::ResourceId id;
  };
  std::vector<Candidate> candidates;
  for (const auto& [v, d] : seen) {
    if (std::find(n.nodes.begin(), n.nodes.begin() + n.focus_count, v) !=
        n.nodes.begin() + n.focus_count) {
      continue;
    }
    candidates.push_back({connection < kFar && d[0] + d[1] == connection, std::min(d[0], d[1]), v});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.on_connection != b.on_connection) return a.on_connection;
    if (a.distance != b.distance) return a.distance < b.distance;
    return a.id < b.id;
  });
  const size_t room =
      options.max_nodes > n.focus_count ? options.max_nodes - n.focus_count : size_t{0};
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (i < room) {
      n.nodes.push_back(candidates[i].id);
    } else {
      ++n.left_out;
    }
  }

  // The graph's edges among the drawn resources, the most telling one per ordered pair.
  absl::flat_hash_set<catalog::ResourceId> drawn(n.nodes.begin(), n.nodes.end());
  absl::flat_hash_map<std::pair<catalog::ResourceId, catalog::ResourceId>, uint32_t> best;
  const auto& edges = graph_->edges();
  for (catalog::ResourceId v : n.nodes) {
    for (uint32_t s = offsets_[v]; s < offsets_[v + 1]; ++s) {
      const DeclaredEdge& e = edges[steps_[s].edge];
      if (e.source != v || !drawn.contains(e.target)) continue;
      auto [it, inserted] = best.try_emplace({e.source, e.target}, steps_[s].edge);
      if (!inserted && EdgePreference(e) < EdgePreference(edges[it->second])) {
        it->second = steps_[s].edge;
      }
    }
  }
  for (const auto& [pair, index] : best) {
    const DeclaredEdge& e = edges[index];
    n.edges.push_back({e.source, e.target, e.kind, e.origin});
  }
  std::sort(n.edges.begin(), n.edges.end(), [](const auto& a, const auto& b) {
    return std::pair(a.source, a.target) < std::pair(b.source, b.target);
  });
  return n;
}

std::string_view NeighbourhoodEdgeLabel(const NeighbourhoodEdge& e) {
  switch (e.origin) {
    case EdgeOrigin::kContainment:
      return "contains";
    case EdgeOrigin::kStage:
      return "stage";
    case EdgeOrigin::kAutorequire:
      return e.kind == EdgeKind::kNotify ? "autonotify" : "autorequire";
    case EdgeOrigin::kPuppet:
      return e.kind == EdgeKind::kNotify ? "notify" : "puppet";
    case EdgeOrigin::kParameter:
      break;
  }
  return e.kind == EdgeKind::kNotify ? "notify" : "";
}

std::string MermaidLabel(std::string_view text, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + len > text.size()) len = 1;
    if (chars == max_chars) {
      out += "…";
      break;
    }
    ++chars;
    if (c >= 0x80) {
      // Multi-byte UTF-8 is text to Mermaid; a stray byte becomes the replacement character.
      bool valid = len > 1;
      for (size_t k = 1; k < len && valid; ++k) {
        valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      }
      // A C1 or bidirectional control (U+202E) shows as its escape, "\u202e".
      if (valid && base::IsFormatControl(base::DecodeUtf8(text, i).code_point)) {
        out += "#92;" + base::TerminalSafe(text.substr(i, len)).substr(1);
      } else {
        out += valid ? std::string(text.substr(i, len)) : std::string("\xEF\xBF\xBD");
      }
      i += valid ? len : 1;
      continue;
    }
    if (c < 0x20 || c == 0x7F) {
      out += ' ';
    } else if (Harmless(c)) {
      out += static_cast<char>(c);
    } else {
      out += "#" + std::to_string(c) + ";";
    }
    ++i;
  }
  return out;
}

std::string_view MermaidLegend() {
  return "Thick red: the relationship to add. Black: relationships Puppet already has (notify: "
         "also a refresh). Grey: containment (a class holds its resources). Red boxes: the "
         "finding's two resources.";
}

void WriteNeighbourhoodDot(const Neighbourhood& n, const catalog::Catalog& cat, std::ostream& out) {
  auto id = [&](catalog::ResourceId r) {
    return "n" + std::to_string(std::find(n.nodes.begin(), n.nodes.end(), r) - n.nodes.begin());
  };
  out << "digraph neighbourhood {\n  rankdir=LR;\n  node [shape=box, fontsize=11];\n";
  for (size_t i = 0; i < n.nodes.size(); ++i) {
    const catalog::Resource& r = cat.resource(n.nodes[i]);
    std::string label = r.ref;
    if (std::string loc = ShortLocation(r); !loc.empty()) label += "\n" + loc;
    out << "  n" << i << " [label=" << DotQuoted(label);
    if (i < n.focus_count) out << ", color=\"#cc2222\", penwidth=2";
    out << "];\n";
  }
  for (const NeighbourhoodEdge& e : n.edges) {
    out << "  " << id(e.source) << " -> " << id(e.target);
    std::string_view label = NeighbourhoodEdgeLabel(e);
    if (e.origin == EdgeOrigin::kContainment || e.origin == EdgeOrigin::kStage) {
      out << " [label=" << DotQuoted(label) << ", color=grey]";
    } else if (!label.empty()) {
      out << " [label=" << DotQuoted(label) << "]";
    }
    out << ";\n";
  }
  if (n.missing) {
    out << "  " << id(n.missing->source) << " -> " << id(n.missing->target)
        << " [label=" << DotQuoted("missing " + std::string(n.missing->label))
        << ", penwidth=3, color=\"#cc2222\", fontcolor=\"#cc2222\"];\n";
  }
  if (n.left_out > 0) {
    out << "  // " << n.left_out << " more related resource" << (n.left_out == 1 ? "" : "s")
        << " not drawn\n";
  }
  out << "}\n";
}

void WriteNeighbourhoodMermaid(const Neighbourhood& n, const catalog::Catalog& cat,
                               std::ostream& out) {
  auto id = [&](catalog::ResourceId r) {
    return "n" + std::to_string(std::find(n.nodes.begin(), n.nodes.end(), r) - n.nodes.begin());
  };
  out << "flowchart LR\n";
  for (size_t i = 0; i < n.nodes.size(); ++i) {
    const catalog::Resource& r = cat.resource(n.nodes[i]);
    out << "  n" << i << "[\"" << MermaidLabel(r.ref);
    if (std::string loc = ShortLocation(r); !loc.empty()) out << "<br/>" << MermaidLabel(loc);
    out << "\"]\n";
  }
  // Mermaid styles links by their index in order of definition: containment (and the run
  // stage) grey, the missing relationship last, thick and red.
  std::vector<size_t> light;
  for (size_t k = 0; k < n.edges.size(); ++k) {
    const NeighbourhoodEdge& e = n.edges[k];
    std::string_view label = NeighbourhoodEdgeLabel(e);
    out << "  " << id(e.source) << " -->";
    if (!label.empty()) out << "|" << label << "|";
    out << " " << id(e.target) << "\n";
    if (e.origin == EdgeOrigin::kContainment || e.origin == EdgeOrigin::kStage) light.push_back(k);
  }
  if (n.missing) {
    out << "  " << id(n.missing->source) << " ==>|missing " << n.missing->label << "| "
        << id(n.missing->target) << "\n";
  }
  if (!light.empty()) {
    out << "  linkStyle ";
    for (size_t k = 0; k < light.size(); ++k) out << (k ? "," : "") << light[k];
    out << " stroke:#b0b0b0,color:#808080\n";
  }
  if (n.missing) out << "  linkStyle " << n.edges.size() << " " << kMissingLinkStyle << "\n";
  if (n.focus_count > 0) {
    out << "  classDef focus stroke:#cc2222,stroke-width:2px\n  class ";
    for (size_t i = 0; i < n.focus_count; ++i) out << (i ? "," : "") << "n" << i;
    out << " focus\n";
  }
}

}  // namespace fsmove::graph
