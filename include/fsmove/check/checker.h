// The fault checker (paper, Algorithm 1, extended): relations inferred from the trace that
// the catalog's dependency graph does not guarantee become findings. A missing ordering
// relationship (MOR): `a` produces what `b` needs and no chain of edges applies `a` first.
// A missing notifier (MN): `a` changes what service `b` reads and no refresh reaches `b`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/dependency_graph.h"

namespace fsmove::check {

enum class FaultKind : uint8_t { kMissingOrdering, kMissingNotifier };
std::string_view FaultKindName(FaultKind k);  // "MOR", "MN"
std::string_view FaultRuleId(FaultKind k);    // "missing-ordering", "missing-notifier"

// Why the relation exists: what each side did to one path.
struct PathEvidence {
  std::string path;
  analysis::Access source;  // what `source` did (produced)
  analysis::Access target;  // what `target` did (consumed, expunged, or produced too)
};

struct Finding {
  FaultKind kind = FaultKind::kMissingOrdering;
  catalog::ResourceId source = 0;  // must be applied first / must notify
  catalog::ResourceId target = 0;  // depends on it / must be notified
  bool write_write = false;        // both resources write the same path
  bool applied_in_reverse = false; // this run applied `target` before `source`
  std::vector<PathEvidence> evidence;
  uint64_t evidence_total = 0;
  std::string fix;  // e.g. "add `require => File['/etc/my.cnf']` to Exec['init'] (init.pp:7)"
};

struct CheckOptions {
  // Packages count as notifiers of the services that read their files (off by default, as
  // in the paper: a package upgrade normally restarts its own services).
  bool package_notify = false;
  std::vector<std::string> ignore_paths;  // globs, added to the defaults
  bool default_ignores = true;
  std::vector<std::string> ignore_resources;  // references; the pairs they are in are dropped
  size_t max_evidence = 16;
};

struct UnknownBlock {
  std::string ref;
  std::string source;
};

struct CheckStats {
  size_t blocks = 0;
  size_t blocks_in_catalog = 0;
  size_t blocks_generated = 0;  // resources Puppet generated, mapped to their generator
  std::vector<UnknownBlock> unknown_blocks;  // not in the catalog and no generator found
  size_t ordering_relations = 0;
  size_t notification_relations = 0;
  size_t write_write_pairs = 0;
  size_t guaranteed = 0;             // relations the graph already guarantees
  size_t package_manager_pairs = 0;  // Package-Package pairs on package-manager state
  size_t ignored_accesses = 0;       // accesses on ignored paths
};

struct CheckResult {
  std::vector<Finding> findings;  // MOR first, then MN; each sorted by source, target
  CheckStats stats;
};

absl::StatusOr<CheckResult> Check(const analysis::Analyzer& analyzer,
                                  const catalog::Catalog& catalog,
                                  const graph::DependencyGraph& graph,
                                  const CheckOptions& options);

// Puppet's reference syntax for a resource in a fix: File['/etc/my.cnf'], Class['app::db'].
std::string PuppetReference(const catalog::Resource& r);

}  // namespace fsmove::check
