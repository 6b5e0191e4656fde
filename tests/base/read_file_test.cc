// Whole-file reading: regular files only, under a cap, and "cannot read [WHAT ]PATH: REASON".
#include "fsmove/base/read_file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fsmove::base {
namespace {

using ::testing::HasSubstr;

class ReadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "fsmove-read-file.XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(ReadFileTest, ReadsAWholeRegularFile) {
  std::string big(size_t{200} * 1024, 'x');  // more than one read() chunk
  big += "end";
  std::ofstream(Path("f"), std::ios::binary) << big;
  absl::StatusOr<std::string> text = ReadFile(Path("f"));
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, big);
  { std::ofstream empty(Path("empty")); }
  EXPECT_EQ(ReadFile(Path("empty")).value_or("?"), "");
}

TEST_F(ReadFileTest, AMissingFileIsAnErrorNotEmptyText) {
  absl::StatusOr<std::string> text = ReadFile(Path("missing.json"), "spec");
  ASSERT_FALSE(text.ok());
  EXPECT_TRUE(absl::IsNotFound(text.status()));
  EXPECT_EQ(text.status().message(),
            "cannot read spec " + Path("missing.json") + ": No such file or directory");
  // Without a name for the document, the path alone.
  EXPECT_EQ(ReadFile(Path("missing.json")).status().message(),
            "cannot read " + Path("missing.json") + ": No such file or directory");
}

TEST_F(ReadFileTest, RefusesDirectoriesFifosAndDevices) {
  EXPECT_EQ(ReadFile(dir_, "catalog").status().message(),
            "cannot read catalog " + dir_ + ": Is a directory");
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  // Nobody writes to it: a plain open() would hang.
  EXPECT_EQ(ReadFile(Path("fifo")).status().message(),
            "cannot read " + Path("fifo") + ": a FIFO, not a regular file");
  absl::StatusOr<std::string> zero = ReadFile("/dev/zero");
  EXPECT_TRUE(absl::IsInvalidArgument(zero.status()));
  EXPECT_EQ(zero.status().message(),
            "cannot read /dev/zero: a character device, not a regular file");
}

TEST_F(ReadFileTest, RefusesFilesOverTheCap) {
  std::ofstream(Path("f")) << std::string(100, 'x');
  EXPECT_TRUE(ReadFile(Path("f"), "", 100).ok());
  absl::StatusOr<std::string> text = ReadFile(Path("f"), "", 99);
  EXPECT_TRUE(absl::IsResourceExhausted(text.status()));
  EXPECT_EQ(text.status().message(), "cannot read " + Path("f") + ": larger than 99 bytes");
  std::ofstream(Path("big")) << std::string((1 << 20) + 1, 'x');
  EXPECT_THAT(std::string(ReadFile(Path("big"), "", 1 << 20).status().message()),
              HasSubstr(": larger than 1 MiB"));
}

TEST_F(ReadFileTest, ReadsKernelFilesThatReportNoSize) {
  absl::StatusOr<std::string> stat = ReadFile("/proc/self/stat");
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_NE(stat->find('('), std::string::npos);
}

TEST_F(ReadFileTest, UntrustedFilesAreNeverReadThroughASymlink) {
  std::ofstream(Path("real")) << "secret";
  ASSERT_EQ(symlink(Path("real").c_str(), Path("link").c_str()), 0);
  const int dir = open(dir_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir, 0);
  EXPECT_EQ(ReadUntrustedFile(dir, "real", "log", kMaxDocumentBytes).value_or("?"), "secret");
  absl::StatusOr<std::string> link = ReadUntrustedFile(dir, "link", "log", kMaxDocumentBytes);
  EXPECT_TRUE(absl::IsPermissionDenied(link.status()));
  EXPECT_EQ(link.status().message(), "cannot read log link: a symbolic link, never followed");
  absl::StatusOr<std::string> missing = ReadUntrustedFile(dir, "gone", "log", kMaxDocumentBytes);
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_EQ(missing.status().message(), "cannot read log gone: No such file or directory");
  close(dir);
}

}  // namespace
}  // namespace fsmove::base
