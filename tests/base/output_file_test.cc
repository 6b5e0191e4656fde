#include "fsmove/base/output_file.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::base {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fsmove-output-test-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  size_t Entries() { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
};

TEST_F(OutputFileTest, TheOldReportStaysWholeUntilTheNewOneIsComplete) {
  const fs::path report = dir_ / "report.txt";
  std::ofstream(report) << "old report\n";
  {
    auto out = OutputFile::Open(report.string());
    ASSERT_TRUE(out.ok()) << out.status();
    (*out)->stream() << "new report, half written";
    EXPECT_EQ(Read(report), "old report\n");  // not truncated while the new one is written
    // Abandoned (the run failed): the old report is left as it was, no temporary file stays.
  }
  EXPECT_EQ(Read(report), "old report\n");
  EXPECT_EQ(Entries(), 1u);
  auto out = OutputFile::Open(report.string());
  ASSERT_TRUE(out.ok());
  (*out)->stream() << "new report\n";
  ASSERT_TRUE((*out)->Commit().ok());
  EXPECT_EQ(Read(report), "new report\n");
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(OutputFileTest, ANewFileGetsTheUsualMode) {
  const fs::path report = dir_ / "r.json";
  mode_t mask = umask(022);
  ASSERT_TRUE(WriteOutputFile(report.string(), "{}\n").ok());
  umask(mask);
  struct stat st;
  ASSERT_EQ(stat(report.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // not mkstemp's 0600
}

TEST_F(OutputFileTest, UnwritableOutputsAreFoundBeforehandWithTheReason) {
  absl::Status missing = CheckWritable((dir_ / "nodir" / "r.txt").string());
  EXPECT_THAT(std::string(missing.message()),
              ::testing::EndsWith("nodir: No such file or directory"));
  absl::Status directory = CheckWritable(dir_.string());
  EXPECT_THAT(std::string(directory.message()), ::testing::EndsWith(": Is a directory"));
  fs::create_symlink("elsewhere", dir_ / "link");
  absl::Status link = CheckWritable((dir_ / "link").string());
  EXPECT_THAT(std::string(link.message()), ::testing::HasSubstr("is a symbolic link"));
  EXPECT_TRUE(CheckWritable((dir_ / "fine.txt").string()).ok());
  EXPECT_EQ(Entries(), 1u);  // the probe is gone, nothing was created
  EXPECT_FALSE(fs::exists(dir_ / "fine.txt"));
}

TEST_F(OutputFileTest, ADeviceIsWrittenInPlace) {
  ASSERT_TRUE(WriteOutputFile("/dev/null", "discarded\n").ok());
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

}  // namespace
}  // namespace fsmove::base
