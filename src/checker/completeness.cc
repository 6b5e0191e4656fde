// Whether a check saw the whole catalog applied; see completeness.h.
#include "fsmove/checker/completeness.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"

namespace fsmove::checker {
namespace {

// The first lines of a message, for a list of resources (the run's summary has it whole).
std::string FirstLines(std::string_view text, size_t lines) {
  size_t end = 0;
  for (size_t n = 0; n < lines && end != std::string_view::npos; ++n) {
    end = text.find('\n', end == 0 ? 0 : end + 1);
  }
  return std::string(end == std::string_view::npos ? text : text.substr(0, end));
}

std::string_view EvidenceLost(GapKind k) {
  switch (k) {
    case GapKind::kFailed:
      return "its block stops where it failed: what it would have done after is not in the trace";
    case GapKind::kSkipped:
      return "its block is empty: nothing it would have read or written is in the trace";
    case GapKind::kNotEvaluated:
      return "no block in the trace: nothing it would have read or written was seen";
  }
  return "";
}

}  // namespace

std::string_view GapKindName(GapKind k) {
  switch (k) {
    case GapKind::kFailed:
      return "failed";
    case GapKind::kSkipped:
      return "skipped";
    case GapKind::kNotEvaluated:
      return "not-evaluated";
  }
  return "?";
}

size_t Completeness::Count(GapKind k) const {
  return static_cast<size_t>(
      std::count_if(gaps.begin(), gaps.end(), [k](const ResourceGap& g) { return g.kind == k; }));
}

std::string Completeness::Summary() const {
  if (complete()) return "";
  std::string out;
  auto add = [&out](size_t n, std::string_view what) {
    if (n == 0) return;
    out += out.empty() ? fmt::format("{} resource{} {}", n, n == 1 ? "" : "s", what)
                       : fmt::format(", {} {}", n, what);
  };
  add(Count(GapKind::kFailed), "failed");
  add(Count(GapKind::kSkipped), "skipped");
  add(Count(GapKind::kNotEvaluated), "never evaluated");
  if (!out.empty()) out += fmt::format(" ({} of {} evaluated)", evaluated, catalog_resources);
  for (const std::string& p : apply_problems) out += (out.empty() ? "" : "; ") + p;
  for (const base::BudgetHit& hit : limits_hit) out += (out.empty() ? "" : "; ") + hit.Sentence();
  return out;
}

std::string Completeness::Headline() const {
  return (apply_complete() ? "fsmove reached a limit of its own: "
                           : "Puppet did not apply the whole catalog: ") +
         Summary();
}

Completeness AssessCompleteness(const analysis::AnalysisResult& analysis,
                                const catalog::Catalog& catalog, const CheckResult& result,
                                const ApplyFacts* run) {
  Completeness c;
  c.catalog_resources = catalog.size();
  c.evaluated = catalog.size() - std::min(catalog.size(), result.stats.not_evaluated.size());

  // Failed and skipped resources, each once: Puppet's log (fsmove check) first, for its
  // whole message, then what the trace's messages add (fsmove analyze has only those).
  struct Entry {
    ResourceGap gap;
    size_t order = 0;  // catalog position, or past the end for a resource it lacks
  };
  std::vector<Entry> entries;
  absl::flat_hash_set<std::string> seen;  // "kind\nref"
  auto add = [&](GapKind kind, const std::string& ref, std::string_view message) {
    if (!seen.insert(fmt::format("{}\n{}", static_cast<int>(kind), ref)).second) return;
    Entry e;
    e.gap.kind = kind;
    e.gap.ref = ref;
    e.gap.resource = ref.empty() ? std::nullopt : catalog.ResolveRef(ref);
    e.gap.message = FirstLines(message, 3);
    e.gap.evidence_lost = std::string(EvidenceLost(kind));
    e.order = e.gap.resource ? *e.gap.resource : catalog.size();
    entries.push_back(std::move(e));
  };
  if (run != nullptr) {
    for (const ApplyFacts::Failed& f : run->failed) add(GapKind::kFailed, f.ref, f.message);
  }
  for (const strace::PuppetProblem& p : analysis.problems()) {
    switch (p.kind) {
      case strace::ProblemKind::kResourceFailed:
        add(GapKind::kFailed, p.ref, p.message);
        break;
      case strace::ProblemKind::kResourceSkipped:
        add(GapKind::kSkipped, p.ref, "");
        break;
      case strace::ProblemKind::kApplyFailed:
        if (std::find(c.apply_problems.begin(), c.apply_problems.end(), "Puppet: " + p.message) ==
            c.apply_problems.end()) {
          c.apply_problems.push_back("Puppet: " + p.message);
        }
        break;
      case strace::ProblemKind::kNone:
        break;
    }
  }
  // A resource that failed before Puppet evaluated it ("Provider redhat is not functional on
  // this host") is listed once, as failed.
  absl::flat_hash_set<catalog::ResourceId> listed;
  for (const Entry& e : entries) {
    if (e.gap.resource) listed.insert(*e.gap.resource);
  }
  for (catalog::ResourceId id : result.stats.not_evaluated) {
    if (!listed.contains(id)) add(GapKind::kNotEvaluated, catalog.resource(id).ref, "");
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.gap.kind != b.gap.kind) return a.gap.kind < b.gap.kind;
    if (a.order != b.order) return a.order < b.order;
    return a.gap.ref < b.gap.ref;
  });
  for (Entry& e : entries) c.gaps.push_back(std::move(e.gap));

  c.limits_hit = analysis.limits_hit;
  if (run != nullptr) {
    c.limits_hit.insert(c.limits_hit.end(), run->limits_hit.begin(), run->limits_hit.end());
  }
  if (run != nullptr) {
    if (!run->unfinished.empty()) {
      // The resource Puppet was still at: its block began and never ended (a Service whose
      // start never returns).
      const analysis::BlockInfo* open = nullptr;
      for (size_t id = 0; analysis.blocks != nullptr && id < analysis.blocks->size(); ++id) {
        const analysis::BlockInfo& b = analysis.blocks->info(static_cast<analysis::BlockId>(id));
        if (b.begins > b.ends && (open == nullptr || b.first_line > open->first_line)) open = &b;
      }
      c.apply_problems.push_back(
          open == nullptr
              ? fmt::format("the apply did not finish ({})", run->unfinished)
              : fmt::format("the apply did not finish ({}) while Puppet was applying {}: its "
                            "block began at trace line {} and never ended",
                            run->unfinished, open->ref, open->first_line));
    } else if (run->exit_code != 0) {
      c.apply_problems.push_back(fmt::format("puppet apply exited with code {}", run->exit_code));
    }
  }
  return c;
}

}  // namespace fsmove::checker
