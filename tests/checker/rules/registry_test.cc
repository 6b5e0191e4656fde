// The rule table (src/checker/rules/registry.cc): each row a stable kebab-case id, a summary and
// the kinds it judges, and each rule its own file and its own test beside this one.
#include "fsmove/checker/rules/registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

namespace fsmove::testing {
namespace {

namespace fs = std::filesystem;

std::string FileName(std::string_view id) {
  std::string name(id);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

TEST(RuleRegistryTest, EachRuleHasAnIdASummaryItsKindsAFileAndATest) {
  std::set<std::string_view> ids;
  const fs::path root = FSMOVE_SOURCE_DIR;
  for (const checker::RegisteredRule& r : checker::Rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id << " twice";
    EXPECT_FALSE(r.id.empty());
    for (char c : r.id) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '-') << r.id;
    EXPECT_FALSE(r.summary.empty()) << r.id;
    EXPECT_NE(r.judges, 0) << r.id;
    EXPECT_NE(r.rule, nullptr) << r.id;
    EXPECT_TRUE(fs::exists(root / "src/checker/rules" / (FileName(r.id) + ".cc"))) << r.id;
    EXPECT_TRUE(fs::exists(root / "tests/checker/rules" / (FileName(r.id) + "_test.cc"))) << r.id;
    EXPECT_EQ(checker::FindRule(r.id), &r);
  }
  EXPECT_EQ(checker::FindRule("no-such-rule"), nullptr);
}

}  // namespace
}  // namespace fsmove::testing
