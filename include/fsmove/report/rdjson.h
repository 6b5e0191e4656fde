// reviewdog's Diagnostic Format (rdjson) for the checker's findings, so that reviewdog posts
// each as a pull-request review comment at the manifest line the fix edits, with the fix as a
// one-click suggested change (`suggestions`) when the finding has a patch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fsmove/checker/checker.h"
#include "fsmove/report/findings_report.h"
#include "fsmove/report/source_root.h"
#include "nlohmann/json.hpp"

namespace fsmove::report {

// A suggestion GitHub can apply: lines [start_line, end_line] (1-based, inclusive) of `file`
// replaced by `text` (no final newline; empty deletes them). GitHub suggestions replace whole
// lines, so an insertion replaces the line before it (or, at the top of the file, the first
// line) with that line and the new ones.
struct LineSuggestion {
  std::string file;
  int start_line = 0;
  int end_line = 0;
  std::string text;
};

// The suggestion for one edit of `patch`. An insertion needs the text of its neighbouring
// line: taken from the patch's diff (a context line of its hunk), else read from the file;
// nullopt when neither has it.
std::optional<LineSuggestion> SuggestionForEdit(const checker::FixEdit& edit,
                                                const checker::FixPatch& patch);

// {source {name "fsmove", url}, severity, diagnostics[]}: one diagnostic per finding that is
// neither suppressed nor hidden (low confidence without --all) and per resource that is not
// idempotent, at the declaration the fix edits (path relative to the source root when inside
// it), severity ERROR/WARNING/INFO as the SARIF level, code {value: rule id, url}, the source
// as a related location, the evidence as original_output, and the message in Markdown
// (reviewdog posts it as a comment; untrusted text is escaped). A patch (not failed) gives the
// finding's diagnostic the suggestion of its edit in that file, and each other edit a
// diagnostic of its own at the lines it changes (reviewdog posts one suggestion per comment,
// on the comment's lines).
nlohmann::json FindingsToRdjson(const FindingsContext& c, const SourceRoot& root);

}  // namespace fsmove::report
