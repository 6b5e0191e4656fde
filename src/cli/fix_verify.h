// --fix-diff and --fix on the command line: the checked code's scope for `fsmove check` (the
// module, or the one manifest) and `fsmove analyze` (--source-root), and check's verifier,
// which re-runs the check on a patched copy of the code in a fresh sandbox.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/check_request.h"
#include "fsmove/exec/target.h"
#include "fsmove/fix/fix_planner.h"
#include "fsmove/pipeline/check_and_report.h"

namespace fsmove::cli {

// A module's directory, or the manifest alone (its directory is the root of the diff).
// FailedPrecondition for -e code, which has no file to patch.
absl::StatusOr<fix::FixScope> CheckFixScope(const exec::ResolvedTarget& target);

// Files under `source_root`. A catalog compiled on another machine (or checkout) names its
// manifests by that machine's paths: the prefix most of them share before a part that exists
// under the root is taken to be the root there.
fix::FixScope AnalyzeFixScope(const std::string& source_root, const catalog::Catalog& cat);

struct FixVerifyInputs {
  exec::CheckRequest request;  // the check's own (a copy: targets are changed)
  exec::ResolvedTarget target;
  bool full_trace = false;
  pipeline::ReportSettings settings;
  pipeline::ProjectInputs project;
  // Puppet's failed resources in the check's own run: the re-check may fail them again.
  std::vector<std::string> failed_before;
};

// Re-checks the patched code: all planned patches together, then (if that fails) each on its
// own, up to a bound; sets each patch's verdict.
pipeline::VerifyFixes MakeFixVerifier(const FixVerifyInputs& inputs);

}  // namespace fsmove::cli
