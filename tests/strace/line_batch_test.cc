// Tests for FillBatch: lines stay in the buffer the reader read them into (the batch and the
// reader exchange buffers), every line comes once and in order whatever the batch limits,
// and a batch that held a very long line gives its memory back.
#include "fsmove/strace/line_batch.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fsmove::strace {
namespace {

std::string Trace(size_t lines) {
  std::string text;
  for (size_t i = 0; i < lines; ++i) {
    text += std::to_string(100 + i % 7) + "   readlink(\"/usr/lib/ruby/" + std::to_string(i) +
            "\", 0x7ffd6c1f0a10, 4095) = -1 EINVAL (Invalid argument)\n";
  }
  return text;
}

// Every line of the input, read batch by batch.
std::vector<std::string> ReadBatched(LineReader& reader, const BatchOptions& options,
                                     size_t* batches = nullptr) {
  std::vector<std::string> lines;
  std::vector<LineBatch> ring(3);
  for (size_t n = 0;; ++n) {
    LineBatch& batch = ring[n % ring.size()];
    FillBatch(reader, options, &batch);
    EXPECT_EQ(batch.first_line_number, lines.size() + 1);
    for (const BatchedLine& l : batch.lines) lines.emplace_back(batch.Text(l));
    if (batch.last) {
      if (batches != nullptr) *batches = n + 1;
      return lines;
    }
  }
}

TEST(LineBatchTest, LinesAreNotCopiedOutOfTheReadersBuffer) {
  auto reader = LineReader::FromString(Trace(5000));
  BatchOptions options;
  options.target_bytes = 64u << 10;
  LineBatch batch;
  FillBatch(*reader, options, &batch);
  ASSERT_FALSE(batch.lines.empty());
  const char* before = batch.bytes.data();
  // The batch holds what was the reader's buffer: the next fill reads into another one.
  LineBatch next;
  FillBatch(*reader, options, &next);
  EXPECT_EQ(batch.bytes.data(), before);
  EXPECT_NE(next.bytes.data(), before);
  EXPECT_EQ(batch.Text(batch.lines[0]).substr(0, 14), "100   readlink");
  const LineHead head = batch.Head(batch.lines[0]);
  EXPECT_EQ(head.kind, LineKind::kCall);
  EXPECT_EQ(head.pid, 100);
  EXPECT_EQ(head.name, "readlink");
  EXPECT_EQ(head.returned_negative, 1);
}

TEST(LineBatchTest, EveryLineOnceWhateverTheLimits) {
  const std::string text = Trace(3000);
  std::vector<std::string> expected;
  {
    auto reader = LineReader::FromString(text);
    std::string_view line;
    while (reader->Next(&line)) expected.emplace_back(line);
  }
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{5000}, size_t{256} << 10}) {
    for (size_t max_lines : {size_t{1}, size_t{3}, size_t{8192}}) {
      LineReaderOptions reader_options;
      reader_options.initial_buffer_bytes = 4096;
      auto reader = LineReader::FromString(text, reader_options);
      BatchOptions options;
      options.target_bytes = bytes;
      options.max_lines = max_lines;
      EXPECT_EQ(ReadBatched(*reader, options), expected) << bytes << " " << max_lines;
    }
  }
}

TEST(LineBatchTest, LongLinesAreCopiedAndTheirMemoryGivenBack) {
  std::string text = Trace(100);
  text += "1 write(1, \"" + std::string(3u << 20, 'x') + "\", 3145728) = 3145728\n";
  text += Trace(100);
  LineReaderOptions reader_options;
  reader_options.max_line_bytes = 1u << 20;  // the long line is cut
  auto reader = LineReader::FromString(text, reader_options);
  BatchOptions options;
  options.target_bytes = 16u << 10;
  std::vector<std::string> lines;
  std::vector<LineBatch> ring(2);
  bool cut_seen = false;
  for (size_t n = 0;; ++n) {
    LineBatch& batch = ring[n % 2];
    FillBatch(*reader, options, &batch);
    for (const BatchedLine& l : batch.lines) {
      if (l.cut) {
        cut_seen = true;
        EXPECT_EQ(batch.Text(l).size(), kCutLineKeptBytes);
      }
      lines.emplace_back(batch.Text(l));
    }
    // No slot keeps a buffer the size of the line limit.
    EXPECT_LE(batch.bytes.size(), 4 * options.target_bytes + kCutLineKeptBytes);
    if (batch.last) break;
  }
  EXPECT_TRUE(cut_seen);
  EXPECT_EQ(lines.size(), 201u);
}

// What the threaded pipeline reads: runs of whole lines taken raw, split later (on either
// thread), or batches filled as FillBatch does when no run can be taken. Every line comes once,
// in order, cut and unterminated as Next() returns it, with the head FillBatch would give.
struct ChunkedLine {
  std::string text;
  bool cut = false;
  bool unterminated = false;
  int32_t pid = 0;
  int32_t syscall = -1;
  uint32_t return_at = kNoReturn;
  bool operator==(const ChunkedLine&) const = default;
};

std::vector<ChunkedLine> ReadChunked(LineReader& reader, const BatchOptions& options,
                                     size_t* raw_batches) {
  std::vector<ChunkedLine> lines;
  std::vector<LineBatch> ring(3);
  *raw_batches = 0;
  for (size_t n = 0;; ++n) {
    LineBatch& batch = ring[n % ring.size()];
    TakeChunkOrFill(reader, options, &batch);
    if (batch.state.load() == BatchState::kRaw) {
      ++*raw_batches;
      EXPECT_EQ(batch.bytes[batch.chunk_end - 1], '\n');
      SplitChunk(options, reader.max_line_bytes(), &batch);
    }
    for (const BatchedLine& l : batch.lines) {
      lines.push_back(
          {std::string(batch.Text(l)), l.cut, l.unterminated, l.pid, l.syscall, l.return_at});
    }
    if (batch.last) return lines;
  }
}

int32_t IndexOfName(std::string_view name) { return static_cast<int32_t>(name.size()); }

TEST(LineBatchTest, ChunksSplitIntoTheLinesNextReturns) {
  std::string text = Trace(400);
  text += "7 openat(AT_FDCWD, \"/" + std::string(700, 'y') + "\", O_RDONLY) = 3\n";
  text += "\n+++ exited with 0 +++\n" + Trace(50) + "7 close(3) = 0";  // no final newline
  for (size_t buffer : {size_t{64}, size_t{4096}, size_t{1} << 20}) {
    for (size_t limit : {size_t{300}, size_t{16} << 20}) {
      LineReaderOptions reader_options;
      reader_options.initial_buffer_bytes = buffer;
      reader_options.max_line_bytes = limit;
      std::vector<ChunkedLine> expected;
      {
        auto reader = LineReader::FromString(text, reader_options);
        BatchOptions options;
        options.syscall_index = &IndexOfName;
        LineBatch batch;
        do {
          FillBatch(*reader, options, &batch);
          for (const BatchedLine& l : batch.lines) {
            expected.push_back(
                {std::string(batch.Text(l)), l.cut, l.unterminated, l.pid, l.syscall, l.return_at});
          }
        } while (!batch.last);
      }
      ASSERT_EQ(expected.size(), 454u);
      for (size_t target : {size_t{1}, size_t{5000}}) {
        auto reader = LineReader::FromString(text, reader_options);
        BatchOptions options;
        options.target_bytes = target;
        options.syscall_index = &IndexOfName;
        size_t raw = 0;
        EXPECT_EQ(ReadChunked(*reader, options, &raw), expected) << buffer << " " << limit;
        EXPECT_GT(raw, 0u) << "no run of whole lines was taken raw: " << buffer << " " << limit
                           << " " << target;
        EXPECT_EQ(reader->bytes_consumed(), text.size());
      }
    }
  }
}

// A whole call the caller always reads the arguments of is split by SplitChunk: the head
// points at the list its ArgList would make, and only there.
bool ReadsOpenat(int32_t syscall) { return syscall == 6; }  // IndexOfName("openat")

TEST(LineBatchTest, ChunksSplitTheArgumentsTheCallerReads) {
  std::string text = Trace(100);
  for (int i = 0; i < 100; ++i) {
    text +=
        "7 openat(AT_FDCWD, \"/a,b\", O_RDONLY) = 3\n"
        "7 readlink(\"/x\", 0x7ffd, 4095) = -1 EINVAL (Invalid argument)\n"
        "7 openat(AT_FDCWD, \"/c\", O_RDONLY <unfinished ...>\n"
        "7 openat(AT_FDCWD, \"/d\"\n";  // cut short: no return
  }
  auto reader = LineReader::FromString(text);
  BatchOptions options;
  options.target_bytes = 5000;
  options.syscall_index = &IndexOfName;
  options.args_read = &ReadsOpenat;
  std::vector<LineBatch> ring(3);
  size_t split_lines = 0;
  for (size_t n = 0;; ++n) {
    LineBatch& batch = ring[n % ring.size()];
    TakeChunkOrFill(*reader, options, &batch);
    const bool raw = batch.state.load() == BatchState::kRaw;
    if (raw) SplitChunk(options, reader->max_line_bytes(), &batch);
    for (const BatchedLine& l : batch.lines) {
      const LineHead head = batch.Head(l);
      const bool whole_openat = batch.Text(l).starts_with("7 openat(AT_FDCWD, \"/a,b\"");
      EXPECT_EQ(head.split != nullptr, raw && whole_openat) << batch.Text(l);
      if (head.split == nullptr) continue;
      ++split_lines;
      ArgList restored;
      ArgList split;
      EXPECT_EQ(restored.RestoreFrom(head.rest, head.split), split.SplitUntilClose(head.rest));
      ASSERT_EQ(restored.size(), 3u);
      EXPECT_EQ(restored[1], "\"/a,b\"");
    }
    if (batch.last) break;
  }
  EXPECT_GT(split_lines, 0u);
}

}  // namespace
}  // namespace fsmove::strace
