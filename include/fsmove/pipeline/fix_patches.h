// --fix-diff and --fix (issue 25): the findings' patches planned (fix/), checked with
// `puppet parser validate` and puppet-lint, verified by the caller's re-check (fsmove check)
// or left unverified (fsmove analyze), then written as one unified diff or made in place.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fsmove/base/diagnostic.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/fix/fix_planner.h"
#include "fsmove/report/findings_report.h"

namespace fsmove::pipeline {

struct FixSettings {
  std::string diff_file;  // --fix-diff FILE (may be empty with --fix)
  bool apply = false;     // --fix: make the verified patches in the checked code
  fix::FixScope scope;    // the checked code
  // Why patches are not verified when no verifier is given (fsmove analyze).
  std::string unverified_reason =
      "not verified: fsmove analyze has no sandbox to re-check the patched code in (fsmove "
      "check --fix-diff verifies each patch)";
};

// Verifies the planned patches of `result` (those of `planner`, verdict not kFailed): sets each
// one's verdict to kVerified or kFailed with the reason. fsmove check re-runs the check on a
// patched copy.
using VerifyFixes = std::function<void(const report::FindingsContext&, checker::CheckResult*,
                                       const fix::FixPlanner&)>;

// Plans a patch for each finding that counts (not suppressed, not hidden), checks them with
// puppet parser validate and puppet-lint, runs `verify` (may be null: verdict kNotRun), then
// writes the diff of every patch still offered to settings.diff_file and, with apply, makes
// them in place (only verified ones). `say` says what was written (Info).
absl::Status MakeFixes(const FixSettings& settings, const report::FindingsContext& ctx,
                       checker::CheckResult* result, const VerifyFixes& verify,
                       const base::DiagnosticSink& say);

// The findings of `result` that `ctx` counts: not suppressed, not hidden.
std::vector<size_t> CountedFindings(const report::FindingsContext& ctx,
                                    const checker::CheckResult& result);

}  // namespace fsmove::pipeline
