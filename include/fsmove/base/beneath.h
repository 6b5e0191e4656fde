// Host files opened for the user's code or configuration, resolved beneath the directory they
// belong to (a module, a modules directory, a patch's root): never through a symbolic link,
// never out by "..", as systemd's chase() and crun's safe_openat do for host paths.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fsmove/base/read_file.h"

namespace fsmove::base {

// An owned file descriptor (-1: none), closed when destroyed.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// The open descriptor `fd` (owned: closed on return) read as ReadFile reads a file, its errors
// naming `what` and `path` (read_file.cc, beside ReadFile).
absl::StatusOr<std::string> ReadOpenFile(int fd, std::string_view what, std::string_view path,
                                         std::size_t max_bytes);

// The root directory itself, as the user named it (links in its own path are the user's
// choice and are followed): O_PATH | O_DIRECTORY. Errors: "cannot open WHAT ROOT: REASON".
absl::StatusOr<UniqueFd> OpenRoot(const std::string& root, std::string_view what = {});

// Opens `relative` beneath the directory `root_fd` with `flags` (O_RDONLY, O_DIRECTORY,
// O_PATH, ...; never O_CREAT: see WriteFileBeneath). No component may be a symbolic link, the
// last one included; ".." and an absolute path are refused; "." and repeated slashes are
// skipped, and an empty path opens the root itself. openat2(RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) where the kernel has it (5.6+), else a walk of
// openat(O_NOFOLLOW) from descriptor to descriptor, so a directory renamed or replaced by a
// link during the walk is never followed either. Errors name `display` (the path as the user
// knows it; `relative` when empty) and never the file's content:
//   InvalidArgument  "DISPLAY: an absolute path" / "DISPLAY: \"..\" leads out of ROOT"
//   PermissionDenied "DISPLAY: COMPONENT is a symbolic link, never followed"
//   the errno's code and strerror otherwise ("DISPLAY: No such file or directory").
absl::StatusOr<UniqueFd> OpenBeneath(int root_fd, std::string_view relative, int flags,
                                     std::string_view display = {});

// The same by the component walk alone, whatever the kernel has (the fallback, for tests).
absl::StatusOr<UniqueFd> OpenBeneathByWalk(int root_fd, std::string_view relative, int flags,
                                           std::string_view display = {});

// "ROOT/RELATIVE", the name errors use for a file beneath ROOT.
std::string BeneathName(std::string_view root, std::string_view relative);

// A regular file beneath `root_fd` (or the directory `root`) read whole, as ReadFile reads
// one: "cannot read WHAT ROOT/RELATIVE: REASON".
absl::StatusOr<std::string> ReadFileBeneath(int root_fd, std::string_view root,
                                            std::string_view relative, std::string_view what,
                                            std::size_t max_bytes = kMaxDocumentBytes);
absl::StatusOr<std::string> ReadFileBeneath(const std::string& root, std::string_view relative,
                                            std::string_view what,
                                            std::size_t max_bytes = kMaxDocumentBytes);

// Replaces (or creates) the regular file `relative` beneath `root_fd` with `text`: its
// directory is opened beneath the root (OpenBeneath), the text written to a new file there
// (O_CREAT | O_EXCL | O_NOFOLLOW: never an existing file or link), synced, given the old
// file's mode and, run as root, its owner (a new file: 0666 less the umask), and renamed over
// the name, which replaces a link planted meanwhile rather than following it. A final
// symbolic link, a directory or a device at the name is refused. Errors: "cannot write
// ROOT/RELATIVE: REASON".
absl::Status WriteFileBeneath(int root_fd, std::string_view root, std::string_view relative,
                              std::string_view text);
absl::Status WriteFileBeneath(const std::string& root, std::string_view relative,
                              std::string_view text);

}  // namespace fsmove::base
