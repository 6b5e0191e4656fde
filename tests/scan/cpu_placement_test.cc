// scan -j N: each running check gets CPUs of its own, and more checks than CPUs share them
// evenly.
#include "fsmove/scan/cpu_placement.h"

#include <gtest/gtest.h>

#include <map>

namespace fsmove::scan {
namespace {

TEST(CpuPlacerTest, OneJobIsNotPlaced) {
  CpuPlacer p({0, 1, 2, 3}, 1);
  EXPECT_TRUE(p.Take().empty());
  CpuPlacer unknown({}, 4);
  EXPECT_TRUE(unknown.Take().empty());
}

TEST(CpuPlacerTest, AsManyJobsAsCpusGetOneEach) {
  CpuPlacer p({1, 0}, 2);
  std::vector<int> a = p.Take(), b = p.Take();
  EXPECT_EQ(a, std::vector<int>{0});
  EXPECT_EQ(b, std::vector<int>{1});
  p.Release(a);
  EXPECT_EQ(p.Take(), std::vector<int>{0});  // the freed one, not a shared one
}

TEST(CpuPlacerTest, FewerJobsThanCpusSplitThemIntoGroups) {
  CpuPlacer p({0, 1, 2, 3, 4}, 2);
  std::vector<int> a = p.Take(), b = p.Take();
  EXPECT_EQ(a, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(b, (std::vector<int>{3, 4}));
}

TEST(CpuPlacerTest, MoreJobsThanCpusShareEvenly) {
  CpuPlacer p({0, 1}, 5);
  std::map<int, int> load;
  std::vector<std::vector<int>> taken;
  for (int i = 0; i < 5; ++i) {
    taken.push_back(p.Take());
    ASSERT_EQ(taken.back().size(), 1u);
    ++load[taken.back()[0]];
  }
  EXPECT_EQ(load[0], 3);
  EXPECT_EQ(load[1], 2);
  // Two checks on CPU 0 end: the next goes there.
  p.Release({0});
  p.Release({0});
  EXPECT_EQ(p.Take(), std::vector<int>{0});
}

}  // namespace
}  // namespace fsmove::scan
