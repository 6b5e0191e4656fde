// Files the user names for fsmove to write (-o, --json-output, --save-catalog, ...): checked
// before a long run, and written whole to a temporary file beside them, then renamed into
// place, so an old report is never cut short and a failed write leaves it as it was.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fsmove::base {

// Whether `path` can be written, without changing it: it is not a symbolic link (run as root,
// a link planted where a report goes, /tmp/report -> /etc/passwd, would be followed) nor a
// directory, and its directory takes a new file (a probe file is made and removed); a device
// or FIFO must open for writing. The error names the path and says why (strerror).
absl::Status CheckWritable(const std::string& path);

// A report being written: to a new file in the same directory, renamed over `path` by Commit
// (a device or FIFO such as /dev/null is written directly). Destroyed without Commit, the
// temporary file is removed and nothing at `path` changes.
class OutputFile {
 public:
  // Checks `path` (CheckWritable) and makes the temporary file.
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return *stream_; }
  const std::string& path() const { return path_; }
  absl::Status Commit();

 private:
  OutputFile(std::string path, std::string tmp, int fd);
  std::string path_;
  std::string tmp_;  // empty: written in place
  int fd_;
  std::unique_ptr<std::streambuf> buf_;
  std::unique_ptr<std::ostream> stream_;
};

// Where a report goes: a file written whole (OutputFile), or a stream the caller names
// (standard output) when the path is empty. The one destination of every report fsmove writes
// (check's seven formats, analyze's relations, trace, graph).
class ReportDestination {
 public:
  // The error names the path and says why (OutputFile::Open).
  absl::Status Open(const std::string& path, std::ostream* fallback);
  std::ostream& stream() { return *stream_; }
  bool is_open() const { return stream_ != nullptr; }
  // Puts the file in place, or flushes the stream; an error when either fails.
  absl::Status Close();

 private:
  std::unique_ptr<OutputFile> file_;
  std::ostream* stream_ = nullptr;
};

// Open, write `text`, Commit.
absl::Status WriteOutputFile(const std::string& path, std::string_view text);

}  // namespace fsmove::base
