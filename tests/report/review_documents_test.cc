// The review documents of a finding with a patch (SARIF with `fixes`, rdjson with a
// suggestion, the markdown comment with its diff), written to $FSMOVE_REVIEW_DOCUMENTS_DIR when
// set: ci.review_formats validates them against the SARIF and reviewdog schemas, which the
// command line cannot produce until the fix layer fills Finding::patch.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fsmove/report/json_output.h"
#include "fsmove/report/markdown_report.h"
#include "fsmove/report/rdjson.h"
#include "fsmove/report/sarif.h"
#include "hand_made_patch.h"
#include "recorded_check.h"

namespace fsmove::testing {
namespace {

TEST(ReviewDocumentsTest, PatchedFindingDocuments) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  checker::Finding& f = run.result.findings.at(0);
  f.patch = RequirePatch(run, f);
  const catalog::Resource& target = run.catalog->resource(f.target);
  const std::string suffix = "/fixtures/faults/configure-use/bad.pp";
  report::SourceRoot root =
      report::SourceRoot::FromDirectory(target.file.substr(0, target.file.size() - suffix.size()));
  std::ostringstream markdown;
  report::MarkdownOptions o;
  o.source_root = root;
  report::WriteFindingsMarkdown(markdown, run.Context(), o);
  const std::pair<std::string, std::string> documents[] = {
      {"sarif-with-fixes.sarif", report::DumpJson(report::FindingsToSarif(run.Context(), {root}))},
      {"rdjson-with-suggestions.json",
       report::DumpJson(report::FindingsToRdjson(run.Context(), root))},
      {"markdown-with-diff.md", markdown.str()},
  };
  const char* dir = std::getenv("FSMOVE_REVIEW_DOCUMENTS_DIR");
  for (const auto& [name, text] : documents) {
    EXPECT_FALSE(text.empty()) << name;
    if (dir == nullptr) continue;
    std::ofstream out(std::string(dir) + "/" + name);
    out << text;
    EXPECT_TRUE(out.good()) << name;
  }
}

}  // namespace
}  // namespace fsmove::testing
