// Whether a check saw the whole catalog applied. A resource that failed, was skipped because
// its dependencies failed, or that Puppet never evaluated (an apply that stopped early: a
// dependency cycle found at apply time, Puppet killed) did not do what it would normally do,
// so the trace lacks its evidence and "no findings" means only "none in what ran". The
// resources come from the trace's evaltrace markers against the catalog and from Puppet's
// messages in the trace; `fsmove check` adds what its run knows (Puppet's log, exit code).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/analysis/analysis_result.h"
#include "fsmove/base/host_budget.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"

namespace fsmove::checker {

// What `fsmove check` knows of its apply besides the trace.
struct ApplyFacts {
  int exit_code = 0;  // puppet apply's (128+N: killed by signal N)
  struct Failed {
    std::string ref;      // canonical Type[title]; empty when Puppet's line named none
    std::string message;  // Puppet's whole error
  };
  std::vector<Failed> failed;
  // The apply did not run to its end (timed out, killed, trace cut): why; empty when it did.
  std::string unfinished;
  // The host's budget the run reached besides the analysis's (--save-trace's cap).
  std::vector<base::BudgetHit> limits_hit;
};

enum class GapKind : uint8_t {
  kFailed,        // Puppet reported it failed: its block stops where it failed
  kSkipped,       // "Skipping because of failed dependencies": its block holds nothing
  kNotEvaluated,  // no evaltrace marker of its own: no block at all
};
std::string_view GapKindName(GapKind k);  // "failed", "skipped", "not-evaluated"

struct ResourceGap {
  GapKind kind = GapKind::kFailed;
  std::string ref;  // as Puppet named it (a generated resource's own reference)
  std::optional<catalog::ResourceId> resource;  // the catalog's resource, when it has one
  std::string message;                          // kFailed: Puppet's error (first lines)
  // What the trace lacks because of it, one sentence ("no block: nothing it would have
  // read or written is in the trace").
  std::string evidence_lost;
};

struct Completeness {
  size_t catalog_resources = 0;  // resources of the catalog Puppet applies
  size_t evaluated = 0;          // of those, with a block of their own in the trace
  // Failed, then skipped, then never evaluated; each in catalog order (then by reference).
  std::vector<ResourceGap> gaps;
  // What stopped or failed the apply as a whole: "puppet apply exited with code 1",
  // "Puppet: Found 1 dependency cycle: ...", "the apply did not finish (...)".
  std::vector<std::string> apply_problems;
  // fsmove's own limits that were reached (the analysis's paths or inodes, the saved trace's
  // size): the check is incomplete whatever Puppet did, --allow-failed or not.
  std::vector<base::BudgetHit> limits_hit;

  bool complete() const { return gaps.empty() && apply_problems.empty() && limits_hit.empty(); }
  // Whether Puppet applied the whole catalog as far as the check knows (no gap, no problem of
  // the apply); a check can be incomplete with this true when only a limit was reached.
  bool apply_complete() const { return gaps.empty() && apply_problems.empty(); }
  size_t Count(GapKind k) const;
  // "1 resource failed, 2 skipped, 3 never evaluated (86 of 89 evaluated); puppet apply
  // exited with code 1", then each limit's sentence; empty when complete.
  std::string Summary() const;
  // What the report's heading says after "Incomplete check: ": "Puppet did not apply the whole
  // catalog: SUMMARY", or "fsmove reached a limit of its own: SUMMARY" when only a limit was.
  std::string Headline() const;
};

// `result` is the checker's (its not_evaluated list); `run` is null for `fsmove analyze`.
Completeness AssessCompleteness(const analysis::AnalysisResult& analysis,
                                const catalog::Catalog& catalog, const CheckResult& result,
                                const ApplyFacts* run);

}  // namespace fsmove::checker
