// reviewdog's diagnostic format on a real recorded run with a hand-made patch: the diagnostic
// at the line the fix edits, its severity and code, and the suggestion GitHub can apply (an
// insertion expressed as a replacement of the line before it); edits in other places as
// diagnostics of their own. The schema is checked from the outside (tests/ci/rdjson_test.py).
#include "fsmove/report/rdjson.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hand_made_patch.h"
#include "recorded_check.h"

namespace fsmove::testing {
namespace {

using ::testing::HasSubstr;

std::string RootOf(const catalog::Resource& r) {
  std::string suffix = "fixtures/faults/configure-use/bad.pp";
  return r.file.substr(0, r.file.size() - suffix.size() - 1);
}

TEST(RdjsonTest, FindingWithoutPatch) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 1u);
  const catalog::Resource& target = run.catalog->resource(run.result.findings[0].target);
  report::SourceRoot root = report::SourceRoot::FromDirectory(RootOf(target));
  nlohmann::json rd = report::FindingsToRdjson(run.Context(), root);
  EXPECT_EQ(rd["source"]["name"], "fsmove");
  ASSERT_EQ(rd["diagnostics"].size(), 1u);
  const nlohmann::json& d = rd["diagnostics"][0];
  EXPECT_EQ(d["severity"], "ERROR");
  EXPECT_EQ(d["code"]["value"], "missing-ordering");
  EXPECT_EQ(d["location"]["path"], "fixtures/faults/configure-use/bad.pp");
  EXPECT_EQ(d["location"]["range"]["start"]["line"], 15);
  EXPECT_FALSE(d.contains("suggestions"));
  std::string message = d["message"];
  EXPECT_THAT(message, HasSubstr("`Exec[use config]` must be applied after "
                                 "`File[/etc/app/app.conf]`"));
  EXPECT_THAT(
      message,
      HasSubstr(
          "Fix: add `require => File['/etc/app/app.conf']` to Exec\\['use config'\\] \\(/work"));
  EXPECT_EQ(d["related_locations"][0]["location"]["range"]["start"]["line"], 10);
  EXPECT_THAT(d["original_output"].get<std::string>(), HasSubstr("openat at line"));
}

TEST(RdjsonTest, InsertionBecomesAWholeLineSuggestion) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  checker::Finding& f = run.result.findings[0];
  f.patch = RequirePatch(run, f);
  const catalog::Resource& target = run.catalog->resource(f.target);
  nlohmann::json rd =
      report::FindingsToRdjson(run.Context(), report::SourceRoot::FromDirectory(RootOf(target)));
  ASSERT_EQ(rd["diagnostics"].size(), 1u);
  const nlohmann::json& d = rd["diagnostics"][0];
  // The line before the insertion (15, from the diff's context) is replaced by itself and the
  // new line; the comment sits on the same line, as reviewdog requires.
  nlohmann::json range = {{"start", {{"line", 15}}}, {"end", {{"line", 15}}}};
  EXPECT_EQ(d["location"]["range"], range);
  ASSERT_EQ(d["suggestions"].size(), 1u);
  EXPECT_EQ(d["suggestions"][0]["range"], range);
  EXPECT_EQ(d["suggestions"][0]["text"],
            "exec { 'use config':\n  require => File['/etc/app/app.conf'],");
  EXPECT_THAT(d["message"].get<std::string>(), HasSubstr("verified"));

  // A failed patch offers nothing.
  f.patch->verdict = checker::FixVerdict::kFailed;
  EXPECT_FALSE(
      report::FindingsToRdjson(run.Context(), {})["diagnostics"][0].contains("suggestions"));
}

TEST(RdjsonTest, EditsElsewhereGetTheirOwnDiagnostics) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  checker::Finding& f = run.result.findings[0];
  f.patch = RequirePatch(run, f);
  checker::FixEdit other;
  other.file = f.patch->root + "/other.pp";
  other.line = 3;
  other.end_line = 5;
  other.text = "a\nb\nc\n";
  f.patch->edits.push_back(other);
  nlohmann::json rd = report::FindingsToRdjson(run.Context(), {});
  ASSERT_EQ(rd["diagnostics"].size(), 2u);
  const nlohmann::json& part = rd["diagnostics"][1];
  EXPECT_EQ(part["location"]["path"], other.file);
  nlohmann::json range = {{"start", {{"line", 3}}}, {"end", {{"line", 4}}}};
  EXPECT_EQ(part["location"]["range"], range);
  EXPECT_EQ(part["suggestions"][0]["text"], "a\nb\nc");
  EXPECT_THAT(part["message"].get<std::string>(), HasSubstr("Part of the fix for"));
}

TEST(RdjsonTest, SuggestionForEdit) {
  checker::FixPatch p;
  p.root = std::string(FSMOVE_SOURCE_DIR) + "/fixtures/faults/configure-use";
  checker::FixEdit e;
  e.file = p.root + "/bad.pp";
  // A deletion.
  e.line = 7;
  e.end_line = 8;
  e.text = "";
  auto s = report::SuggestionForEdit(e, p);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start_line, 7);
  EXPECT_EQ(s->end_line, 7);
  EXPECT_EQ(s->text, "");
  // An insertion at the top: the new lines, then line 1; no diff, so read from the file.
  e.line = e.end_line = 1;
  e.text = "# new\n";
  s = report::SuggestionForEdit(e, p);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->start_line, 1);
  EXPECT_EQ(s->text, "# new\n# fixtures/faults/configure-use/bad.pp");
  // An insertion with neither a diff line nor a readable file.
  e.file = p.root + "/no-such-file.pp";
  e.line = e.end_line = 4;
  EXPECT_FALSE(report::SuggestionForEdit(e, p));
  // Nonsense lines.
  e.line = 5;
  e.end_line = 4;
  EXPECT_FALSE(report::SuggestionForEdit(e, p));
}

}  // namespace
}  // namespace fsmove::testing
