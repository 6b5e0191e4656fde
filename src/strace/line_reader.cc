// Streams a trace line by line (file, pipe or zstd) with a bounded buffer; see line_reader.h.
// Lines are found with memchr; the buffer only grows up to the longest line allowed.
#include "fsmove/strace/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "fsmove/strace/spsc_ring.h"

namespace fsmove::strace {
namespace {

class FdSource : public ByteSource {
 public:
  FdSource(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~FdSource() override {
    if (owned_) close(fd_);
  }
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    for (;;) {
      ssize_t got = read(fd_, buf, n);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, "read failed");
    }
  }

 private:
  int fd_;
  bool owned_;
};

}  // namespace

std::unique_ptr<ByteSource> FdByteSource(int fd, bool owned) {
  return std::make_unique<FdSource>(fd, owned);
}

namespace {

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    size_t k = std::min(n, data_.size() - pos_);
    memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

// Serves a few already-read bytes first, then the rest of the underlying source.
class PrefixedSource : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ < prefix_.size()) {
      size_t k = std::min(n, prefix_.size() - pos_);
      memcpy(buf, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return rest_->Read(buf, n);
  }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

class ZstdSource : public ByteSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> compressed)
      : in_(std::move(compressed)), stream_(ZSTD_createDStream()), inbuf_(ZSTD_DStreamInSize()) {
    ZSTD_initDStream(stream_);
  }
  ~ZstdSource() override { ZSTD_freeDStream(stream_); }

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    ZSTD_outBuffer out{buf, n, 0};
    while (out.pos == 0) {
      if (in_pos_ == in_size_) {
        if (in_eof_) {
          if (frame_open_) return absl::DataLossError("zstd stream is truncated (cut short)");
          return 0;
        }
        auto got = in_->Read(inbuf_.data(), inbuf_.size());
        if (!got.ok()) return got.status();
        in_size_ = *got;
        in_pos_ = 0;
        if (in_size_ == 0) {
          in_eof_ = true;
          continue;
        }
      }
      ZSTD_inBuffer in{inbuf_.data(), in_size_, in_pos_};
      size_t rc = ZSTD_decompressStream(stream_, &out, &in);
      in_pos_ = in.pos;
      if (ZSTD_isError(rc)) {
        return absl::DataLossError(absl::StrCat("corrupt zstd data: ", ZSTD_getErrorName(rc)));
      }
      frame_open_ = rc != 0;
    }
    return out.pos;
  }

 private:
  std::unique_ptr<ByteSource> in_;
  ZSTD_DStream* stream_;
  std::vector<char> inbuf_;
  size_t in_pos_ = 0;
  size_t in_size_ = 0;
  bool in_eof_ = false;
  bool frame_open_ = false;
};

// Runs another source's reads (the zstd decoder) on a thread of its own, a few chunks ahead
// of the reader: a bounded ring of chunks, allocated once. The reader takes each chunk's
// buffer as its own (HandOver), so decoded bytes are written once, where lines are split.
class ThreadedSource : public ByteSource {
 public:
  ThreadedSource(std::unique_ptr<ByteSource> inner, size_t chunk_bytes, size_t chunks)
      : inner_(std::move(inner)), chunk_bytes_(chunk_bytes), ring_(chunks) {}
  ~ThreadedSource() override {
    if (thread_.joinable()) {
      ring_.Close();
      thread_.join();
    }
  }

  absl::StatusOr<size_t> Read(char* buf, size_t n) override {
    if (!NextChunk()) return final_.ok() ? absl::StatusOr<size_t>(0) : final_;
    const size_t k = std::min(n, current_->size - pos_);
    memcpy(buf, current_->data.data() + kHeadroom + pos_, k);
    pos_ += k;
    if (pos_ == current_->size) Release();
    return k;
  }

  absl::StatusOr<size_t> HandOver(std::vector<char>* buf, size_t* begin, size_t end) override {
    const size_t pending = end - *begin;
    if (pending > kHeadroom) return kCannotHandOver;  // a long line: copied, by Read()
    if (!NextChunk()) return final_.ok() ? absl::StatusOr<size_t>(0) : final_;
    if (pos_ != 0) return kCannotHandOver;  // partly copied out already
    char* front = current_->data.data() + kHeadroom - pending;
    if (pending > 0) memcpy(front, buf->data() + *begin, pending);
    buf->swap(current_->data);  // the old buffer goes back to the decoder with the slot
    *begin = kHeadroom - pending;
    const size_t k = current_->size;
    Release();
    return k;
  }

 private:
  // Room kept before each chunk's bytes for the reader's unfinished line.
  static constexpr size_t kHeadroom = 64u << 10;

  struct Chunk {
    std::vector<char> data;  // kHeadroom bytes, then the chunk's `size` bytes
    size_t size = 0;
    bool last = false;
    absl::Status status;
  };

  // Makes current_ a chunk with bytes left; false at the end (final_ says how it ended).
  bool NextChunk() {
    if (!started_) {
      started_ = true;
      thread_ = std::thread([this] { Produce(); });
    }
    while (current_ == nullptr) {
      if (finished_) return false;
      current_ = ring_.BeginRead();
      pos_ = 0;
      if (current_->size == 0) Release();  // an end chunk without data
    }
    return true;
  }

  void Release() {
    if (current_->last) {
      finished_ = true;
      final_ = current_->status;
    }
    ring_.EndRead();
    current_ = nullptr;
  }

  void Produce() {
    for (;;) {
      Chunk* c = ring_.BeginWrite();
      if (c == nullptr) return;  // the reader is gone
      // Buffers come back from the reader at any size: grown once, never shrunk (a resize
      // that grows zeroes what it adds).
      if (c->data.size() < kHeadroom + chunk_bytes_) c->data.resize(kHeadroom + chunk_bytes_);
      char* out = c->data.data() + kHeadroom;
      const size_t room = c->data.size() - kHeadroom;
      c->size = 0;
      while (c->size < room) {
        auto got = inner_->Read(out + c->size, room - c->size);
        if (!got.ok() || *got == 0) {
          c->last = true;
          c->status = got.ok() ? absl::OkStatus() : got.status();
          break;
        }
        c->size += *got;
      }
      const bool last = c->last;
      ring_.EndWrite();
      if (last) return;
    }
  }

  std::unique_ptr<ByteSource> inner_;
  const size_t chunk_bytes_;
  SpscRing<Chunk> ring_;
  std::thread thread_;
  bool started_ = false;
  Chunk* current_ = nullptr;
  size_t pos_ = 0;
  bool finished_ = false;
  absl::Status final_;
};

constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
// The decoder thread's ring: a few chunks ahead of the reader, 1.25 MiB in all with their
// headroom. Every buffer of the ring also passes through the reader and the batches that take
// its lines (threaded analysis): its size counts as many times in the peak RSS.
constexpr size_t kDecodedChunkBytes = 256u << 10;
constexpr size_t kDecodedChunks = 4;

// Wraps the source in a zstd decoder when its first bytes are the zstd magic number.
// With `decompress_thread`, the decoder runs on a thread of its own.
absl::StatusOr<std::unique_ptr<ByteSource>> SniffCompression(std::unique_ptr<ByteSource> src,
                                                             bool decompress_thread) {
  std::string head(4, '\0');
  size_t have = 0;
  while (have < head.size()) {
    auto got = src->Read(head.data() + have, head.size() - have);
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    have += *got;
  }
  head.resize(have);
  bool zstd = have == 4 && memcmp(head.data(), kZstdMagic, 4) == 0;
  auto joined = std::make_unique<PrefixedSource>(std::move(head), std::move(src));
  if (zstd) {
    std::unique_ptr<ByteSource> decoder = std::make_unique<ZstdSource>(std::move(joined));
    if (decompress_thread) {
      decoder =
          std::make_unique<ThreadedSource>(std::move(decoder), kDecodedChunkBytes, kDecodedChunks);
    }
    return decoder;
  }
  return std::unique_ptr<ByteSource>(std::move(joined));
}

}  // namespace

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path,
                                                             const LineReaderOptions& options) {
  std::unique_ptr<ByteSource> raw;
  // The decoder thread only for a regular file: on a pipe or FIFO it could wait for a writer
  // that never comes, and a reader stopped early (an error) would then wait for it at exit.
  bool regular = false;
  if (path == "-") {
    raw = std::make_unique<FdSource>(STDIN_FILENO, false);
  } else {
    // A device would be read forever (/dev/zero) or not at all: a trace is a file, a FIFO
    // (a recording in progress) or `-`. A FIFO's open waits for a writer: say so first.
    struct stat pre {};
    if (stat(path.c_str(), &pre) == 0) {
      if (S_ISCHR(pre.st_mode) || S_ISBLK(pre.st_mode) || S_ISSOCK(pre.st_mode)) {
        return absl::FailedPreconditionError(absl::StrCat(
            path, ": a device or socket, not a trace (give a file, a FIFO, or - for stdin)"));
      }
      if (S_ISFIFO(pre.st_mode) && options.on_fifo_wait) options.on_fifo_wait(path);
    }
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return absl::ErrnoToStatus(errno, path);  // NotFound, PermissionDenied, ...
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {  // open() accepts it; read() would not
      close(fd);
      return absl::FailedPreconditionError(absl::StrCat(path, ": Is a directory"));
    }
    regular = S_ISREG(st.st_mode);
    raw = std::make_unique<FdSource>(fd, true);
  }
  auto sniffed = SniffCompression(std::move(raw), options.decompress_thread && regular);
  if (!sniffed.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": ", sniffed.status().message()));
  }
  return std::make_unique<LineReader>(std::move(*sniffed), path == "-" ? "<stdin>" : path, options);
}

std::unique_ptr<LineReader> LineReader::FromString(std::string data,
                                                   const LineReaderOptions& options) {
  auto sniffed =
      SniffCompression(std::make_unique<StringSource>(std::move(data)), options.decompress_thread);
  return std::make_unique<LineReader>(std::move(*sniffed), "<string>", options);
}

LineReader::LineReader(std::unique_ptr<ByteSource> source, std::string name,
                       const LineReaderOptions& options)
    : source_(std::move(source)), name_(std::move(name)), options_(options) {
  buf_.resize(NominalBufferBytes());
  hand_over_ = options_.decompress_thread;
}

size_t LineReader::NominalBufferBytes() const {
  return std::max<size_t>(options_.initial_buffer_bytes, 4096);
}

bool LineReader::Brought(const absl::StatusOr<size_t>& got) {
  if (!got.ok()) {
    status_ = absl::DataLossError(absl::StrCat(name_, ": ", got.status().message()));
    return false;
  }
  if (*got == 0) eof_ = true;
  return *got != 0;
}

bool LineReader::Fill() {
  if (eof_ || !status_.ok()) return false;
  if (hand_over_) {  // the source's own buffer becomes ours, the pending bytes in front
    const size_t pending = end_ - begin_;
    const size_t scanned = scan_from_ - begin_;
    auto got = source_->HandOver(&buf_, &begin_, end_);
    if (!Brought(got)) return false;
    if (*got != ByteSource::kCannotHandOver) {
      scan_from_ = begin_ + scanned;
      end_ = begin_ + pending + *got;
      return true;
    }
  }
  if (begin_ > 0) {  // keep the pending partial line at the front
    memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    scan_from_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) {
    size_t cap = options_.max_line_bytes + 1;
    if (buf_.size() >= cap) return true;  // caller cuts the line
    buf_.resize(std::min(buf_.size() * 2, cap));
  }
  auto got = source_->Read(buf_.data() + end_, std::min(buf_.size() - end_, read_limit_));
  if (!Brought(got)) return false;
  end_ += *got;
  return true;
}

void LineReader::ExchangeBuffer(std::vector<char>* spare, size_t size) {
  size = std::max<size_t>(size, 4096);
  if (spare->size() > 4 * size) std::vector<char>().swap(*spare);  // it held a long line
  const size_t pending = end_ - begin_;
  // Grown once, then recycled at its size: resizing a vector zeroes what it adds.
  if (spare->size() < std::max(size, pending)) spare->resize(std::max(size, pending));
  if (pending > 0) memcpy(spare->data(), buf_.data() + begin_, pending);
  buf_.swap(*spare);
  read_limit_ = size;  // a recycled buffer may be larger: one read, one batch
  scan_from_ -= begin_;
  end_ = pending;
  begin_ = 0;
}

bool LineReader::NextBuffered(std::string_view* line) {
  last_line_cut_ = false;
  last_line_unterminated_ = false;
  for (;;) {
    const char* base = buf_.data();
    const void* nl = memchr(base + scan_from_, '\n', end_ - scan_from_);
    if (nl == nullptr) {
      scan_from_ = end_;
      const size_t pending = end_ - begin_;
      if (skipping_rest_of_line_) {
        bytes_consumed_ += pending;
        begin_ = end_;
      } else if (pending > options_.max_line_bytes) {  // the buffer is at its cap
        *line = std::string_view(base + begin_, options_.max_line_bytes);
        bytes_consumed_ += pending;
        begin_ = end_;
        skipping_rest_of_line_ = true;
        last_line_cut_ = true;
        ++line_number_;
        return true;
      }
      return false;
    }
    const size_t pos = static_cast<const char*>(nl) - base;
    const size_t start = begin_;
    bytes_consumed_ += pos + 1 - start;
    begin_ = scan_from_ = pos + 1;
    if (skipping_rest_of_line_) {  // tail of an over-long line already returned
      skipping_rest_of_line_ = false;
      continue;
    }
    size_t length = pos - start;
    if (length > options_.max_line_bytes) {  // fits in the buffer, but over the cap
      length = options_.max_line_bytes;
      last_line_cut_ = true;
    }
    *line = std::string_view(base + start, length);
    ++line_number_;
    return true;
  }
}

bool LineReader::NextChunk(std::string_view* chunk, size_t max_bytes) {
  last_line_cut_ = false;
  last_line_unterminated_ = false;
  if (skipping_rest_of_line_) return false;
  // The last newline among the first max_bytes pending bytes ([begin_, scan_from_) has none).
  auto last_newline = [&]() -> const char* {
    const size_t limit = begin_ + std::min(max_bytes, end_ - begin_);
    if (scan_from_ >= limit) return nullptr;
    return static_cast<const char*>(memrchr(buf_.data() + scan_from_, '\n', limit - scan_from_));
  };
  const char* nl = last_newline();
  if (nl == nullptr) {
    if (end_ - begin_ < max_bytes) scan_from_ = end_;
    // The pending bytes fill the buffer: a long line, which Next() grows the buffer for.
    if (end_ - begin_ == buf_.size() || end_ - begin_ >= max_bytes || !Fill()) return false;
    nl = last_newline();
    if (nl == nullptr) return false;
  }
  const size_t end = static_cast<size_t>(nl - buf_.data()) + 1;
  *chunk = std::string_view(buf_.data() + begin_, end - begin_);
  bytes_consumed_ += end - begin_;
  begin_ = scan_from_ = end;
  return true;
}

bool LineReader::Next(std::string_view* line) {
  for (;;) {
    if (NextBuffered(line)) return true;
    if (!Fill()) {
      if (!status_.ok()) return false;
      if (end_ > begin_ && !skipping_rest_of_line_) {  // last line without newline
        *line = std::string_view(buf_.data() + begin_, end_ - begin_);
        bytes_consumed_ += end_ - begin_;
        begin_ = scan_from_ = end_;
        last_line_unterminated_ = true;
        ++line_number_;
        return true;
      }
      return false;
    }
  }
}

}  // namespace fsmove::strace
