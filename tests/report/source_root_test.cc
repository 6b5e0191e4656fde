// Paths relative to a source root and file URIs.
#include "fsmove/report/source_root.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fsmove::testing {
namespace {

using report::SourceRoot;

TEST(SourceRootTest, RelativeInsideAbsoluteOutside) {
  SourceRoot root = SourceRoot::FromDirectory("/repo/./mod/");
  EXPECT_EQ(root.path(), "/repo/mod");
  EXPECT_EQ(root.Relative("/repo/mod/manifests/init.pp"), "manifests/init.pp");
  EXPECT_EQ(root.Relative("/repo/mod/x/../manifests/init.pp"), "manifests/init.pp");
  EXPECT_EQ(root.Relative("/repo/module/init.pp"), std::nullopt);  // a prefix, not a parent
  EXPECT_EQ(root.Relative("/repo/mod"), std::nullopt);
  EXPECT_EQ(root.Relative("/etc/puppet/site.pp"), std::nullopt);
  EXPECT_EQ(root.Relative("manifests/init.pp"), "manifests/init.pp");
  EXPECT_EQ(root.Relative("../other/init.pp"), std::nullopt);
  EXPECT_EQ(root.Relative(""), std::nullopt);
  EXPECT_EQ(root.Display("/etc/puppet/site.pp"), "/etc/puppet/site.pp");
  EXPECT_EQ(root.Display("/repo/mod/a.pp"), "a.pp");

  EXPECT_EQ(SourceRoot::FromDirectory("/").Relative("/a/b.pp"), "a/b.pp");
  EXPECT_EQ(SourceRoot().Relative("/a/b.pp"), std::nullopt);
  EXPECT_TRUE(SourceRoot::FromDirectory("").empty());
  EXPECT_EQ(SourceRoot::FromDirectory(".").path(),
            std::filesystem::current_path().lexically_normal().string());
}

TEST(SourceRootTest, Uris) {
  EXPECT_EQ(report::FileUri("/work/main/a.pp"), "file:///work/main/a.pp");
  EXPECT_EQ(report::PercentEncodePath("dir with space/100%#?.pp"),
            "dir%20with%20space/100%25%23%3F.pp");
  EXPECT_EQ(report::PercentEncodePath("a:b/[x]/\xC3\xA9"), "a%3Ab/%5Bx%5D/%C3%A9");
  EXPECT_EQ(report::PercentEncodePath("keep-._~!$&'()*+,;=@"), "keep-._~!$&'()*+,;=@");
}

}  // namespace
}  // namespace fsmove::testing
