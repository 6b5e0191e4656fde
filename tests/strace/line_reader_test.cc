// Tests for LineReader: line splitting, over-long lines, unterminated input, zstd detection
// and errors, on strings, files, standard input and sources that deliver a few bytes at a time.
#include "fsmove/strace/line_reader.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::strace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct ReadResult {
  std::vector<std::string> lines;
  std::vector<uint64_t> numbers;
  std::vector<bool> cut;
  std::vector<bool> unterminated;
};

ReadResult ReadAll(LineReader& reader) {
  ReadResult r;
  std::string_view line;
  while (reader.Next(&line)) {
    r.lines.emplace_back(line);
    r.numbers.push_back(reader.line_number());
    r.cut.push_back(reader.last_line_cut());
    r.unterminated.push_back(reader.last_line_unterminated());
  }
  return r;
}

std::string Compress(std::string_view text, int level = 3) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), level);
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  out.resize(n);
  return out;
}

// A temporary file removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(std::string_view content) {
    char tmpl[] = "/tmp/fsmove_line_reader_XXXXXX";
    int fd = mkstemp(tmpl);
    EXPECT_GE(fd, 0);
    path_ = tmpl;
    size_t off = 0;
    while (off < content.size()) {
      ssize_t w = write(fd, content.data() + off, content.size() - off);
      EXPECT_GT(w, 0);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fd);
  }
  ~TempFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Delivers its bytes in reads of 1, 2, 3, ... 7 bytes, then fails if asked to.
class DripSource : public ByteSource {
 public:
  DripSource(std::string data, bool fail_at_end) : data_(std::move(data)), fail_(fail_at_end) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ == data_.size()) {
      if (fail_) return absl::UnavailableError("device went away");
      return 0;
    }
    size_t k = std::min({n, data_.size() - pos_, step_});
    step_ = step_ % 7 + 1;
    memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string data_;
  bool fail_;
  size_t pos_ = 0;
  size_t step_ = 1;
};

TEST(LineReaderTest, SplitsLinesAndCountsThem) {
  auto reader = LineReader::FromString("190   close(3) = 0\n\nb\n");
  std::string_view line;
  ASSERT_TRUE(reader->Next(&line));
  EXPECT_EQ(line, "190   close(3) = 0");
  EXPECT_EQ(reader->line_number(), 1u);
  EXPECT_EQ(reader->bytes_consumed(), 19u);
  ASSERT_TRUE(reader->Next(&line));
  EXPECT_EQ(line, "");
  EXPECT_EQ(reader->line_number(), 2u);
  EXPECT_EQ(reader->bytes_consumed(), 20u);
  ASSERT_TRUE(reader->Next(&line));
  EXPECT_EQ(line, "b");
  EXPECT_FALSE(reader->last_line_unterminated());
  EXPECT_EQ(reader->bytes_consumed(), 22u);
  EXPECT_FALSE(reader->Next(&line));
  EXPECT_TRUE(reader->status().ok());
  EXPECT_EQ(reader->line_number(), 3u);
  EXPECT_EQ(reader->name(), "<string>");
}

TEST(LineReaderTest, EmptyInputHasNoLines) {
  auto reader = LineReader::FromString("");
  std::string_view line;
  EXPECT_FALSE(reader->Next(&line));
  EXPECT_FALSE(reader->Next(&line));  // stays at end
  EXPECT_TRUE(reader->status().ok());
  EXPECT_EQ(reader->line_number(), 0u);
  EXPECT_EQ(reader->bytes_consumed(), 0u);
}

TEST(LineReaderTest, UnterminatedLastLineIsReturnedAndFlagged) {
  auto reader = LineReader::FromString("a\n190   openat(AT_FDCWD, \"/etc/pa");
  ReadResult r = ReadAll(*reader);
  EXPECT_THAT(r.lines, ElementsAre("a", "190   openat(AT_FDCWD, \"/etc/pa"));
  EXPECT_THAT(r.unterminated, ElementsAre(false, true));
  EXPECT_THAT(r.cut, ElementsAre(false, false));
  EXPECT_TRUE(reader->status().ok());
  EXPECT_EQ(reader->bytes_consumed(), 33u);
}

TEST(LineReaderTest, InputShorterThanZstdMagicIsPlainText) {
  auto reader = LineReader::FromString(std::string("\x28\xb5", 2));
  ReadResult r = ReadAll(*reader);
  EXPECT_THAT(r.lines, ElementsAre(std::string("\x28\xb5", 2)));
  EXPECT_THAT(r.unterminated, ElementsAre(true));
  EXPECT_TRUE(reader->status().ok());
}

TEST(LineReaderTest, LinesOfOnlySpacesAreKeptVerbatim) {
  auto reader = LineReader::FromString("   \n\t \n");
  ReadResult r = ReadAll(*reader);
  EXPECT_THAT(r.lines, ElementsAre("   ", "\t "));
}

TEST(LineReaderTest, BinaryBytesPassThroughUnchanged) {
  std::string text("12 write(1, \"\0\xff\", 2) = 2\n\xff\xfe\0\n", 29);
  auto reader = LineReader::FromString(text);
  ReadResult r = ReadAll(*reader);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0], std::string("12 write(1, \"\0\xff\", 2) = 2", 24));
  EXPECT_EQ(r.lines[1], std::string("\xff\xfe\0", 3));
}

TEST(LineReaderTest, TenMegabyteLineIsReturnedWhole) {
  std::string big(10u << 20, 'x');
  std::string text = "1 a\n" + big + "\n2 b\n";
  auto reader = LineReader::FromString(text);
  ReadResult r = ReadAll(*reader);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[0], "1 a");
  EXPECT_EQ(r.lines[1].size(), big.size());
  EXPECT_EQ(r.lines[1], big);
  EXPECT_FALSE(r.cut[1]);
  EXPECT_EQ(r.lines[2], "2 b");
  EXPECT_EQ(reader->bytes_consumed(), text.size());
}

TEST(LineReaderTest, LineOverSixteenMegabyteCapIsCutAndFlagged) {
  const size_t cap = 16u << 20;
  std::string big = "190   write(1, \"" + std::string(cap + 1000, 'y');
  std::string text = big + "\n190   close(3) = 0\n";
  auto reader = LineReader::FromString(text);
  ReadResult r = ReadAll(*reader);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0].size(), cap);
  EXPECT_EQ(r.lines[0], std::string_view(big).substr(0, cap));
  EXPECT_TRUE(r.cut[0]);
  EXPECT_EQ(r.lines[1], "190   close(3) = 0");
  EXPECT_FALSE(r.cut[1]);
  EXPECT_THAT(r.numbers, ElementsAre(1u, 2u));
  EXPECT_EQ(reader->bytes_consumed(), text.size());
  EXPECT_TRUE(reader->status().ok());
}

TEST(LineReaderTest, LineExactlyAtCapIsNotCut) {
  LineReaderOptions options;
  options.max_line_bytes = 10000;
  options.initial_buffer_bytes = 4096;
  std::string exact(10000, 'e');
  auto reader = LineReader::FromString(exact + "\n" + exact + "f\nz\n", options);
  ReadResult r = ReadAll(*reader);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[0], exact);
  EXPECT_FALSE(r.cut[0]);
  EXPECT_EQ(r.lines[1], exact);  // one byte over: cut to the cap
  EXPECT_TRUE(r.cut[1]);
  EXPECT_EQ(r.lines[2], "z");
  EXPECT_FALSE(r.cut[2]);
}

TEST(LineReaderTest, SmallCapCutsLinesThatFitInTheBuffer) {
  // The cap applies even when the buffer (at least 4 KiB) holds the whole line.
  LineReaderOptions options;
  options.max_line_bytes = 8;
  auto reader = LineReader::FromString("12345678\n123456789abc\nok\n", options);
  ReadResult r = ReadAll(*reader);
  EXPECT_THAT(r.lines, ElementsAre("12345678", "12345678", "ok"));
  EXPECT_THAT(r.cut, ElementsAre(false, true, false));
  EXPECT_EQ(reader->bytes_consumed(), 25u);
}

TEST(LineReaderTest, OverLongUnterminatedLastLineIsCut) {
  LineReaderOptions options;
  options.max_line_bytes = 5000;
  options.initial_buffer_bytes = 4096;
  std::string text = "a\n" + std::string(9000, 'q');
  auto reader = LineReader::FromString(text, options);
  ReadResult r = ReadAll(*reader);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[1], std::string(5000, 'q'));
  EXPECT_TRUE(r.cut[1]);
  EXPECT_EQ(reader->bytes_consumed(), text.size());
  EXPECT_TRUE(reader->status().ok());
}

TEST(LineReaderTest, DripFedSourceGivesTheSameLines) {
  std::string text;
  std::vector<std::string> expected;
  for (int i = 0; i < 300; ++i) {
    std::string line = std::to_string(100 + i) + "   " + std::string(i * 37 % 9000, 'a' + i % 26);
    expected.push_back(line);
    text += line + "\n";
  }
  text += "tail";
  expected.push_back("tail");
  LineReaderOptions options;
  options.initial_buffer_bytes = 4096;
  LineReader reader(std::make_unique<DripSource>(text, false), "drip", options);
  ReadResult r = ReadAll(reader);
  EXPECT_EQ(r.lines, expected);
  EXPECT_TRUE(r.unterminated.back());
  EXPECT_EQ(r.numbers.back(), 301u);
  EXPECT_EQ(reader.bytes_consumed(), text.size());
  EXPECT_TRUE(reader.status().ok());
}

TEST(LineReaderTest, ReadErrorStopsWithStatusNamingTheSource) {
  LineReader reader(std::make_unique<DripSource>("1 a\n2 b", true), "drip-src", {});
  ReadResult r = ReadAll(reader);
  EXPECT_THAT(r.lines, ElementsAre("1 a"));  // "2 b" was never terminated: the read failed
  EXPECT_FALSE(reader.status().ok());
  EXPECT_THAT(reader.status().message(), HasSubstr("drip-src"));
  EXPECT_THAT(reader.status().message(), HasSubstr("device went away"));
}

TEST(LineReaderTest, ZstdStringIsRecognisedByMagic) {
  std::string text =
      "190   execve(\"/usr/bin/puppet\", [\"puppet\"], 0x7ffe /* 6 vars */) = 0\n"
      "190   +++ exited with 0 +++\n";
  auto reader = LineReader::FromString(Compress(text));
  ReadResult r = ReadAll(*reader);
  EXPECT_THAT(
      r.lines,
      ElementsAre("190   execve(\"/usr/bin/puppet\", [\"puppet\"], 0x7ffe /* 6 vars */) = 0",
                  "190   +++ exited with 0 +++"));
  EXPECT_TRUE(reader->status().ok());
  EXPECT_EQ(reader->bytes_consumed(), text.size());  // decompressed bytes
}

TEST(LineReaderTest, LargeZstdStreamIsFullyDecodedThroughSmallReads) {
  // Highly compressible input and a small line buffer: the decoder holds decoded bytes after it
  // has consumed all its input, and must flush them before the stream may end.
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text +=
        "190   readlink(\"/usr/lib/ruby/vendor_ruby/puppet.rb\", 0x7ffe138d9860, 1023) = -1 EINVAL "
        "(Invalid argument)\n";
  }
  const std::string last = "last line " + std::to_string(text.size());
  text += last + "\n";
  std::string z = Compress(text, 19);
  ASSERT_LT(z.size(), text.size() / 100);
  LineReaderOptions options;
  options.initial_buffer_bytes = 4096;
  auto reader = LineReader::FromString(z, options);
  ReadResult r = ReadAll(*reader);
  EXPECT_TRUE(reader->status().ok()) << reader->status();
  ASSERT_EQ(r.lines.size(), 200001u);
  EXPECT_EQ(r.lines.back(), last);
  EXPECT_EQ(r.lines[123456], r.lines[0]);
  EXPECT_EQ(reader->bytes_consumed(), text.size());
}

TEST(LineReaderTest, ZstdOnItsOwnThreadHandsOverBuffersWithLongLinesBetween) {
  // Lines longer than the room kept before each decoded chunk (256 KiB) are copied; the rest,
  // -s 65535 reads of 64-256 KiB among them, are not.
  std::string text;
  for (int i = 0; i < 4000; ++i) {
    const size_t size = i % 700 == 0 ? 600000 : i % 500 == 0 ? 200000 : i % 300;
    text += "12 read(3, \"" + std::string(size, 'a' + i % 26) + "\", 10) = 10\n";
  }
  text += "no newline at the end";
  for (bool thread : {false, true}) {
    LineReaderOptions options;
    options.decompress_thread = thread;
    auto reader = LineReader::FromString(Compress(text), options);
    ReadResult r = ReadAll(*reader);
    EXPECT_TRUE(reader->status().ok());
    ASSERT_EQ(r.lines.size(), 4001u) << thread;
    std::string joined;
    for (const std::string& l : r.lines) joined += l + "\n";
    joined.pop_back();
    EXPECT_EQ(joined, text) << thread;
    EXPECT_TRUE(r.unterminated.back());
  }
}

TEST(LineReaderTest, ConcatenatedZstdFramesAreOneStream) {
  auto reader = LineReader::FromString(Compress("1 a\n2 b") + Compress("c\n3 d\n"));
  ReadResult r = ReadAll(*reader);
  EXPECT_THAT(r.lines, ElementsAre("1 a", "2 bc", "3 d"));
  EXPECT_TRUE(reader->status().ok());
}

TEST(LineReaderTest, TruncatedZstdStreamIsAnError) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "190   close(" + std::to_string(i) + ") = 0\n";
  std::string z = Compress(text);
  z.resize(z.size() - 7);
  auto reader = LineReader::FromString(z);
  ReadResult r = ReadAll(*reader);
  EXPECT_FALSE(reader->status().ok());
  EXPECT_EQ(reader->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(reader->status().message(), HasSubstr("<string>"));
  EXPECT_THAT(reader->status().message(), HasSubstr("truncated"));
  EXPECT_LT(r.lines.size(), 5000u);
  for (size_t i = 0; i < r.lines.size(); ++i) {
    if (!r.unterminated[i]) {
      EXPECT_EQ(r.lines[i], "190   close(" + std::to_string(i) + ") = 0");
    }
  }
}

TEST(LineReaderTest, MagicOnlyZstdStreamIsTruncated) {
  auto reader = LineReader::FromString(std::string("\x28\xb5\x2f\xfd", 4));
  std::string_view line;
  EXPECT_FALSE(reader->Next(&line));
  EXPECT_EQ(reader->status().code(), absl::StatusCode::kDataLoss);
}

TEST(LineReaderTest, CorruptZstdStreamIsAnError) {
  std::string z = Compress(std::string(100000, 'k') + "\n");
  for (size_t i = 12; i < z.size(); i += 3) z[i] = static_cast<char>(z[i] ^ 0x5a);
  auto reader = LineReader::FromString(z);
  ReadAll(*reader);
  EXPECT_EQ(reader->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(reader->status().message(), HasSubstr("zstd"));
}

TEST(LineReaderTest, OpenMissingFileIsNotFoundNamingTheFile) {
  auto reader = LineReader::Open("/nonexistent/dir/trace.zst");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(reader.status().message(), HasSubstr("/nonexistent/dir/trace.zst"));
}

TEST(LineReaderTest, OpenDirectoryFailsNamingIt) {
  auto reader = LineReader::Open("/tmp");
  if (reader.ok()) {  // some systems let open() succeed; then the first read fails
    std::string_view line;
    EXPECT_FALSE((*reader)->Next(&line));
    EXPECT_FALSE((*reader)->status().ok());
  } else {
    EXPECT_THAT(reader.status().message(), HasSubstr("/tmp"));
  }
}

TEST(LineReaderTest, OpenReadsPlainFile) {
  TempFile file("1 a\n2 b\n");
  auto reader = LineReader::Open(file.path());
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->name(), file.path());
  ReadResult r = ReadAll(**reader);
  EXPECT_THAT(r.lines, ElementsAre("1 a", "2 b"));
}

TEST(LineReaderTest, OpenDetectsZstdWhateverTheName) {
  TempFile file(Compress("190   close(3) = 0\n190   close(4) = 0\n"));  // no .zst suffix
  auto reader = LineReader::Open(file.path());
  ASSERT_TRUE(reader.ok()) << reader.status();
  ReadResult r = ReadAll(**reader);
  EXPECT_THAT(r.lines, ElementsAre("190   close(3) = 0", "190   close(4) = 0"));
  EXPECT_TRUE((*reader)->status().ok());
}

TEST(LineReaderTest, OpenTruncatedZstdFileFailsNamingTheFile) {
  std::string z = Compress(std::string(50000, 'a') + "\n");
  z.resize(z.size() / 2);
  TempFile file(z);
  auto reader = LineReader::Open(file.path());
  ASSERT_TRUE(reader.ok()) << reader.status();
  ReadAll(**reader);
  EXPECT_EQ((*reader)->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT((*reader)->status().message(), HasSubstr(file.path()));
}

TEST(LineReaderTest, DashReadsStandardInput) {
  TempFile file(Compress("1 from stdin\n"));
  int saved = dup(STDIN_FILENO);
  ASSERT_GE(saved, 0);
  int fd = open(file.path().c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(dup2(fd, STDIN_FILENO), STDIN_FILENO);
  close(fd);
  auto reader = LineReader::Open("-");
  ReadResult r;
  if (reader.ok()) r = ReadAll(**reader);
  dup2(saved, STDIN_FILENO);
  close(saved);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_EQ((*reader)->name(), "<stdin>");
  EXPECT_THAT(r.lines, ElementsAre("1 from stdin"));
}

}  // namespace
}  // namespace fsmove::strace
