// --memory-limit's sizes.
#include "fsmove/exec/memory_limit.h"

#include <gtest/gtest.h>

namespace fsmove::exec {
namespace {

TEST(MemoryLimitTest, Sizes) {
  EXPECT_EQ(ParseMemorySize("512M"), uint64_t{512} << 20);
  EXPECT_EQ(ParseMemorySize("4G"), uint64_t{4} << 30);
  EXPECT_EQ(ParseMemorySize("64k"), uint64_t{64} << 10);
  EXPECT_EQ(ParseMemorySize("1048576"), uint64_t{1048576});
  EXPECT_EQ(ParseMemorySize("none"), uint64_t{0});
  EXPECT_EQ(ParseMemorySize("0"), uint64_t{0});
  EXPECT_FALSE(ParseMemorySize("").has_value());
  EXPECT_FALSE(ParseMemorySize("G4").has_value());
  EXPECT_FALSE(ParseMemorySize("4T").has_value());
  EXPECT_FALSE(ParseMemorySize("-1").has_value());
  EXPECT_FALSE(ParseMemorySize("99999999999999999999G").has_value());
}

}  // namespace
}  // namespace fsmove::exec
