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
// `suppressions` [{kind "external" (ignore_pairs, a baseline) or "inSource" (a comment in the
// code, with its location), status "accepted", justification}]): GitHub ignores
// `suppressions` and would open an alert for each. Every result carries `suppressions: []`
// otherwise (SARIF 3.27.23: absent means "unknown") and, with a baseline, `baselineState`
// "new" or "unchanged".
nlohmann::json FindingsToSarif(const FindingsContext& c, const SarifOptions& o);

// Each result whose finding has a patch that did not fail verification carries `fixes`
// (SARIF 3.55): one fix with the patch's description and an artifactChange per file, each edit
// a replacement whose deletedRegion runs from column 1 of its first line to column 1 of the
// line after the last (empty for an insertion: SARIF 3.30's insertion point) and whose
// insertedContent is the new lines.

// Message text per SARIF 3.11.5 and 3.11.6: '\', '[' and ']' escaped with a backslash (they
// would start embedded links), '{' and '}' doubled (they would start placeholders).
std::string SarifMessageEscape(std::string_view text);

// Shared by the review formats (SARIF, rdjson, Code Quality, markdown):
// "error" for a finding of its rule's default level or confirmed by a replay, "warning" for a
// missing notifier or one a replay did not confirm, "note" for low confidence.
std::string_view FindingLevel(const checker::Finding& f);
// Where a finding is shown: the target's declaration (where the fix goes), or the source's
// when the target has no manifest.
const catalog::Resource& PrimaryDeclaration(const checker::Finding& f, const catalog::Catalog& cat);
// The tool's page (tool.driver.informationUri; the CMake cache variable FSMOVE_INFORMATION_URI).
std::string_view ToolInformationUri();
// The page of the rule `id` (docs/rules/ID.md, under the environment's FSMOVE_RULES_URI, else
// the build's): SARIF's helpUri, rdjson's code.url, the markdown comment's links.
std::string RuleHelpUri(std::string_view id);

}  // namespace fsmove::report
