// The host budget's one table: every limit has its row, flag values are read by their unit,
// and `fsmove scan` passes each check the limits that differ from the defaults.
#include "fsmove/base/host_budget.h"

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fsmove::base {
namespace {

TEST(HostBudgetTest, EveryLimitHasOneRowInTheEnumsOrder) {
  ASSERT_EQ(BudgetLimits().size(), kBudgetLimitCount);
  std::set<std::string_view> flags;
  for (size_t i = 0; i < BudgetLimits().size(); ++i) {
    const BudgetLimitInfo& row = BudgetLimits()[i];
    EXPECT_EQ(static_cast<size_t>(row.limit), i);
    EXPECT_EQ(BudgetFlag(row.limit), row.flag);
    EXPECT_TRUE(row.flag.starts_with("--max-")) << row.flag;
    EXPECT_FALSE(row.help.empty()) << row.flag;
    flags.insert(row.flag);
  }
  EXPECT_EQ(flags.size(), kBudgetLimitCount);
}

TEST(HostBudgetTest, SetAndOfReachTheSameField) {
  HostBudget budget;
  for (const BudgetLimitInfo& row : BudgetLimits()) {
    budget.Set(row.limit, 1000 + static_cast<uint64_t>(row.limit));
  }
  EXPECT_EQ(budget.paths, 1000u);
  EXPECT_EQ(budget.inodes, 1001u);
  EXPECT_EQ(budget.catalog_bytes, 1002u);
  EXPECT_EQ(budget.catalog_values, 1003u);
  EXPECT_EQ(budget.saved_trace, 1004u);
}

TEST(HostBudgetTest, ScopesNarrowFromCheckToCatalog) {
  auto flags_of = [](BudgetScope scope) {
    std::vector<std::string_view> flags;
    for (const BudgetLimitInfo& row : BudgetLimits()) {
      if (InScope(row, scope)) flags.push_back(row.flag);
    }
    return flags;
  };
  EXPECT_EQ(flags_of(BudgetScope::kCatalog),
            (std::vector<std::string_view>{"--max-catalog-bytes", "--max-catalog-values"}));
  EXPECT_EQ(flags_of(BudgetScope::kAnalyze).size(), 4u);
  EXPECT_EQ(flags_of(BudgetScope::kCheck).size(), 5u);
}

TEST(HostBudgetTest, CountsAndSizesAreReadByTheirUnit) {
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kPaths, "100000"), 100000u);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kPaths, "0"), std::nullopt);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kPaths, "1M"), std::nullopt);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kPaths, "-5"), std::nullopt);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kCatalogValues, ""), std::nullopt);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kCatalogBytes, "128M"), uint64_t{128} << 20);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kCatalogBytes, "128 MiB"), uint64_t{128} << 20);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kSavedTrace, "4G"), uint64_t{4} << 30);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kSavedTrace, "1048576"), uint64_t{1} << 20);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kSavedTrace, "0"), std::nullopt);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kSavedTrace, "4X"), std::nullopt);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kSavedTrace, "99999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseBudgetValue(BudgetLimit::kSavedTrace, "17179869184G"), std::nullopt);
}

TEST(HostBudgetTest, ByteSizesTakeTheirUnitsUpToTheLargestAllowed) {
  EXPECT_EQ(ParseByteSize("64k"), uint64_t{64} << 10);
  EXPECT_EQ(ParseByteSize("2T"), uint64_t{2} << 40);
  EXPECT_EQ(ParseByteSize("2T", 'G'), std::nullopt);  // --memory-limit's units stop at G
  EXPECT_EQ(ParseByteSize("4g", 'G'), uint64_t{4} << 30);
  EXPECT_EQ(ParseByteSize("4GB"), std::nullopt);
  EXPECT_EQ(ParseByteSize("+4G"), std::nullopt);
  EXPECT_EQ(ParseByteSize(" 4G"), std::nullopt);
  EXPECT_EQ(ParseByteSize("18446744073709551615"), UINT64_MAX);
}

TEST(HostBudgetTest, TheDefaultsTextReadsBackAsTheDefault) {
  for (const BudgetLimitInfo& row : BudgetLimits()) {
    EXPECT_EQ(ParseBudgetValue(row.limit, BudgetDefaultText(row.limit)), HostBudget{}.Of(row.limit))
        << row.flag;
  }
  EXPECT_EQ(BudgetDefaultText(BudgetLimit::kCatalogBytes), "128 MiB");
  EXPECT_EQ(BudgetDefaultText(BudgetLimit::kPaths), "2000000");
}

TEST(HostBudgetTest, ScanPassesEachCheckTheLimitsThatDifferFromTheDefaults) {
  HostBudget budget;
  EXPECT_TRUE(BudgetArguments(budget, BudgetScope::kCheck).empty());
  budget.paths = 100000;
  budget.saved_trace = uint64_t{1} << 30;
  EXPECT_EQ(BudgetArguments(budget, BudgetScope::kCheck),
            (std::vector<std::string>{"--max-paths", "100000", "--max-saved-trace", "1073741824"}));
  EXPECT_TRUE(BudgetArguments(budget, BudgetScope::kCatalog).empty());
}

}  // namespace
}  // namespace fsmove::base
