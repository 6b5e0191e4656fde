// Bounded reading of whole input files; see input_file.h.
#include "fsmove/catalog/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fmt/format.h"

namespace fsmove::catalog {
namespace {

std::string_view KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

// Reads `fd` to its end into `text` and closes it: 0, an errno, or -1 when the file holds
// more than `max_bytes` (it grew after fstat said otherwise).
int ReadToEnd(int fd, std::size_t max_bytes, std::string* text) {
  char chunk[64 * 1024];
  int result = 0;
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result = errno;
      break;
    }
    if (n == 0) break;
    if (text->size() + static_cast<std::size_t>(n) > max_bytes) {
      result = -1;
      break;
    }
    text->append(chunk, static_cast<std::size_t>(n));
  }
  close(fd);
  return result;
}

}  // namespace

absl::StatusOr<std::string> ReadInputFile(const std::string& path, std::string_view what,
                                          std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO nobody writes to must not hang before fstat can refuse it.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT || error == EACCES || error == ENOTDIR) {
      return absl::NotFoundError(fmt::format("{}: cannot open {}: {}", path, what, std::strerror(error)));
    }
    return absl::InvalidArgumentError(
        fmt::format("{}: cannot open {}: {}", path, what, std::strerror(error)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int error = errno;
    close(fd);
    return absl::DataLossError(fmt::format("{}: cannot read {}: {}", path, what, std::strerror(error)));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(fmt::format("{}: cannot read {}: Is a directory", path, what));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        fmt::format("{}: the {} is {}, not a regular file", path, what, KindOf(st.st_mode)));
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    close(fd);
    return absl::InvalidArgumentError(fmt::format("{}: the {} is larger than {} MiB", path, what,
                                                  max_bytes >> 20));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  const int error = ReadToEnd(fd, max_bytes, &text);
  if (error > 0) {
    return absl::DataLossError(fmt::format("{}: cannot read {}: {}", path, what, std::strerror(error)));
  }
  if (error < 0) {  // grew while we read
    return absl::InvalidArgumentError(fmt::format("{}: the {} is larger than {} MiB", path,
                                                  what, max_bytes >> 20));
  }
  return text;
}

absl::StatusOr<std::string> ReadUntrustedFile(int dir_fd, const std::string& name,
                                              std::string_view what, std::size_t max_bytes) {
  const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      return absl::PermissionDeniedError(
          fmt::format("{} is a symbolic link; {} is never one", name, what));
    }
    return absl::NotFoundError(fmt::format("cannot open {}: {}", name, std::strerror(err)));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::PermissionDeniedError(fmt::format("{} is not a regular file", name));
  }
  if (static_cast<std::size_t>(st.st_size) > max_bytes) {
    close(fd);
    return absl::ResourceExhaustedError(
        fmt::format("{} is {} bytes, more than the {} {} may have", name, st.st_size, max_bytes, what));
  }
  std::string text;
  const int error = ReadToEnd(fd, max_bytes, &text);
  if (error > 0) {
    return absl::DataLossError(fmt::format("reading {}: {}", name, std::strerror(error)));
  }
  if (error < 0) {  // it grew while we read
    return absl::ResourceExhaustedError(fmt::format("{} grew past {} bytes", name, max_bytes));
  }
  return text;
}

}  // namespace fsmove::catalog
