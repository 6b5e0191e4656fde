// Whole-line edits from replacements, and unified diffs that `patch` reads back: hunk
// headers, three lines of context, hunks merged when their context overlaps, files without a
// final newline. The round trip is checked with GNU patch when it is installed.
#include "fsmove/fix/unified_diff.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fsmove::fix {
namespace {

std::string Lines(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

TEST(UnifiedDiffTest, InsertionAfterALine) {
  const std::string text = Lines(1, 10);
  const size_t at = text.find("line 6\n");
  auto edits = LineEdits("/m/init.pp", text, {{at, at, "new\n"}});
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].line, 6);
  EXPECT_EQ(edits[0].end_line, 6);
  EXPECT_EQ(edits[0].text, "new\n");
  EXPECT_EQ(edits[0].old_text, "");
  EXPECT_EQ(edits[0].file, "/m/init.pp");
  EXPECT_EQ(UnifiedDiff("manifests/init.pp", text, edits),
            "--- a/manifests/init.pp\n"
            "+++ b/manifests/init.pp\n"
            "@@ -3,6 +3,7 @@\n"
            " line 3\n line 4\n line 5\n+new\n line 6\n line 7\n line 8\n");
  EXPECT_EQ(ApplyEdits(text, edits), Lines(1, 5) + "new\n" + Lines(6, 10));
}

TEST(UnifiedDiffTest, ChangedLinesAreTrimmedToWhatDiffers) {
  const std::string text = Lines(1, 3);
  // One replacement spanning lines 1-3 that only changes line 2.
  auto edits = LineEdits("f", text, {{0, text.size(), "line 1\nLINE 2\nline 3\n"}});
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].line, 2);
  EXPECT_EQ(edits[0].end_line, 3);
  EXPECT_EQ(UnifiedDiff("f", text, edits),
            "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+LINE 2\n line 3\n");
}

TEST(UnifiedDiffTest, HunksSeparateOrMergeByContext) {
  const std::string text = Lines(1, 30);
  auto at = [&](int n) { return text.find("line " + std::to_string(n) + "\n"); };
  auto far = LineEdits("f", text, {{at(3), at(3), "a\n"}, {at(20), at(20), "b\n"}});
  std::string diff = UnifiedDiff("f", text, far);
  EXPECT_THAT(diff, ::testing::HasSubstr("@@ -1,5 +1,6 @@\n"));
  EXPECT_THAT(diff, ::testing::HasSubstr("@@ -17,6 +18,7 @@\n"));
  auto near = LineEdits("f", text, {{at(3), at(3), "a\n"}, {at(8), at(8), "b\n"}});
  diff = UnifiedDiff("f", text, near);
  EXPECT_THAT(diff, ::testing::HasSubstr("@@ -1,10 +1,12 @@\n"));
  size_t hunks = 0;
  for (size_t p = diff.find("\n@@ "); p != std::string::npos; p = diff.find("\n@@ ", p + 1))
    ++hunks;
  EXPECT_EQ(hunks, 1u);
}

TEST(UnifiedDiffTest, NoNewlineAtEndOfFile) {
  const std::string text = "a\nb";
  auto edits = LineEdits("f", text, {{text.size(), text.size(), "\nc"}});
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(UnifiedDiff("f", text, edits),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n"
            "\\ No newline at end of file\n");
  EXPECT_EQ(ApplyEdits(text, edits), "a\nb\nc");
}

TEST(UnifiedDiffTest, PatchAppliesIt) {
  if (system("command -v patch >/dev/null 2>&1") != 0) GTEST_SKIP() << "no patch here";
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("fsmove-diff-test-" + std::to_string(getpid()));
  fs::create_directories(dir / "manifests");
  const std::string text = Lines(1, 40);
  auto at = [&](int n) { return text.find("line " + std::to_string(n) + "\n"); };
  auto edits = LineEdits(
      "x", text, {{at(2), at(3), "two\n"}, {at(20), at(20), "new\n"}, {at(40), text.size(), ""}});
  std::ofstream(dir / "manifests/init.pp") << text;
  std::ofstream(dir / "fix.diff") << UnifiedDiff("manifests/init.pp", text, edits);
  const std::string cmd = "cd " + dir.string() + " && patch -s -p1 < fix.diff";
  ASSERT_EQ(system(cmd.c_str()), 0);
  std::ifstream in(dir / "manifests/init.pp");
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(), ApplyEdits(text, edits));
  EXPECT_EQ(got.str(), Lines(1, 1) + "two\n" + Lines(3, 19) + "new\n" + Lines(20, 39));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fsmove::fix
