// Puppet's own relationship graph (`puppet apply --graph`): a reader for the DOT it writes,
// and the mapping of its vertices and edges onto the catalog it applied.
#include "fsmove/graph/puppet_graph.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "fsmove/base/read_file.h"
#include "fsmove/catalog/file_path.h"
#include "fsmove/catalog/managed_paths.h"
#include "fsmove/catalog/resource_ref.h"
#include "pair_key.h"

namespace fsmove::graph {
namespace {

using catalog::ResourceId;

// ---- the DOT subset ----

enum class TokenKind : std::uint8_t { kId, kArrow, kPunct, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // kId: the unquoted name; kPunct: the character
  std::uint64_t line = 0;
};

class DotLexer {
 public:
  DotLexer(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  absl::StatusOr<Token> Next() {
    SkipSpaceAndComments();
    Token token;
    token.line = line_;
    if (at_ >= text_.size()) return token;
    const char c = text_[at_];
    if (c == '"') {
      token.kind = TokenKind::kId;
      ++at_;
      for (;;) {
        if (at_ >= text_.size()) {
          return absl::InvalidArgumentError(
              fmt::format("{}:{}: unterminated quoted name", source_, token.line));
        }
        const char d = text_[at_++];
        if (d == '"') break;
        if (d == '\\' && at_ < text_.size() && text_[at_] == '"') {
          token.text += '"';
          ++at_;
          continue;
        }
        if (d == '\n') ++line_;
        token.text += d;
      }
      return token;
    }
    if (c == '-' && at_ + 1 < text_.size() && text_[at_ + 1] == '>') {
      token.kind = TokenKind::kArrow;
      at_ += 2;
      return token;
    }
    if (IsBare(c)) {
      token.kind = TokenKind::kId;
      while (at_ < text_.size() && IsBare(text_[at_])) token.text += text_[at_++];
      return token;
    }
    if (std::strchr("{}[]=,;", c) != nullptr && c != '\0') {
      token.kind = TokenKind::kPunct;
      token.text = std::string(1, c);
      ++at_;
      return token;
    }
    return absl::InvalidArgumentError(fmt::format(
        "{}:{}: unexpected character '{}' (not a graph written by puppet --graph?)", source_, line_,
        static_cast<unsigned char>(c) < 0x20
            ? fmt::format("\\x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)))
            : std::string(1, c)));
  }

 private:
  static bool IsBare(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || static_cast<unsigned char>(c) >= 0x80;
  }

  void SkipSpaceAndComments() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\n') {
        ++line_;
        ++at_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++at_;
      } else if (c == '/' && at_ + 1 < text_.size() && text_[at_ + 1] == '/') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == '#' && (at_ == 0 || text_[at_ - 1] == '\n')) {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t at_ = 0;
  std::uint64_t line_ = 1;
};

class DotParser {
 public:
  DotParser(std::string_view text, std::string_view source)
      : lexer_(text, source), source_(source) {}

  absl::StatusOr<DotGraph> Parse() {
    if (absl::Status st = Advance(); !st.ok()) return st;
    if (token_.kind != TokenKind::kId || (token_.text != "digraph" && token_.text != "strict")) {
      return Error("expected 'digraph' (not a graph written by puppet --graph?)");
    }
    if (token_.text == "strict") {
      if (absl::Status st = Advance(); !st.ok()) return st;
      if (token_.kind != TokenKind::kId || token_.text != "digraph")
        return Error("expected 'digraph'");
    }
    if (absl::Status st = Advance(); !st.ok()) return st;
    if (token_.kind == TokenKind::kId) {
      graph_.name = token_.text;
      if (absl::Status st = Advance(); !st.ok()) return st;
    }
    if (!IsPunct("{")) return Error("expected '{'");
    if (absl::Status st = Advance(); !st.ok()) return st;
    while (!IsPunct("}")) {
      if (token_.kind == TokenKind::kEnd) return Error("the graph is not closed (missing '}')");
      if (absl::Status st = Statement(); !st.ok()) return st;
    }
    if (absl::Status st = Advance(); !st.ok()) return st;
    if (token_.kind != TokenKind::kEnd) return Error("text after the graph's closing '}'");
    return std::move(graph_);
  }

 private:
  absl::Status Advance() {
    absl::StatusOr<Token> next = lexer_.Next();
    if (!next.ok()) return next.status();
    token_ = std::move(*next);
    return absl::OkStatus();
  }

  bool IsPunct(std::string_view p) const {
    return token_.kind == TokenKind::kPunct && token_.text == p;
  }

  absl::Status Error(std::string_view what) const {
    const std::string found = token_.kind == TokenKind::kEnd     ? "the end of the file"
                              : token_.kind == TokenKind::kArrow ? "'->'"
                              : token_.kind == TokenKind::kPunct ? "'" + token_.text + "'"
                                                                 : "\"" + token_.text + "\"";
    return absl::InvalidArgumentError(
        fmt::format("{}:{}: {}, found {}", source_, token_.line, what, found));
  }

  std::size_t Vertex(const std::string& name, std::uint64_t line) {
    auto [it, inserted] = index_.try_emplace(name, graph_.vertices.size());
    if (inserted) graph_.vertices.push_back(DotGraph::Vertex{name, line});
    return it->second;
  }

  // `[ a = b, c = d ]`; the values are not needed.
  absl::Status Attributes() {
    if (!IsPunct("[")) return absl::OkStatus();
    if (absl::Status st = Advance(); !st.ok()) return st;
    while (!IsPunct("]")) {
      if (token_.kind != TokenKind::kId) return Error("expected an attribute name or ']'");
      if (absl::Status st = Advance(); !st.ok()) return st;
      if (!IsPunct("=")) return Error("expected '=' after an attribute name");
      if (absl::Status st = Advance(); !st.ok()) return st;
      if (token_.kind != TokenKind::kId) return Error("expected an attribute value");
      if (absl::Status st = Advance(); !st.ok()) return st;
      if (IsPunct(",") || IsPunct(";")) {
        if (absl::Status st = Advance(); !st.ok()) return st;
      }
    }
    return Advance();
  }

  absl::Status Statement() {
    if (token_.kind != TokenKind::kId) return Error("expected a node, an edge or an attribute");
    Token first = token_;
    if (absl::Status st = Advance(); !st.ok()) return st;
    if (IsPunct("=")) {  // graph attribute: label = "..."
      if (absl::Status st = Advance(); !st.ok()) return st;
      if (token_.kind != TokenKind::kId) return Error("expected a value after '='");
      if (absl::Status st = Advance(); !st.ok()) return st;
    } else if (token_.kind == TokenKind::kArrow) {
      std::size_t from = Vertex(first.text, first.line);
      while (token_.kind == TokenKind::kArrow) {
        if (absl::Status st = Advance(); !st.ok()) return st;
        if (token_.kind != TokenKind::kId) return Error("expected a node name after '->'");
        const std::size_t to = Vertex(token_.text, token_.line);
        graph_.edges.push_back(DotGraph::Edge{from, to, first.line});
        from = to;
        if (absl::Status st = Advance(); !st.ok()) return st;
      }
      if (absl::Status st = Attributes(); !st.ok()) return st;
    } else {
      const bool defaults = first.text == "node" || first.text == "edge" || first.text == "graph";
      if (!defaults) Vertex(first.text, first.line);
      if (!IsPunct("[") && !IsPunct(";") && !IsPunct("}") && token_.kind != TokenKind::kId) {
        return Error("expected '->', '[' or '=' after a name");
      }
      if (absl::Status st = Attributes(); !st.ok()) return st;
    }
    if (IsPunct(";")) return Advance();
    return absl::OkStatus();
  }

  DotLexer lexer_;
  std::string_view source_;
  Token token_;
  DotGraph graph_;
  absl::flat_hash_map<std::string, std::size_t> index_;
};

// ---- vertices ----

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const char c =
        text[i] >= 'A' && text[i] <= 'Z' ? static_cast<char>(text[i] - 'A' + 'a') : text[i];
    if (c != prefix[i]) return false;
  }
  return true;
}

// Resources every Puppet graph has that catalogs do not list.
bool IsDefaultResource(std::string_view name) {
  for (std::string_view d :
       {"Schedule[puppet]", "Schedule[hourly]", "Schedule[daily]", "Schedule[weekly]",
        "Schedule[monthly]", "Schedule[never]", "Filebucket[puppet]"}) {
    if (name == d) return true;
  }
  return false;
}

// File[X] that puppetlabs-concat's Concat_file generates (`generate`, before Puppet builds
// its graph): common (every concat), so not worth a warning.
bool IsGeneratedFile(std::string_view name, const catalog::Catalog& catalog,
                     const catalog::ManagedPaths& paths) {
  std::optional<catalog::ResourceRef> ref = catalog::ParseResourceRef(name);
  if (!ref || ref->type != "File" || !catalog::IsAbsolutePath(ref->title)) return false;
  for (const ResourceId id : paths.ManagersOf(catalog::CanonicalFilePath(ref->title))) {
    if (catalog.resource(id).type == "Concat_file") return true;
  }
  return false;
}

// "Whit[Admissible_class[Foo::Bar]]": Puppet upper-cases the first letter of
// "admissible_Class[Foo::Bar]" and lower-cases the type's first letter
// ("Whit[Completed_containment::Outer[one]]"); types resolve case-insensitively.
PuppetVertex ClassifyVertex(std::string_view name, const catalog::Catalog& catalog,
                            const catalog::ManagedPaths& paths) {
  PuppetVertex vertex;
  if (name.starts_with("Whit[") && name.ends_with("]")) {
    std::string_view inner = name.substr(5, name.size() - 6);
    PuppetVertexKind kind = PuppetVertexKind::kUnknown;
    if (StartsWithNoCase(inner, "admissible_")) {
      kind = PuppetVertexKind::kAdmissible;
      inner.remove_prefix(11);
    } else if (StartsWithNoCase(inner, "completed_")) {
      kind = PuppetVertexKind::kCompleted;
      inner.remove_prefix(10);
    }
    if (kind == PuppetVertexKind::kUnknown) return vertex;
    if (std::optional<ResourceId> id = catalog.ResolveRef(inner)) {
      vertex.kind = kind;
      vertex.resource = *id;
    } else if (StartsWithNoCase(inner, "class[settings]")) {
      vertex.kind = PuppetVertexKind::kDefault;
    }
    return vertex;
  }
  if (std::optional<ResourceId> id = catalog.ResolveRef(name)) {
    vertex.kind = PuppetVertexKind::kResource;
    vertex.resource = *id;
  } else if (IsDefaultResource(name) || name == "Class[Settings]") {
    vertex.kind = PuppetVertexKind::kDefault;
  } else if (IsGeneratedFile(name, catalog, paths)) {
    vertex.kind = PuppetVertexKind::kGenerated;
  }
  return vertex;
}

// A name on one line of a warning (titles may hold newlines).
std::string Printable(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return out;
}

bool IsKnown(const PuppetVertex& v) {
  return v.kind != PuppetVertexKind::kUnknown && v.kind != PuppetVertexKind::kDefault &&
         v.kind != PuppetVertexKind::kGenerated;
}

// Vertices that stand for no catalog resource but carry relationships: joined through.
bool IsPassThrough(const PuppetVertex& v) {
  return v.kind == PuppetVertexKind::kUnknown || v.kind == PuppetVertexKind::kGenerated;
}

}  // namespace

absl::StatusOr<DotGraph> ParseDot(std::string_view text, std::string_view source_name) {
  return DotParser(text, source_name).Parse();
}

absl::StatusOr<std::string> ReadPuppetGraphFile(int dir_fd, const std::string& name) {
  return base::ReadUntrustedFile(dir_fd, name, "Puppet's graph", kMaxPuppetGraphBytes);
}

PuppetGraph MapPuppetGraph(DotGraph dot, std::string_view source_name,
                           const catalog::Catalog& catalog, std::span<const ObservedEdge> labels) {
  PuppetGraph graph;
  graph.source_name = std::string(source_name);
  graph.dot = std::move(dot);
  const DotGraph& d = graph.dot;
  graph.vertices.reserve(d.vertices.size());
  const catalog::ManagedPaths paths(catalog);
  for (const DotGraph::Vertex& v : d.vertices) {
    graph.vertices.push_back(ClassifyVertex(v.name, catalog, paths));
    if (graph.vertices.back().kind == PuppetVertexKind::kUnknown) {
      graph.warnings.push_back(
          fmt::format("{}:{}: {} is not in the catalog (relationships through it are kept)",
                      source_name, v.line, Printable(v.name)));
    }
  }

  absl::flat_hash_set<std::uint64_t> notify_pairs;
  for (const catalog::Relationship& r : catalog.relationships()) {
    if (r.kind == catalog::RelationshipKind::kNotify)
      notify_pairs.insert(PairKey(r.source, r.target));
  }
  for (const ObservedEdge& e : labels) {
    if (e.kind == EdgeKind::kNotify) notify_pairs.insert(PairKey(e.source, e.target));
  }
  absl::flat_hash_set<std::uint64_t> contains;
  for (const catalog::ContainmentEdge& c : catalog.containment()) {
    contains.insert(PairKey(c.container, c.member));
  }

  std::vector<std::vector<std::size_t>> successors(d.vertices.size());
  for (const DotGraph::Edge& e : d.edges) successors[e.from].push_back(e.to);

  absl::flat_hash_set<std::uint64_t> emitted;
  auto emit = [&](ResourceId source, ResourceId target) {
    if (source == target || !emitted.insert(PairKey(source, target)).second) return;
    ObservedEdge edge;
    edge.source = source;
    edge.target = target;
    edge.kind =
        notify_pairs.contains(PairKey(source, target)) ? EdgeKind::kNotify : EdgeKind::kBefore;
    edge.rule = "puppet:graph";
    graph.edges.push_back(edge);
  };
  // A relationship leaves a resource or a completed whit and enters a resource or an
  // admissible whit; what leaves an admissible whit or enters a completed one is containment.
  auto is_source = [](const PuppetVertex& v) {
    return v.kind == PuppetVertexKind::kResource || v.kind == PuppetVertexKind::kCompleted;
  };
  auto is_target = [](const PuppetVertex& v) {
    return v.kind == PuppetVertexKind::kResource || v.kind == PuppetVertexKind::kAdmissible;
  };
  for (const DotGraph::Edge& e : d.edges) {
    const PuppetVertex& from = graph.vertices[e.from];
    const PuppetVertex& to = graph.vertices[e.to];
    if (!IsKnown(from)) continue;
    if (is_source(from) && is_target(to)) {
      emit(from.resource, to.resource);
    } else if (is_source(from) && IsPassThrough(to)) {
      // Join the path through unknown vertices to the known ones it reaches.
      std::vector<bool> seen(d.vertices.size(), false);
      std::vector<std::size_t> stack = {e.to};
      while (!stack.empty()) {
        const std::size_t v = stack.back();
        stack.pop_back();
        if (seen[v]) continue;
        seen[v] = true;
        for (const std::size_t next : successors[v]) {
          const PuppetVertex& n = graph.vertices[next];
          if (IsPassThrough(n)) {
            stack.push_back(next);
          } else if (is_target(n)) {
            emit(from.resource, n.resource);
          }
        }
      }
    } else if (IsKnown(to)) {
      // Containment: admissible_X -> member, member -> completed_X, admissible_X ->
      // completed_X (an empty container). The catalog's containment must say the same.
      const bool empty = from.kind == PuppetVertexKind::kAdmissible &&
                         to.kind == PuppetVertexKind::kCompleted && from.resource == to.resource;
      const ResourceId container =
          from.kind == PuppetVertexKind::kAdmissible ? from.resource : to.resource;
      const ResourceId member =
          from.kind == PuppetVertexKind::kAdmissible ? to.resource : from.resource;
      const bool both_whits_of_one_side =
          from.kind == PuppetVertexKind::kAdmissible && to.kind == PuppetVertexKind::kCompleted;
      if (!empty && !both_whits_of_one_side && !contains.contains(PairKey(container, member))) {
        graph.warnings.push_back(fmt::format(
            "{}:{}: Puppet's graph has {} containing {}, the catalog does not", source_name, e.line,
            catalog.resource(container).ref, catalog.resource(member).ref));
      }
    }
  }
  return graph;
}

absl::StatusOr<PuppetGraph> LoadPuppetGraph(std::string_view text, std::string_view source_name,
                                            const catalog::Catalog& catalog,
                                            std::span<const ObservedEdge> labels) {
  absl::StatusOr<DotGraph> dot = ParseDot(text, source_name);
  if (!dot.ok()) return dot.status();
  if (dot->vertices.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the graph has no vertices (not a graph written by puppet --graph?)", source_name));
  }
  return MapPuppetGraph(std::move(*dot), source_name, catalog, labels);
}

GraphOptions PuppetGraphOptions(const PuppetGraph& puppet, std::vector<ObservedEdge> logged) {
  GraphOptions options;
  options.autorequires = false;
  options.observed_edges = std::move(logged);
  options.observed_edges.insert(options.observed_edges.end(), puppet.edges.begin(),
                                puppet.edges.end());
  return options;
}

std::vector<OrderingDifference> CompareOrderings(const DependencyGraph& graph,
                                                 const PuppetGraph& puppet) {
  const DotGraph& d = puppet.dot;
  const catalog::Catalog& catalog = graph.catalog();
  std::vector<std::vector<std::size_t>> successors(d.vertices.size());
  for (const DotGraph::Edge& e : d.edges) successors[e.from].push_back(e.to);
  std::vector<std::size_t> resources;  // vertices that are non-container catalog resources
  for (std::size_t v = 0; v < d.vertices.size(); ++v) {
    const PuppetVertex& p = puppet.vertices[v];
    if (p.kind == PuppetVertexKind::kResource && !catalog.resource(p.resource).is_container) {
      resources.push_back(v);
    }
  }
  std::vector<OrderingDifference> differences;
  std::vector<bool> reached(d.vertices.size());
  for (const std::size_t from : resources) {
    std::fill(reached.begin(), reached.end(), false);
    std::vector<std::size_t> stack = successors[from];
    while (!stack.empty()) {
      const std::size_t v = stack.back();
      stack.pop_back();
      if (reached[v]) continue;
      reached[v] = true;
      for (const std::size_t next : successors[v]) stack.push_back(next);
    }
    const ResourceId a = puppet.vertices[from].resource;
    for (const std::size_t to : resources) {
      const ResourceId b = puppet.vertices[to].resource;
      if (a == b) continue;
      const bool ours = graph.HappensBefore(a, b);
      if (ours != static_cast<bool>(reached[to])) {
        differences.push_back(OrderingDifference{a, b, ours, static_cast<bool>(reached[to])});
      }
    }
  }
  return differences;
}

}  // namespace fsmove::graph
