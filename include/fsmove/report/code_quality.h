// GitLab Code Quality (a subset of the Code Climate issue format) for the checker's findings,
// so that GitLab shows them in the merge request's Code Quality widget and the changes view.
#pragma once

#include <string_view>

#include "fsmove/checker/checker.h"
#include "fsmove/report/findings_report.h"
#include "fsmove/report/source_root.h"
#include "nlohmann/json.hpp"

namespace fsmove::report {

// A JSON array of issues: {type "issue", check_name (rule id), description (plain text: the
// headline, the first path and the fix), categories ["Bug Risk"], fingerprint (the finding's:
// GitLab matches issues across pipelines by it), severity, location {path, lines {begin}}} for
// each finding that is neither suppressed nor hidden and each resource that is not idempotent.
// Paths are relative to the source root when inside it, as GitLab resolves them. A finding
// whose resources have no manifest has no place to be shown and is left out.
nlohmann::json FindingsToCodeQuality(const FindingsContext& c, const SourceRoot& root);

// GitLab's severity for a finding: "critical" when a replay confirmed it, else "major",
// "minor" or "info" for the SARIF levels error, warning and note.
std::string_view CodeQualitySeverity(const checker::Finding& f);

}  // namespace fsmove::report
