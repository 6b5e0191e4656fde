// Bounded reading of whole files; see read_file.h.
#include "fsmove/base/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/errno_status.h"

namespace fsmove::base {
namespace {

std::string_view KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

std::string SizeText(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  return bytes % kMiB == 0 ? fmt::format("{} MiB", bytes / kMiB) : fmt::format("{} bytes", bytes);
}

// "cannot read WHAT PATH", the head of every error.
std::string CannotRead(std::string_view what, std::string_view path) {
  return what.empty() ? fmt::format("cannot read {}", path)
                      : fmt::format("cannot read {} {}", what, path);
}

}  // namespace

// Reads the open `fd` to its end and closes it; refuses anything but a regular file of at
// most `max_bytes` (checked again while reading: the file may grow after fstat).
absl::StatusOr<std::string> ReadOpenFile(int fd, std::string_view what, std::string_view path,
                                         std::size_t max_bytes) {
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return ErrnoStatus(CannotRead(what, path));
  if (S_ISDIR(st.st_mode)) return ErrnoStatus(CannotRead(what, path), EISDIR);
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}, not a regular file", CannotRead(what, path), KindOf(st.st_mode)));
  }
  const auto too_large = [&] {
    return absl::ResourceExhaustedError(
        fmt::format("{}: larger than {}", CannotRead(what, path), SizeText(max_bytes)));
  };
  if (static_cast<std::size_t>(st.st_size) > max_bytes) return too_large();
  // Opened with O_NONBLOCK so that a FIFO could not hang the open; a regular file reads the
  // same either way, but clear it so a slow filesystem is waited for, not reported.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));  // /proc files say 0 and grow as read
  char chunk[64 * 1024];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(CannotRead(what, path));
    if (n == 0) return text;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) return too_large();
    text.append(chunk, static_cast<std::size_t>(n));
  }
}

absl::StatusOr<std::string> ReadFile(const std::string& path, std::string_view what,
                                     std::size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ErrnoStatus(CannotRead(what, path));
  return ReadOpenFile(fd, what, path, max_bytes);
}

absl::StatusOr<std::string> ReadUntrustedFile(int dir_fd, const std::string& name,
                                              std::string_view what, std::size_t max_bytes) {
  const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ELOOP) {
    return absl::PermissionDeniedError(
        fmt::format("{}: a symbolic link, never followed", CannotRead(what, name)));
  }
  if (fd < 0) return ErrnoStatus(CannotRead(what, name));
  return ReadOpenFile(fd, what, name, max_bytes);
}

}  // namespace fsmove::base
