// Tests for Puppet's lexical File path canonicalisation and path relations.
#include "fsmove/catalog/file_path.h"

#include "gtest/gtest.h"

namespace fsmove::catalog {
namespace {

// Expected values are what Ruby prints for File.join(File.split(File.expand_path(v))).
TEST(CatalogFilePathTest, CanonicalisesLikeRubyExpandPath) {
  EXPECT_EQ(CanonicalFilePath("//tmp//x/./y/../z/"), "/tmp/x/z");
  EXPECT_EQ(CanonicalFilePath("/"), "/");
  EXPECT_EQ(CanonicalFilePath("//"), "/");
  EXPECT_EQ(CanonicalFilePath("///a"), "/a");
  EXPECT_EQ(CanonicalFilePath("/.."), "/");
  EXPECT_EQ(CanonicalFilePath("/a/.."), "/");
  EXPECT_EQ(CanonicalFilePath("/a/b/../../.."), "/");
  EXPECT_EQ(CanonicalFilePath("/a/.../b"), "/a/.../b");
  EXPECT_EQ(CanonicalFilePath("/a/b/."), "/a/b");
  EXPECT_EQ(CanonicalFilePath("/a\n/b"), "/a\n/b");
  EXPECT_EQ(CanonicalFilePath("/tmp/üñí [x]/"), "/tmp/üñí [x]");
}

TEST(CatalogFilePathTest, LeavesRelativePathsAlone) {
  EXPECT_EQ(CanonicalFilePath("relative/./x"), "relative/./x");
  EXPECT_EQ(CanonicalFilePath(""), "");
}

TEST(CatalogFilePathTest, ParentDirectory) {
  EXPECT_EQ(ParentDirectory("/a/b"), "/a");
  EXPECT_EQ(ParentDirectory("/a"), "/");
  EXPECT_EQ(ParentDirectory("/"), "");
  EXPECT_EQ(ParentDirectory(""), "");
}

TEST(CatalogFilePathTest, StrictlyUnderComparesWholeComponents) {
  EXPECT_TRUE(IsStrictlyUnder("/a/b", "/a"));
  EXPECT_TRUE(IsStrictlyUnder("/a", "/"));
  EXPECT_FALSE(IsStrictlyUnder("/ab", "/a"));
  EXPECT_FALSE(IsStrictlyUnder("/a", "/a"));
  EXPECT_FALSE(IsStrictlyUnder("/usr/local/etc/x", "/etc"));
}

}  // namespace
}  // namespace fsmove::catalog
