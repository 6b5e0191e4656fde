// HashBytes: every byte and the length count, at each size the loads treat apart (0, 1-3, 4-8,
// over 8 with an overlapping last word); the seed counts; no collision among many paths.
#include "fsmove/base/byte_hash.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/container/flat_hash_set.h"

namespace fsmove::testing {
namespace {

TEST(ByteHashTest, EveryByteAndTheLengthCount) {
  for (size_t n = 1; n <= 40; ++n) {
    const std::string s(n, 'a');
    const uint64_t h = base::HashBytes(s);
    EXPECT_EQ(h, base::HashBytes(std::string(n, 'a')));
    for (size_t i = 0; i < n; ++i) {
      std::string t = s;
      t[i] = 'b';
      EXPECT_NE(base::HashBytes(t), h) << "size " << n << ", byte " << i;
    }
    EXPECT_NE(base::HashBytes(s + '\0'), h) << "size " << n;
    EXPECT_NE(base::HashBytes(s.substr(1)), h) << "size " << n;
  }
}

TEST(ByteHashTest, TheSeedCounts) {
  EXPECT_NE(base::HashBytes("", 1), base::HashBytes("", 2));
  EXPECT_NE(base::HashBytes("etc", 1), base::HashBytes("etc", 2));
  EXPECT_NE(base::HashBytes("/usr/lib/ruby/vendor_ruby", 7),
            base::HashBytes("/usr/lib/ruby/vendor_ruby", 8));
}

TEST(ByteHashTest, NoCollisionAmongManyPaths) {
  absl::flat_hash_set<uint64_t> seen;
  size_t paths = 0;
  for (int dir = 0; dir < 300; ++dir) {
    for (int file = 0; file < 300; ++file) {
      const std::string path =
          "/usr/lib/ruby/vendor_ruby/d" + std::to_string(dir) + "/f" + std::to_string(file) + ".rb";
      seen.insert(base::HashBytes(path));
      ++paths;
    }
  }
  EXPECT_EQ(seen.size(), paths);
}

}  // namespace
}  // namespace fsmove::testing
