// The fault checker (paper, Algorithm 1, extended): relations inferred from the trace that
// the catalog's dependency graph does not guarantee become findings. A missing ordering
// relationship (MOR): `a` produces what `b` needs and no chain of edges applies `a` first.
// A missing notifier (MN): `a` changes what service `b` reads and no refresh reaches `b`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/analysis/analysis_result.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/knowledge.h"
#include "fsmove/graph/dependency_graph.h"

namespace fsmove::checker {

enum class FaultKind : uint8_t { kMissingOrdering, kMissingNotifier };
std::string_view FaultKindName(FaultKind k);  // "MOR", "MN"
std::string_view FaultRuleId(FaultKind k);    // "missing-ordering", "missing-notifier"

// A row of the knowledge tables (knowledge.h) that a rule weakened a piece of evidence by: the
// finding's explanation cites the rule and the row, with the row's source.
struct Citation {
  std::string_view rule;                // the rule's id (rules/registry.h)
  const knowledge::Row* row = nullptr;  // never null in a finding
};

// Why the relation exists: what each side did to one path.
struct PathEvidence {
  std::string path;
  analysis::Access source;  // what `source` did (produced)
  analysis::Access target;  // what `target` did (consumed, expunged, or produced too)
  // 3: content read after a write, an entry made inside a directory the source created, or
  // both writing content; 2: a failed open; 1: a lookup (stat, access) or metadata only.
  int strength = 3;
  // The rules that weakened it below what the accesses show, by a row of a knowledge table
  // (rules that weaken by no row are not cited). In table order.
  std::vector<Citation> citations;
};

// High when some evidence shows content or a failed open; low when it is weak by nature
// (only lookups or metadata): the text report shows those only with --all.
enum class Confidence : uint8_t { kHigh, kLow };
std::string_view ConfidenceName(Confidence c);  // "high", "low"

// --confirm: what a replay of the catalog with the opposite order forced showed.
struct Confirmation {
  bool attempted = false;
  bool confirmed = false;
  // The replay proves nothing either way (it did not run to its end, Puppet stopped part-way
  // or failed other resources): never confirmed; `reason` says why.
  bool inconclusive = false;
  std::string forced;                    // "Exec[use] before File[/etc/app.conf]"
  std::vector<std::string> differences;  // what the replay did differently, confirmed or not
  std::string reason;                    // not confirmed: why
  std::string kept;                      // --keep-replays: the replay's catalog and log
  double seconds = 0;                    // the replay's wall time (sandbox, preparation, apply)
  double apply_seconds = 0;              // Puppet's apply in it
};

// A fix as a change of the checked code's own files (issue 25): filled after the check by the
// fix layer (src/fix), read by the reports. Lines are 1-based; an edit replaces lines
// [line, end_line) of `file` with `text` (each line ending in '\n'; end_line == line inserts
// before `line`).
struct FixEdit {
  std::string file;  // the manifest as the catalog names it (an absolute path)
  int line = 0;
  int end_line = 0;
  std::string text;
  // The lines replaced, as they were (what the edit removes; empty for an insertion).
  std::string old_text;
};

// Whether the patched code was applied in a fresh sandbox and the finding was gone.
enum class FixVerdict : uint8_t {
  kNotRun,    // no verification asked for (or possible: analyze has no sandbox)
  kVerified,  // compiled, applied, the finding gone and nothing new found
  kFailed,    // not written: `reason` says why
};
std::string_view FixVerdictName(FixVerdict v);  // "not-run", "verified", "failed"

struct FixPatch {
  std::vector<FixEdit> edits;  // sorted by file, then line; never overlapping
  // The unified diff of the edits, with paths relative to `root` (git apply / patch -p1 from
  // there: a/manifests/init.pp, b/manifests/init.pp).
  std::string diff;
  std::string root;         // the module's directory, or the manifest's for a manifest
  std::string description;  // one line: "require => File['/etc/x'] on Exec['y'] (init.pp:12)"
  FixVerdict verdict = FixVerdict::kNotRun;
  std::string reason;    // kFailed: why it is not offered
  bool applied = false;  // --fix made it in the checked code: the finding is fixed there
};

struct Finding {
  FaultKind kind = FaultKind::kMissingOrdering;
  catalog::ResourceId source = 0;   // must be applied first / must notify
  catalog::ResourceId target = 0;   // depends on it / must be notified
  bool write_write = false;         // both resources write the same path
  bool applied_in_reverse = false;  // this run applied `target` before `source`
  Confidence confidence = Confidence::kHigh;
  std::vector<PathEvidence> evidence;
  uint64_t evidence_total = 0;
  std::vector<std::string> paths;  // every conflicting path, sorted and unique (not capped)
  // Where the fix goes: a resource inside a defined-type instance (a concat fragment, an
  // augeas of a config define) is fixed at the outermost instance that holds it and not the
  // other side (the user's own declaration); the resource itself otherwise, or where lifting
  // would close a cycle.
  catalog::ResourceId source_declaration = 0;
  catalog::ResourceId target_declaration = 0;
  // Other pairs of the same kind whose resources are declared at the same two manifest lines
  // (instances of one defined type): one change in that code fixes them all. Sorted.
  std::vector<std::pair<catalog::ResourceId, catalog::ResourceId>> instances;
  // MOR pairs this finding's fix also orders, through edges the graph already has (A -> C
  // fixed, C -> B there: A -> B follows). Reported here rather than as findings of their own.
  std::vector<std::pair<catalog::ResourceId, catalog::ResourceId>> also_fixes;
  std::string fix;  // e.g. "add `require => File['/etc/my.cnf']` to Exec['init'] (init.pp:7)"
  // The same as a patch of the checked code, when one can be made there (never in a
  // dependency module, nor in code without a manifest line).
  std::optional<FixPatch> patch;
  std::string fingerprint;  // stable across runs; see fingerprint.h
  Confirmation confirmation;
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
  // The resources whose blocks were checked (in the catalog or generated by one, not a
  // container, not ignored), sorted by id: what a per-resource report lists.
  std::vector<catalog::ResourceId> checked_resources;
  // The catalog's resources that have no block of their own in the trace: Puppet never
  // evaluated them (a generated resource's block does not count for its generator). Sorted.
  std::vector<catalog::ResourceId> not_evaluated;
  size_t ordering_relations = 0;
  size_t notification_relations = 0;
  size_t write_write_pairs = 0;
  size_t guaranteed = 0;              // relations the graph already guarantees
  size_t against_declared_order = 0;  // the graph orders the pair the other way
  size_t no_dependency = 0;           // relations with no evidence left (see checker.cc)
  size_t commuting_edits = 0;         // write-write pairs of edits that commute
  size_t reverse_pairs_dropped = 0;   // the weaker of A -> B and B -> A
  size_t low_confidence = 0;          // findings of low confidence
  size_t fixes_closing_cycles = 0;    // findings whose fix would close a cycle (should be 0)
  size_t package_manager_pairs = 0;   // Package-Package pairs on package-manager state
  size_t ignored_accesses = 0;        // accesses on ignored paths
  // By rule id (rules/registry.h): the pairs and pieces of evidence each rule dropped (the
  // first rule in the table to drop one is counted), and the pieces it weakened. Rules that did
  // neither are absent. In the JSON report's stats.check (dropped_by_rule, weakened_by_rule).
  std::map<std::string, size_t> dropped_by_rule;
  std::map<std::string, size_t> capped_by_rule;
};

struct CheckResult {
  std::vector<Finding> findings;  // MOR first, then MN; each sorted by source, target
  CheckStats stats;
};

absl::StatusOr<CheckResult> Check(const analysis::AnalysisResult& analysis,
                                  const catalog::Catalog& catalog,
                                  const graph::DependencyGraph& graph, const CheckOptions& options);

// Puppet's reference syntax for a resource in a fix: File['/etc/my.cnf'], Class['app::db'].
std::string PuppetReference(const catalog::Resource& r);

// Puppet's single-quoted string for `text` ('it\'s').
std::string SingleQuote(std::string_view text);

}  // namespace fsmove::checker
