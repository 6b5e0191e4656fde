// Files resolved beneath a root: links (in the middle, at the end), "..", absolute paths and
// directories refused by openat2 and by the component walk alike; writes that never follow.
#include "fsmove/base/beneath.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace fsmove::base {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using Opener = std::function<absl::StatusOr<UniqueFd>(int, std::string_view, int)>;

// Each case runs with openat2 (OpenBeneath on this kernel) and with the walk.
class BeneathTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fsmove-beneath.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    top_ = tmpl;
    root_ = top_ + "/root";
    outside_ = top_ + "/outside";
    fs::create_directories(root_ + "/manifests/deep");
    fs::create_directories(outside_);
    std::ofstream(root_ + "/manifests/init.pp") << "class m {}\n";
    std::ofstream(root_ + "/manifests/deep/x.pp") << "class m::deep::x {}\n";
    std::ofstream(outside_ + "/secret.pp") << "SECRET\n";
    fs::create_directory_symlink(outside_, root_ + "/manifests/sub");  // a link in the middle
    fs::create_symlink(outside_ + "/secret.pp", root_ + "/final.pp");  // a final link
    fs::create_symlink("deep/x.pp", root_ + "/manifests/rel.pp");      // relative, stays inside
    auto fd = OpenRoot(root_);
    ASSERT_TRUE(fd.ok()) << fd.status();
    root_fd_ = std::move(*fd);
  }
  void TearDown() override { fs::remove_all(top_); }

  absl::StatusOr<UniqueFd> Open(std::string_view rel, int flags) {
    return GetParam() ? OpenBeneath(root_fd_.get(), rel, flags)
                      : OpenBeneathByWalk(root_fd_.get(), rel, flags);
  }
  std::string ReadVia(std::string_view rel) {
    auto fd = Open(rel, O_RDONLY);
    if (!fd.ok()) return "error: " + std::string(fd.status().message());
    auto text = ReadOpenFile(fd->release(), "", rel, 1 << 20);
    return text.ok() ? *text : "error: " + std::string(text.status().message());
  }

  std::string top_, root_, outside_;
  UniqueFd root_fd_;
};

TEST_P(BeneathTest, OpensFilesAndDirectoriesBeneathTheRoot) {
  EXPECT_EQ(ReadVia("manifests/init.pp"), "class m {}\n");
  EXPECT_EQ(ReadVia("./manifests//deep/x.pp"), "class m::deep::x {}\n");
  auto dir = Open("manifests/deep", O_RDONLY | O_DIRECTORY);
  ASSERT_TRUE(dir.ok()) << dir.status();
  struct stat st {};
  ASSERT_EQ(fstat(dir->get(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  auto self = Open("", O_RDONLY | O_DIRECTORY);  // the root itself
  EXPECT_TRUE(self.ok()) << self.status();
}

TEST_P(BeneathTest, RefusesALinkInTheMiddle) {
  auto fd = Open("manifests/sub/secret.pp", O_RDONLY);
  ASSERT_FALSE(fd.ok());
  EXPECT_TRUE(absl::IsPermissionDenied(fd.status())) << fd.status();
  EXPECT_THAT(fd.status().message(), HasSubstr("manifests/sub is a symbolic link, never followed"));
  EXPECT_THAT(fd.status().message(), ::testing::Not(HasSubstr("SECRET")));
}

TEST_P(BeneathTest, RefusesAFinalLinkEvenOneThatStaysInside) {
  for (const char* rel : {"final.pp", "manifests/rel.pp"}) {
    for (int flags : {O_RDONLY, O_PATH}) {
      auto fd = Open(rel, flags);
      ASSERT_FALSE(fd.ok()) << rel;
      EXPECT_TRUE(absl::IsPermissionDenied(fd.status())) << fd.status();
      EXPECT_THAT(fd.status().message(), HasSubstr(std::string(rel) + " is a symbolic link"));
    }
  }
}

TEST_P(BeneathTest, RefusesDotDotAndAbsolutePaths) {
  for (const char* rel : {"../outside/secret.pp", "manifests/../../outside/secret.pp", ".."}) {
    auto fd = Open(rel, O_RDONLY);
    ASSERT_FALSE(fd.ok()) << rel;
    EXPECT_TRUE(absl::IsInvalidArgument(fd.status())) << fd.status();
    EXPECT_THAT(fd.status().message(), HasSubstr("\"..\" would lead out of its root"));
  }
  const std::string absolute = outside_ + "/secret.pp";
  auto fd = Open(absolute, O_RDONLY);
  ASSERT_FALSE(fd.ok());
  EXPECT_THAT(fd.status().message(), HasSubstr("an absolute path"));
}

TEST_P(BeneathTest, ADirectoryIsNotAFileToRead) {
  auto text = ReadFileBeneath(root_fd_.get(), root_, "manifests", "manifest");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(),
            "cannot read manifest " + root_ + "/manifests: Is a directory");
  auto missing = ReadFileBeneath(root_, "manifests/none.pp", "manifest");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_EQ(missing.status().message(),
            "cannot read manifest " + root_ + "/manifests/none.pp: No such file or directory");
  // A file where a directory is expected.
  EXPECT_FALSE(Open("manifests/init.pp/x", O_RDONLY).ok());
}

// The walk holds descriptors: once the root is open, renaming it away and planting a link at
// its old name changes nothing of what is opened beneath it.
TEST_P(BeneathTest, TheRootDescriptorIsHeldNotItsName) {
  fs::rename(root_, top_ + "/moved");
  fs::create_directory_symlink(outside_, root_);
  std::ofstream(outside_ + "/manifests") << "not a directory\n";
  EXPECT_EQ(ReadVia("manifests/init.pp"), "class m {}\n");
  // And a directory swapped for a link after the root was opened is refused, not followed.
  fs::rename(top_ + "/moved/manifests/deep", top_ + "/deep-away");
  fs::create_directory_symlink(outside_, top_ + "/moved/manifests/deep");
  std::ofstream(outside_ + "/x.pp") << "SECRET\n";
  EXPECT_THAT(ReadVia("manifests/deep/x.pp"), HasSubstr("manifests/deep is a symbolic link"));
}

TEST_P(BeneathTest, ReadFileBeneathNamesTheFileAndRefusesLinks) {
  auto ok = ReadFileBeneath(root_, "manifests/init.pp", "manifest");
  ASSERT_TRUE(ok.ok()) << ok.status();
  auto link = ReadFileBeneath(root_, "manifests/sub/secret.pp", "manifest");
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.status().message(),
            "cannot read manifest " + root_ +
                "/manifests/sub/secret.pp: manifests/sub is a symbolic link, never followed "
                "(fsmove opens the user's files only beneath their root)");
}

INSTANTIATE_TEST_SUITE_P(OpenBeneathAndWalk, BeneathTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "openat2" : "walk"; });

class WriteBeneathTest : public BeneathTest {};

TEST_P(WriteBeneathTest, ReplacesAFileKeepingItsMode) {
  chmod((root_ + "/manifests/init.pp").c_str(), 0640);
  ASSERT_TRUE(WriteFileBeneath(root_, "manifests/init.pp", "class m { }\n").ok());
  EXPECT_EQ(Slurp(root_ + "/manifests/init.pp"), "class m { }\n");
  struct stat st {};
  ASSERT_EQ(stat((root_ + "/manifests/init.pp").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  ASSERT_TRUE(WriteFileBeneath(root_, "manifests/new.pp", "class m::new {}\n").ok());
  EXPECT_EQ(Slurp(root_ + "/manifests/new.pp"), "class m::new {}\n");
  // Nothing left beside them.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(root_ + "/manifests")) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 5);  // init.pp, new.pp, rel.pp, deep, sub: no temporary file left
}

TEST_P(WriteBeneathTest, NeverWritesThroughALink) {
  const std::string before = Slurp(outside_ + "/secret.pp");
  auto through_dir = WriteFileBeneath(root_, "manifests/sub/secret.pp", "owned\n");
  EXPECT_TRUE(absl::IsPermissionDenied(through_dir)) << through_dir;
  EXPECT_THAT(through_dir.message(), HasSubstr("manifests/sub is a symbolic link"));
  auto final_link = WriteFileBeneath(root_, "final.pp", "owned\n");
  EXPECT_TRUE(absl::IsPermissionDenied(final_link)) << final_link;
  EXPECT_THAT(final_link.message(), HasSubstr("final.pp is a symbolic link"));
  EXPECT_FALSE(WriteFileBeneath(root_, "../outside/secret.pp", "owned\n").ok());
  EXPECT_FALSE(WriteFileBeneath(root_, outside_ + "/secret.pp", "owned\n").ok());
  EXPECT_FALSE(WriteFileBeneath(root_, "manifests", "owned\n").ok());  // a directory
  EXPECT_EQ(Slurp(outside_ + "/secret.pp"), before);
  EXPECT_TRUE(fs::is_symlink(root_ + "/final.pp"));
  EXPECT_EQ(fs::directory_iterator(outside_)->path().filename(), "secret.pp");
}

INSTANTIATE_TEST_SUITE_P(Write, WriteBeneathTest, ::testing::Values(true));

}  // namespace
}  // namespace fsmove::base
