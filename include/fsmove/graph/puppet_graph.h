// Puppet's own relationship graph, as `puppet apply --graph` writes it
// (expanded_relationships.dot): read safely, parsed, mapped onto the catalog it applied.
#ifndef FSMOVE_GRAPH_PUPPET_GRAPH_H_
#define FSMOVE_GRAPH_PUPPET_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/dependency_graph.h"

namespace fsmove::graph {

// The subset of DOT that Puppet's DOT::DOTDigraph writes: `digraph NAME { ... }` with
// graph attributes (`label = "..."`), node statements `"name" [ attr = value, ... ]` and
// edge statements `"from" -> "to" [ ... ]`. Names are quoted, only '"' escaped (as \"),
// newlines raw. Vertices are resource refs and whits (`Whit[Admissible_class[Foo]]`).
struct DotGraph {
  struct Vertex {
    std::string name;
    std::uint64_t line = 0;  // where it first appears
  };
  struct Edge {
    std::size_t from = 0;  // index into vertices
    std::size_t to = 0;
    std::uint64_t line = 0;
  };
  std::string name;  // "Expanded_relationships", "Relationships"
  std::vector<Vertex> vertices;
  std::vector<Edge> edges;
};

// Errors name the source and the line ("g.dot:12: expected '->' or '['...").
absl::StatusOr<DotGraph> ParseDot(std::string_view text, std::string_view source_name);

// Larger graph files are refused. Puppet writes about 110 bytes per vertex and per edge
// (measured on the corpus graphs): 10,000 resources and 20,000 edges make about 3 MB.
inline constexpr std::size_t kMaxPuppetGraphBytes = std::size_t{64} << 20;

// Reads a file Puppet wrote where untrusted code (the module under test) could have put
// something else: `name` is opened relative to `dir_fd` (AT_FDCWD: a path) without following
// a final symlink and without blocking on a FIFO, and must be a regular file of at most
// kMaxPuppetGraphBytes.
absl::StatusOr<std::string> ReadPuppetGraphFile(int dir_fd, const std::string& name);

// What a vertex of Puppet's graph stands for in the catalog.
enum class PuppetVertexKind : std::uint8_t {
  kResource,    // a catalog resource (a container only in relationships.dot)
  kAdmissible,  // Whit[Admissible_X]: the start of container X
  kCompleted,   // Whit[Completed_X]: the end of container X
  kDefault,     // Puppet's own default resources (Schedule[daily], Filebucket[puppet], ...)
  kGenerated,   // File[X] a Concat_file of the catalog generates: paths through it are kept
  kUnknown,     // not in the catalog: a warning; paths through it are kept
};

struct PuppetVertex {
  PuppetVertexKind kind = PuppetVertexKind::kUnknown;
  catalog::ResourceId resource = 0;  // kResource, kAdmissible, kCompleted
};

struct PuppetGraph {
  std::string source_name;
  DotGraph dot;
  std::vector<PuppetVertex> vertices;  // one per dot.vertices
  // Every relationship of Puppet's graph between two catalog resources (or containers),
  // with paths through unknown vertices joined: containment edges (out of an admissible
  // whit, into a completed whit) are left to the catalog's containment. An edge is kNotify
  // when the catalog declares notify/subscribe for the pair or `labels` says refresh (the
  // .dot files carry no labels), else kBefore. Rule "puppet:graph".
  std::vector<ObservedEdge> edges;
  // "g.dot:40: Foo[bar] is not in the catalog ..." (unknown vertices, containment that
  // the catalog does not have).
  std::vector<std::string> warnings;
};

// Maps a parsed graph onto the catalog Puppet applied. `labels`: relationships known to
// carry refresh (Puppet's --debug autorelation lines).
PuppetGraph MapPuppetGraph(DotGraph dot, std::string_view source_name,
                           const catalog::Catalog& catalog,
                           std::span<const ObservedEdge> labels = {});

// ParseDot + MapPuppetGraph.
absl::StatusOr<PuppetGraph> LoadPuppetGraph(std::string_view text, std::string_view source_name,
                                            const catalog::Catalog& catalog,
                                            std::span<const ObservedEdge> labels = {});

// Options for checking against Puppet's graph: its relationships replace fsmove's own
// autorequire model (Puppet's graph has every autorequire it applied, after its skip rule).
GraphOptions PuppetGraphOptions(const PuppetGraph& puppet, std::vector<ObservedEdge> logged = {});

// A pair of non-container resources (both vertices of Puppet's graph) on whose order
// `graph.HappensBefore` and reachability in Puppet's expanded graph disagree.
struct OrderingDifference {
  catalog::ResourceId first = 0;
  catalog::ResourceId second = 0;
  bool ours = false;     // graph.HappensBefore(first, second)
  bool puppets = false;  // second reachable from first in Puppet's graph
};

// Every ordered pair, compared; reachability in Puppet's graph goes through all its
// vertices (whits, unknown ones). Meaningful for expanded_relationships.dot, where
// containment is explicit.
std::vector<OrderingDifference> CompareOrderings(const DependencyGraph& graph,
                                                 const PuppetGraph& puppet);

}  // namespace fsmove::graph

#endif  // FSMOVE_GRAPH_PUPPET_GRAPH_H_
