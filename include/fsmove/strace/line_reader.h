// Streams a trace line by line from a file, standard input/a pipe, or a zstd-compressed file,
// in one pass and with a buffer whose size does not depend on the length of the trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fsmove::strace {

// A source of raw bytes: a file descriptor, possibly behind a zstd decoder.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; returns the count, 0 at end of input, or an error.
  virtual absl::StatusOr<size_t> Read(char* buf, size_t n) = 0;

  // For a source that makes its bytes in buffers of its own (the zstd decoder's thread): hands
  // the next ones over in their buffer instead of copying them. The caller's pending bytes,
  // (*buf)[*begin, end), are copied in just before the new ones; *buf becomes that buffer
  // (the old one is kept for later bytes) and *begin where the pending bytes now start.
  // Returns the count of new bytes (they follow the pending ones), 0 at end of input (*buf
  // unchanged), an error, or kCannotHandOver (nothing changed: call Read()).
  static constexpr size_t kCannotHandOver = SIZE_MAX;
  virtual absl::StatusOr<size_t> HandOver(std::vector<char>* /*buf*/, size_t* /*begin*/,
                                          size_t /*end*/) {
    return kCannotHandOver;
  }
};

// Reads a file descriptor (a pipe, a FIFO, a file); closes it on destruction if `owned`.
std::unique_ptr<ByteSource> FdByteSource(int fd, bool owned);

struct LineReaderOptions {
  // Lines longer than this are cut to this length (the rest is skipped) and flagged.
  size_t max_line_bytes = 16u << 20;
  size_t initial_buffer_bytes = 1u << 20;
  // Decompress zstd input on a thread of its own, a bounded few chunks ahead of the reader.
  bool decompress_thread = false;
  // Called with the path before opening a FIFO, which waits for a writer (the CLI says so).
  std::function<void(const std::string&)> on_fifo_wait;
};

class LineReader {
 public:
  // "-" reads standard input. zstd input is recognised by its magic number, whatever the name.
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path,
                                                          const LineReaderOptions& options = {});
  // For tests and in-memory input; the text may itself be zstd-compressed.
  static std::unique_ptr<LineReader> FromString(std::string data,
                                                const LineReaderOptions& options = {});
  LineReader(std::unique_ptr<ByteSource> source, std::string name,
             const LineReaderOptions& options);

  // Returns false at end of input or on a read error (see status()). The view stays valid
  // until the next call. The newline is not included.
  bool Next(std::string_view* line);
  // Like Next(), but only from the bytes already read: false when they hold no further whole
  // line (Next() then reads more). Views returned by NextBuffered() since the last Next() stay
  // valid together, until the next Next() or ExchangeBuffer(): a batch of lines, uncopied.
  bool NextBuffered(std::string_view* line);
  // Takes the whole lines buffered (those within the first max_bytes), reading first when none
  // is, as one run of bytes: `*chunk` is lines with their newlines, in the reader's buffer
  // (hand it over with ExchangeBuffer(), or copy it).
  // Their lines are counted in bytes_consumed() but not in line_number(): whoever splits them
  // counts them. False, with nothing taken, when no run of whole lines can be taken that way:
  // at the end of input, a read error, a line that does not fit the buffer, or the rest of a
  // cut line to skip; Next() then goes on as usual.
  bool NextChunk(std::string_view* chunk, size_t max_bytes = SIZE_MAX);
  // Hands the storage of the lines returned so far to the caller: `*spare` becomes the
  // reader's buffer, of `size` bytes or more (the bytes not yet returned move to its front),
  // and the old buffer is returned in `*spare`, the views into it still valid. From then on
  // a read brings at most `size` bytes. A spare over 4x `size` (it held a long line) is
  // dropped first, so memory stays bounded. Cost: the bytes not yet returned, usually part
  // of a line.
  void ExchangeBuffer(std::vector<char>* spare, size_t size);
  // The buffer, which grows only for a line that does not fit.
  const char* buffer_data() const { return buf_.data(); }
  size_t buffer_bytes() const { return buf_.size(); }

  uint64_t line_number() const { return line_number_; }  // 1-based, of the last line returned
  uint64_t bytes_consumed() const { return bytes_consumed_; }
  // The last line returned was longer than max_line_bytes and was cut.
  bool last_line_cut() const { return last_line_cut_; }
  // The last line returned had no terminating newline (a truncated trace).
  bool last_line_unterminated() const { return last_line_unterminated_; }
  const absl::Status& status() const { return status_; }
  size_t max_line_bytes() const { return options_.max_line_bytes; }
  const std::string& name() const { return name_; }

 private:
  bool Fill();  // reads more bytes after the pending ones; false at EOF or error
  // Whether a read brought bytes; records a read error in status_ and the end in eof_.
  bool Brought(const absl::StatusOr<size_t>& got);
  size_t NominalBufferBytes() const;

  std::unique_ptr<ByteSource> source_;
  std::string name_;
  LineReaderOptions options_;
  std::vector<char> buf_;
  size_t begin_ = 0;              // first unread byte
  size_t end_ = 0;                // one past the last valid byte
  size_t scan_from_ = 0;          // [begin_, scan_from_) holds no newline
  size_t read_limit_ = SIZE_MAX;  // bytes asked of the source at once (ExchangeBuffer)
  bool eof_ = false;
  bool hand_over_ = false;  // try ByteSource::HandOver before Read (a decoder thread)
  bool skipping_rest_of_line_ = false;
  uint64_t line_number_ = 0;
  uint64_t bytes_consumed_ = 0;
  bool last_line_cut_ = false;
  bool last_line_unterminated_ = false;
  absl::Status status_;
};

}  // namespace fsmove::strace
