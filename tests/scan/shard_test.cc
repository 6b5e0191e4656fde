#include "fsmove/scan/shard.h"

#include <algorithm>
#include <random>
#include <set>

#include "fmt/format.h"
#include "fsmove/scan/module_list.h"
#include "gtest/gtest.h"

namespace fsmove::scan {
namespace {

TEST(Shard, ParsesOneBasedIndexes) {
  auto s = ParseShard("2/5");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 5);
  EXPECT_EQ(s->ToString(), "2/5");
  EXPECT_TRUE(ParseShard("1/1").ok());
  for (const char* bad :
       {"0/2", "3/2", "1/0", "-1/2", "1", "a/b", "1/2/3", "", "/2", "1/", " 1/2"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
  EXPECT_NE(std::string(ParseShard("0/4").status().message()).find("index + 1"), std::string::npos);
}

TEST(Shard, ShardsPartitionTheListWhateverItsOrder) {
  std::vector<std::string> modules;
  for (int i = 0; i < 23; ++i) modules.push_back(fmt::format("mods/m{}", i));
  std::vector<std::string> shuffled = modules;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  shuffled.push_back("./mods/m3/");  // another spelling of a module already there
  const auto a = CanonicalModuleList(modules);
  const auto b = CanonicalModuleList(shuffled);
  for (int n : {1, 2, 3, 4, 23, 30}) {
    std::multiset<std::string> seen;
    size_t smallest = SIZE_MAX, largest = 0;
    for (int i = 1; i <= n; ++i) {
      auto slice = SelectShard(a, Shard{i, n});
      EXPECT_EQ(slice, SelectShard(b, Shard{i, n})) << i << "/" << n;
      seen.insert(slice.begin(), slice.end());
      smallest = std::min(smallest, slice.size());
      largest = std::max(largest, slice.size());
    }
    EXPECT_EQ(seen, std::multiset<std::string>(a.begin(), a.end())) << n;  // each exactly once
    EXPECT_LE(largest - smallest, 1u) << n;
  }
}

TEST(Shard, DigestDependsOnTheListOnly) {
  auto a = CanonicalModuleList({"x", "y"});
  auto b = CanonicalModuleList({"y", "./x"});
  EXPECT_EQ(ModuleListDigest(a), ModuleListDigest(b));
  EXPECT_NE(ModuleListDigest(a), ModuleListDigest(CanonicalModuleList({"x", "y", "z"})));
  EXPECT_NE(ModuleListDigest({"ab"}), ModuleListDigest({"a", "b"}));
}

}  // namespace
}  // namespace fsmove::scan
