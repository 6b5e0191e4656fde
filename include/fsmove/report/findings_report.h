// Reports of the checker's findings, for people (text: both resources with file:line, every
// conflicting path with both system calls and trace lines, and the fix) and for tools (JSON
// with stable field names: faults[].kind "MOR"|"MN", faults[].source/target, faults[].paths).
#pragma once

#include <ostream>
#include <string>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/base/run_summary.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/checker/completeness.h"
#include "fsmove/gating/suppressions.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/analysis_report.h"
#include "nlohmann/json.hpp"

namespace fsmove::report {

struct CheckSeconds {
  double parse_interpret = 0;
  double catalog_and_graph = 0;  // loading the catalog + building the dependency graph
  double catalog_load = 0;       // the loading part of catalog_and_graph
  double check = 0;
};

// The Puppet run's summary is the executor's (exec/run_summary.h); reports print it.
using base::FailedResource;
using base::IdempotenceSummary;
using base::NotIdempotent;
using base::RunSummary;

struct FindingsContext {
  std::string trace_name;
  // False when the trace was analysed as it streamed and not kept (`fsmove check` without
  // --save-trace): the report says once that its line numbers refer to a trace that is gone.
  bool trace_kept = true;
  const analysis::Analyzer* analyzer = nullptr;
  const catalog::Catalog* catalog = nullptr;
  const graph::DependencyGraph* graph = nullptr;
  // The graph Puppet wrote (`puppet apply --graph`) when the findings were checked against
  // it; empty: fsmove's model of the catalog.
  std::string puppet_graph;
  const checker::CheckResult* result = nullptr;
  CheckSeconds seconds;
  const RunSummary* run = nullptr;
  // Whether the check saw the whole apply (failed, skipped, never evaluated resources); null:
  // not assessed (reports say nothing of it).
  const checker::Completeness* completeness = nullptr;
  bool allow_failed = false;  // --allow-failed: an incomplete check does not fail the run
  // Findings the project accepted (configuration ignore_pairs, baseline); null: none.
  const gating::Suppressions* suppressions = nullptr;
  // Text and SARIF show suppressed findings in full (they are always counted, and JSON
  // always lists them under "suppressed").
  bool show_suppressed = false;
  // Show findings of low confidence in text (--all); JSON and SARIF always carry them.
  bool show_low = false;
  bool IsHidden(size_t finding) const;  // low confidence, not shown without --all

  bool IsSuppressed(size_t finding) const {
    return suppressions != nullptr && suppressions->IsSuppressed(finding);
  }
  // Findings that fail the run: not suppressed (nor hidden) nor fixed in place (--fix), and
  // the resources that are not idempotent. `confirmed_only` (--fail-on confirmed): only
  // confirmed findings and those.
  size_t ReportedCount(bool confirmed_only = false) const;
  const std::vector<NotIdempotent>& not_idempotent() const;
};

// The Puppet-run part of a report; empty when there was no run.
void WriteRunText(std::ostream& out, const RunSummary& run);
nlohmann::json RunToJson(const RunSummary& run);

// Whether the check saw the whole apply: nothing when it did; else what failed, was skipped or
// was never evaluated, and the evidence lost with them (at most `max_listed` resources of each
// kind; JSON lists all).
void WriteCompletenessText(std::ostream& out, const checker::Completeness& c, bool allow_failed,
                           size_t max_listed = 20);
// {complete, catalog_resources, evaluated, failed[], skipped[], not_evaluated[] of {resource,
// message?, evidence_lost}, apply_problems[], summary, allow_failed}.
nlohmann::json CompletenessToJson(const checker::Completeness& c, bool allow_failed);

// Text: each finding that is not suppressed, then a line per suppressed finding and the
// baseline entries no longer found. JSON: "faults" (not suppressed), "suppressed" (same
// fields plus "suppression": {kind "ignore_pair"|"baseline", justification}), "summary"
// {MOR, MN, suppressed}, "baseline" {file, suppressed, absent[]} with a baseline; every
// fault has its "fingerprint".
void WriteFindingsText(std::ostream& out, const FindingsContext& c);

// The JSON report's schema_version (docs/json-report.schema.json, installed in
// /usr/share/fsmove): raised when a field is renamed or removed or changes its meaning, never
// for a new optional one.
inline constexpr int kJsonReportSchemaVersion = 1;

nlohmann::json FindingsToJson(const FindingsContext& c);

// "must be applied before" / "must notify" sentences shared by the text, SARIF and JUnit
// reports: "Exec[use config] must be applied after File[/etc/app.conf]".
std::string FindingHeadline(const checker::Finding& f, const catalog::Catalog& cat);
// What each side did to one path: "produced by File[x] (rename at line 431418), consumed by
// Exec[y] (openat at line 431759)".
// What a user does about a resource that is not idempotent.
std::string NotIdempotentFix(const NotIdempotent& n, const catalog::Catalog& cat);
// "changes on every apply", "converged on the third apply", ...
std::string NotIdempotentBehaviour(const NotIdempotent& n);
// The resource in the catalog, or null (a generated resource).
const catalog::Resource* NotIdempotentResource(const NotIdempotent& n, const catalog::Catalog& cat);
// Stable identity, like a finding's: SHA-256 of "fsmove-finding/v1\nnot-idempotent\n" + ref.
std::string NotIdempotentFingerprint(const NotIdempotent& n);

std::string EvidenceText(const checker::PathEvidence& e, const catalog::Resource& source,
                         const catalog::Resource& target);

// Why a piece of evidence is weaker than its accesses: the rule and the knowledge table's row it
// weakened it by, with the row's source ("weakened by ambient-configuration, row
// ambient.resolv-conf (src/checker/knowledge/ambient_configuration.tsv:12): resolv.conf(5): ...").
std::string CitationText(const checker::Citation& c);
// The same as a JSON object (docs/json-report.schema.json: citation).
nlohmann::json CitationJson(const checker::Citation& c);

}  // namespace fsmove::report
