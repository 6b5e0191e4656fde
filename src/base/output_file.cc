// Writing the files users name; see output_file.h.
#include "fsmove/base/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ext/stdio_filebuf.h>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"

namespace fsmove::base {
namespace {

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

absl::Status Failed(const std::string& path, std::string_view why) {
  return absl::PermissionDeniedError(fmt::format("cannot write {}: {}", path, why));
}

// A new, empty, private file in `dir` (O_EXCL: never an existing file or link).
int MakeTemporary(const std::string& dir, std::string* name) {
  *name = dir + "/.fsmove-output.XXXXXX";
  return mkostemp(name->data(), O_CLOEXEC);
}

}  // namespace

absl::Status CheckWritable(const std::string& path) {
  if (path.empty()) return Failed(path, "empty file name");
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return absl::PermissionDeniedError(fmt::format(
          "{} is a symbolic link; fsmove does not write through one (name its target)", path));
    }
    if (S_ISDIR(st.st_mode)) return Failed(path, std::strerror(EISDIR));
    if (!S_ISREG(st.st_mode)) {  // /dev/null, a FIFO: written in place
      int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0 && errno != ENXIO)
        return Failed(path, std::strerror(errno));  // ENXIO: FIFO without reader yet
      if (fd >= 0) close(fd);
      return absl::OkStatus();
    }
  } else if (errno != ENOENT) {
    return Failed(path, std::strerror(errno));
  }
  std::string probe;
  int fd = MakeTemporary(DirectoryOf(path), &probe);
  if (fd < 0) return Failed(path, fmt::format("{}: {}", DirectoryOf(path), std::strerror(errno)));
  close(fd);
  unlink(probe.c_str());
  return absl::OkStatus();
}

OutputFile::OutputFile(std::string path, std::string tmp, int fd)
    : path_(std::move(path)),
      tmp_(std::move(tmp)),
      fd_(fd),
      buf_(std::make_unique<__gnu_cxx::stdio_filebuf<char>>(fd, std::ios::out, 1 << 16)),
      stream_(std::make_unique<std::ostream>(buf_.get())) {}

OutputFile::~OutputFile() {
  stream_.reset();
  buf_.reset();  // closes fd_ if Commit did not
  if (!tmp_.empty()) unlink(tmp_.c_str());
}

absl::StatusOr<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  if (absl::Status st = CheckWritable(path); !st.ok()) return st;
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return Failed(path, std::strerror(errno));
    return std::unique_ptr<OutputFile>(new OutputFile(path, "", fd));
  }
  const bool existed = lstat(path.c_str(), &st) == 0;
  std::string tmp;
  int fd = MakeTemporary(DirectoryOf(path), &tmp);
  if (fd < 0) return Failed(path, fmt::format("{}: {}", DirectoryOf(path), std::strerror(errno)));
  // The mode a plain create would give (or the old file's), not mkstemp's 0600.
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, existed ? (st.st_mode & 07777) : (0666 & ~mask));
  return std::unique_ptr<OutputFile>(new OutputFile(path, std::move(tmp), fd));
}

absl::Status OutputFile::Commit() {
  stream_->flush();
  absl::Status w = *stream_ ? absl::OkStatus() : absl::DataLossError("write failed");
  auto* buf = static_cast<__gnu_cxx::stdio_filebuf<char>*>(buf_.get());
  if (w.ok() && !tmp_.empty() && fsync(fd_) != 0) w = base::ErrnoStatus("fsync");
  if (buf->close() == nullptr && w.ok()) w = absl::DataLossError("close failed");
  // rename replaces whatever is at path_ (a link planted meanwhile included) without
  // following it.
  if (w.ok() && !tmp_.empty() && rename(tmp_.c_str(), path_.c_str()) != 0) {
    w = base::ErrnoStatus("rename");
  }
  if (!w.ok()) return Failed(path_, std::string(w.message()));
  tmp_.clear();
  return absl::OkStatus();
}

absl::Status ReportDestination::Open(const std::string& path, std::ostream* fallback) {
  if (path.empty()) {
    stream_ = fallback;
    if (stream_ == nullptr) return absl::InvalidArgumentError("no stream for the report");
    return absl::OkStatus();
  }
  auto file = OutputFile::Open(path);
  if (!file.ok()) return file.status();
  file_ = std::move(*file);
  stream_ = &file_->stream();
  return absl::OkStatus();
}

absl::Status ReportDestination::Close() {
  if (file_ == nullptr) {
    if (stream_ == nullptr) return absl::OkStatus();
    stream_->flush();
    return *stream_ ? absl::OkStatus() : absl::DataLossError("cannot write the report");
  }
  absl::Status st = file_->Commit();
  file_.reset();
  stream_ = nullptr;
  return st;
}

absl::Status WriteOutputFile(const std::string& path, std::string_view text) {
  auto out = OutputFile::Open(path);
  if (!out.ok()) return out.status();
  (*out)->stream() << text;
  return (*out)->Commit();
}

}  // namespace fsmove::base
