// SARIF 2.1.0 for the checker's findings, in the subset GitHub code scanning reads: one run,
// one rule per finding kind ("missing-ordering", "missing-notifier") with help and the fix,
// each result at the target resource's manifest line (the resource the fix edits) with the
// source resource as a related location, and partialFingerprints that survive line moves.
#pragma once

#include <string>
#include <string_view>

#include "fsmove/report/findings_report.h"
#include "fsmove/report/source_root.h"
#include "nlohmann/json.hpp"

namespace fsmove::report {

inline constexpr std::string_view kSarifSchemaUri =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
// The uriBaseId of locations inside the source root (GitHub's convention).
inline constexpr std::string_view kSourceRootBaseId = "%SRCROOT%";
// The partialFingerprints key of our own fingerprint (fingerprint.h).
inline constexpr std::string_view kFingerprintKey = "fsmoveFinding/v1";

struct SarifOptions {
  // Manifests inside it get relative URIs with uriBaseId %SRCROOT% (declared in
  // originalUriBaseIds); others absolute file:// URIs.
  SourceRoot source_root;
};

// Suppressed findings are results only with FindingsContext::show_suppressed (then with
// `suppressions` [{kind "external", status "accepted", justification}]): GitHub ignores
// `suppressions` and would open an alert for each. Every result carries `suppressions: []`
// otherwise (SARIF 3.27.23: absent means "unknown") and, with a baseline, `baselineState`
// "new" or "unchanged".
nlohmann::json FindingsToSarif(const FindingsContext& c, const SarifOptions& o);

// Message text per SARIF 3.11.5 and 3.11.6: '\', '[' and ']' escaped with a backslash (they
// would start embedded links), '{' and '}' doubled (they would start placeholders).
std::string SarifMessageEscape(std::string_view text);

}  // namespace fsmove::report
