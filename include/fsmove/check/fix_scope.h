// --fix-diff and --fix: the checked code's scope, the files a patch may change, for `fsmove
// check` (the module, or the one manifest) and `fsmove analyze` (--source-root).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/target.h"
#include "fsmove/fix/fix_planner.h"

namespace fsmove::check {

// A module's directory, or the manifest alone (its directory is the root of the diff).
// FailedPrecondition for -e code, which has no file to patch.
absl::StatusOr<fix::FixScope> CheckFixScope(const exec::ResolvedTarget& target);

// Files under `source_root`. A catalog compiled on another machine (or checkout) names its
// manifests by that machine's paths: the prefix most of them share before a part that exists
// under the root is taken to be the root there.
fix::FixScope AnalyzeFixScope(const std::string& source_root, const catalog::Catalog& cat);

}  // namespace fsmove::check
