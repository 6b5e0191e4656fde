// From text replacements in one file to whole-line edits (checker::FixEdit), and from edits to
// a unified diff that `git apply` and `patch -p1` take: `--- a/PATH`, `+++ b/PATH`, hunks with
// three lines of context, "\ No newline at end of file" where a file ends without one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fsmove/checker/checker.h"
#include "fsmove/fix/declaration_edit.h"

namespace fsmove::fix {

// The lines of `text`, each with its line ending ("\n", "\r\n", or none for a last line
// without one).
std::vector<std::string_view> SplitLines(std::string_view text);

// The whole-line edits `replacements` (sorted, not overlapping) make in `text`, named `file`,
// with the lines both sides share trimmed off; sorted by line, never overlapping.
std::vector<checker::FixEdit> LineEdits(const std::string& file, std::string_view text,
                                        const std::vector<TextReplacement>& replacements);

// `text` with `edits` (all of one file, sorted, not overlapping) made.
std::string ApplyEdits(std::string_view text, const std::vector<checker::FixEdit>& edits);

// The unified diff of `edits` (of one file whose text is `text`), naming the file
// `relative_path` on both sides; empty without edits.
std::string UnifiedDiff(std::string_view relative_path, std::string_view text,
                        const std::vector<checker::FixEdit>& edits, int context = 3);

}  // namespace fsmove::fix
