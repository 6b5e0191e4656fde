// --save-trace's cap (the host's budget, --max-saved-trace): the copy stops at the last whole
// line within the cap, plain or compressed, says it was cut, and never fails the stream.
#include "fsmove/exec/trace_copy.h"

#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Decompress(const std::string& frame) {
  std::string out(1 << 20, '\0');
  const size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

// 100 lines of 20 bytes, written in chunks of 30 bytes (which split lines, as pipe reads do).
void WriteTrace(TraceCopy& copy) {
  std::string text;
  for (int i = 0; i < 100; ++i) {
    char line[21];
    std::snprintf(line, sizeof line, "%-4d stat(\"/x\") = 0\n", i);
    text += line;
  }
  ASSERT_EQ(text.size(), 2000u);
  for (size_t at = 0; at < text.size(); at += 30) {
    ASSERT_TRUE(copy.Write(text.data() + at, std::min<size_t>(30, text.size() - at)).ok());
  }
}

class TraceCopyTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::string Path() const {
    const std::string dir = ::testing::TempDir() + "/trace_copy_test";
    std::filesystem::create_directories(dir);
    return dir + "/trace" + GetParam();
  }
  std::string Saved(const std::string& path) const {
    const std::string bytes = ReadBytes(path);
    return std::string(GetParam()) == ".zst" ? Decompress(bytes) : bytes;
  }
};

TEST_P(TraceCopyTest, UnderTheCapEverythingIsSaved) {
  const std::string path = Path();
  auto copy = TraceCopy::Create(path, 2000);
  ASSERT_TRUE(copy.ok()) << copy.status();
  WriteTrace(**copy);
  ASSERT_TRUE((*copy)->Close().ok());
  EXPECT_FALSE((*copy)->cut());
  EXPECT_EQ(Saved(path).size(), 2000u);
}

TEST_P(TraceCopyTest, TheCapCutsAtTheLastWholeLine) {
  const std::string path = Path();
  auto copy = TraceCopy::Create(path, 1010);
  ASSERT_TRUE(copy.ok()) << copy.status();
  int said = 0;
  (*copy)->OnCut([&said] { ++said; });
  WriteTrace(**copy);  // goes on past the cap without an error
  ASSERT_TRUE((*copy)->Close().ok());
  EXPECT_TRUE((*copy)->cut());
  EXPECT_EQ(said, 1);  // once, when the cap was reached
  const std::string saved = Saved(path);
  EXPECT_EQ(saved.size(), 1000u);  // 50 whole lines of 20 bytes
  EXPECT_EQ((*copy)->saved_bytes(), 1000u);
  EXPECT_TRUE(saved.ends_with("49   stat(\"/x\") = 0\n")) << saved.substr(saved.size() - 40);
}

INSTANTIATE_TEST_SUITE_P(PlainAndCompressed, TraceCopyTest, ::testing::Values(".txt", ".zst"));

}  // namespace
}  // namespace fsmove::exec
