// The nearest name to a mistyped one: typos, swaps, prefixes, and words that are no name.
#include "fsmove/base/spelling.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fsmove::base {
namespace {

const std::vector<std::string> kCommands = {"analyze", "trace", "graph",  "check", "scan",
                                            "merge",   "root",  "doctor", "man",   "completions"};

TEST(EditDistanceTest, CountsEachEditOnceAndASwapOnce) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("check", "check"), 0u);
  EXPECT_EQ(EditDistance("chek", "check"), 1u);   // one deletion
  EXPECT_EQ(EditDistance("chekc", "check"), 1u);  // one swap
  EXPECT_EQ(EditDistance("scna", "scan"), 1u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "root"), 4u);
  EXPECT_EQ(EditDistance("abc", "ca"), 3u);  // optimal string alignment, not Damerau
}

TEST(NearestNameTest, SuggestsTheCommandATypoMeant) {
  EXPECT_EQ(NearestName("chek", kCommands), "check");
  EXPECT_EQ(NearestName("chekc", kCommands), "check");
  EXPECT_EQ(NearestName("analyse", kCommands), "analyze");
  EXPECT_EQ(NearestName("docter", kCommands), "doctor");
  EXPECT_EQ(NearestName("completion", kCommands), "completions");
}

TEST(NearestNameTest, APrefixOfOneNameCounts) {
  EXPECT_EQ(NearestName("comp", kCommands), "completions");
  EXPECT_EQ(NearestName("doc", kCommands), "doctor");
}

TEST(NearestNameTest, NoSuggestionForANameOrForAWordFarFromEvery) {
  EXPECT_EQ(NearestName("check", kCommands), std::nullopt);
  EXPECT_EQ(NearestName("", kCommands), std::nullopt);
  EXPECT_EQ(NearestName("install", kCommands), std::nullopt);
  EXPECT_EQ(NearestName("xyzzy", kCommands), std::nullopt);
}

TEST(NearestNameTest, OptionsWithTheirDashes) {
  const std::vector<std::string> options = {"--format", "--output", "--fix-diff", "--confirm"};
  EXPECT_EQ(NearestName("--formt", options), "--format");
  EXPECT_EQ(NearestName("--fixdiff", options), "--fix-diff");
  EXPECT_EQ(NearestName("--confrim", options), "--confirm");
  EXPECT_EQ(NearestName("--verbose", options), std::nullopt);
}

}  // namespace
}  // namespace fsmove::base
