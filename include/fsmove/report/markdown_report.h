// The findings as a pull-request comment or CI job summary in GitHub-flavoured Markdown: a
// heading with the counts, then per finding its kind and both resources with file:line, its
// evidence in two lines, a Mermaid picture of its neighbourhood (the missing edge dashed) and
// the suggested diff with its verification, or the fix sentence. Untrusted text is inert.
#pragma once

#include <cstddef>
#include <ostream>

#include "fsmove/graph/neighbourhood.h"
#include "fsmove/report/findings_report.h"
#include "fsmove/report/source_root.h"

namespace fsmove::report {

struct MarkdownOptions {
  // Manifests are named relative to it when inside it.
  SourceRoot source_root;
  // Findings shown in full; the rest get a line each. GitHub refuses comments over 65,536
  // characters: past `max_chars` the remaining findings get a line each too.
  size_t max_detailed = 20;
  size_t max_chars = 60000;    // kMarkdownMaxChars
  size_t max_diff_lines = 80;  // of each finding's diff
  graph::NeighbourhoodOptions picture;
};

// Shows what the text report shows: findings neither suppressed (counted) nor hidden (low
// confidence without --all; counted), and resources that are not idempotent. Starts with the
// HTML comment `<!-- fsmove-report -->` so that a CI step can find and update its comment.
void WriteFindingsMarkdown(std::ostream& out, const FindingsContext& c, const MarkdownOptions& o);
inline constexpr std::string_view kMarkdownMarker = "<!-- fsmove-report -->\n";
// GitHub's limit on a comment is 65,536 characters: what a comment of fsmove's stays within.
inline constexpr size_t kMarkdownMaxChars = 60000;

}  // namespace fsmove::report
