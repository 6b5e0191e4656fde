// Opening, reading and writing files beneath a root directory; see beneath.h.
#include "fsmove/base/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <vector>

#include "fmt/format.h"
#include "fsmove/base/errno_status.h"

namespace fsmove::base {
namespace {

// The kernel said ENOSYS once: every later open walks.
std::atomic<bool> no_openat2{false};

std::string Display(std::string_view relative, std::string_view display) {
  return std::string(display.empty() ? relative : display);
}

// The components of `relative`, or why it cannot be resolved beneath a root.
absl::StatusOr<std::vector<std::string_view>> Components(std::string_view relative,
                                                         std::string_view display) {
  if (!relative.empty() && relative.front() == '/') {
    return absl::InvalidArgumentError(
        fmt::format("{}: an absolute path, not one beneath its root", display));
  }
  std::vector<std::string_view> parts;
  while (!relative.empty()) {
    const std::size_t slash = relative.find('/');
    const std::string_view part = relative.substr(0, slash);
    relative = slash == std::string_view::npos ? std::string_view{} : relative.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return absl::InvalidArgumentError(
          fmt::format("{}: \"..\" would lead out of its root", display));
    }
    parts.push_back(part);
  }
  return parts;
}

absl::Status LinkRefused(std::string_view display, std::string_view component) {
  return absl::PermissionDeniedError(fmt::format(
      "{}: {} is a symbolic link, never followed (fsmove opens the user's files only beneath "
      "their root)",
      display, component));
}

// Whether `name` in `dir_fd` is a symbolic link (without following it).
bool IsLink(int dir_fd, const std::string& name) {
  struct stat st {};
  return fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

absl::StatusOr<UniqueFd> Walk(int root_fd, const std::vector<std::string_view>& parts, int flags,
                              const std::string& display) {
  UniqueFd dir(openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return ErrnoStatus(display);
  if (parts.empty()) {
    UniqueFd self(openat(root_fd, ".", flags | O_CLOEXEC));
    if (self.get() < 0) return ErrnoStatus(display);
    return self;
  }
  std::string walked;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string name(parts[i]);
    walked = walked.empty() ? name : fmt::format("{}/{}", walked, name);
    const bool last = i + 1 == parts.size();
    // O_PATH | O_NOFOLLOW opens a link itself rather than failing: O_DIRECTORY then says
    // ENOTDIR, and the final open is checked with fstat.
    const int open_flags =
        last ? flags | O_NOFOLLOW | O_CLOEXEC : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    UniqueFd next(openat(dir.get(), name.c_str(), open_flags));
    if (next.get() < 0) {
      const int e = errno;
      if ((e == ELOOP || e == ENOTDIR) && IsLink(dir.get(), name)) {
        return LinkRefused(display, walked);
      }
      return ErrnoStatus(display, e);
    }
    if (last && (flags & O_PATH) != 0) {
      struct stat st {};
      if (fstat(next.get(), &st) == 0 && S_ISLNK(st.st_mode)) return LinkRefused(display, walked);
    }
    dir = std::move(next);
  }
  return dir;
}

// The component of `parts` that is a link, for the error of an openat2 that said ELOOP.
absl::Status WhichLink(int root_fd, const std::vector<std::string_view>& parts,
                       const std::string& display) {
  auto walked = Walk(root_fd, parts, O_PATH, display);
  if (!walked.ok()) return walked.status();
  return absl::PermissionDeniedError(
      fmt::format("{}: has a symbolic link in it, never followed", display));
}

}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

absl::StatusOr<UniqueFd> OpenRoot(const std::string& root, std::string_view what) {
  UniqueFd fd(open(root.empty() ? "." : root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) {
    return ErrnoStatus(what.empty() ? fmt::format("cannot open {}", root)
                                    : fmt::format("cannot open {} {}", what, root));
  }
  return fd;
}

std::string BeneathName(std::string_view root, std::string_view relative) {
  if (root.empty() || root == ".") return std::string(relative);
  if (relative.empty()) return std::string(root);
  return root.back() == '/' ? fmt::format("{}{}", root, relative)
                            : fmt::format("{}/{}", root, relative);
}

absl::StatusOr<UniqueFd> OpenBeneathByWalk(int root_fd, std::string_view relative, int flags,
                                           std::string_view display) {
  const std::string name = Display(relative, display);
  auto parts = Components(relative, name);
  if (!parts.ok()) return parts.status();
  return Walk(root_fd, *parts, flags, name);
}

absl::StatusOr<UniqueFd> OpenBeneath(int root_fd, std::string_view relative, int flags,
                                     std::string_view display) {
  const std::string name = Display(relative, display);
  auto parts = Components(relative, name);
  if (!parts.ok()) return parts.status();
  if (no_openat2.load(std::memory_order_relaxed)) return Walk(root_fd, *parts, flags, name);
  std::string path = ".";  // "./a/b": the components checked above, nothing else
  for (std::string_view p : *parts) {
    path += '/';
    path += p;
  }
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd = static_cast<int>(syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof how));
    if (fd >= 0) {
      UniqueFd out(fd);
      // With O_PATH | O_NOFOLLOW openat2 hands out a final link itself.
      if ((flags & O_PATH) != 0) {
        struct stat st {};
        if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) return WhichLink(root_fd, *parts, name);
      }
      return out;
    }
    const int e = errno;
    if (e == EAGAIN || e == EINTR) continue;  // a rename or mount raced the lookup: again
    if (e == ENOSYS || e == EPERM) {
      // No openat2 (before 5.6, or a seccomp filter that refuses it): walk.
      if (e == ENOSYS) no_openat2.store(true, std::memory_order_relaxed);
      return Walk(root_fd, *parts, flags, name);
    }
    if (e == ELOOP) return WhichLink(root_fd, *parts, name);
    if (e == EXDEV) {
      return absl::PermissionDeniedError(
          fmt::format("{}: leads out of its root, never followed", name));
    }
    return ErrnoStatus(name, e);
  }
  return Walk(root_fd, *parts, flags, name);
}

absl::StatusOr<std::string> ReadFileBeneath(int root_fd, std::string_view root,
                                            std::string_view relative, std::string_view what,
                                            std::size_t max_bytes) {
  const std::string name = BeneathName(root, relative);
  auto fd = OpenBeneath(root_fd, relative, O_RDONLY | O_NONBLOCK, name);
  if (!fd.ok()) {
    return absl::Status(
        fd.status().code(),
        what.empty() ? fmt::format("cannot read {}", std::string(fd.status().message()))
                     : fmt::format("cannot read {} {}", what, std::string(fd.status().message())));
  }
  return ReadOpenFile(fd->release(), what, name, max_bytes);
}

absl::StatusOr<std::string> ReadFileBeneath(const std::string& root, std::string_view relative,
                                            std::string_view what, std::size_t max_bytes) {
  auto root_fd = OpenRoot(root, what);
  if (!root_fd.ok()) return root_fd.status();
  return ReadFileBeneath(root_fd->get(), root, relative, what, max_bytes);
}

absl::Status WriteFileBeneath(int root_fd, std::string_view root, std::string_view relative,
                              std::string_view text) {
  const std::string name = BeneathName(root, relative);
  auto failed = [&](std::string_view why) {
    return absl::PermissionDeniedError(fmt::format("cannot write {}: {}", name, why));
  };
  const std::size_t slash = relative.rfind('/');
  const std::string_view dir_part =
      slash == std::string_view::npos ? std::string_view{} : relative.substr(0, slash);
  const std::string file(slash == std::string_view::npos ? relative : relative.substr(slash + 1));
  if (file.empty() || file == "." || file == "..") return failed("not a file name");
  auto dir = OpenBeneath(root_fd, dir_part, O_RDONLY | O_DIRECTORY, name);
  if (!dir.ok()) {
    return absl::Status(dir.status().code(),
                        fmt::format("cannot write {}", std::string(dir.status().message())));
  }
  struct stat old {};
  const bool existed = fstatat(dir->get(), file.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0;
  if (existed && S_ISLNK(old.st_mode)) return LinkRefused(name, relative);
  if (existed && S_ISDIR(old.st_mode)) return failed(std::strerror(EISDIR));
  if (existed && !S_ISREG(old.st_mode)) return failed("not a regular file");
  if (!existed && errno != ENOENT) return failed(std::strerror(errno));
  // A new name beside it, made with O_EXCL | O_NOFOLLOW: never an existing file or link.
  std::random_device random;
  std::string tmp;
  UniqueFd out;
  for (int attempt = 0; attempt < 100 && out.get() < 0; ++attempt) {
    tmp =
        fmt::format(".{}.fsmove-{:08x}", file.size() > 200 ? file.substr(0, 200) : file, random());
    out = UniqueFd(openat(dir->get(), tmp.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out.get() < 0 && errno != EEXIST) return failed(std::strerror(errno));
  }
  if (out.get() < 0) return failed("no free temporary name beside it");
  struct Remove {
    int dir;
    const std::string& tmp;
    bool armed = true;
    ~Remove() {
      if (armed) unlinkat(dir, tmp.c_str(), 0);
    }
  } remove{dir->get(), tmp};
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(out.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed(std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(out.get(), existed ? (old.st_mode & 07777) : (0666 & ~mask)) != 0) {
    return failed(std::strerror(errno));
  }
  if (existed && geteuid() == 0 && fchown(out.get(), old.st_uid, old.st_gid) != 0) {
    return failed(fmt::format("cannot give it back to its owner: {}", std::strerror(errno)));
  }
  if (fsync(out.get()) != 0) return failed(std::strerror(errno));
  if (close(out.release()) != 0) return failed(std::strerror(errno));
  if (renameat(dir->get(), tmp.c_str(), dir->get(), file.c_str()) != 0) {
    return failed(std::strerror(errno));
  }
  remove.armed = false;
  return absl::OkStatus();
}

absl::Status WriteFileBeneath(const std::string& root, std::string_view relative,
                              std::string_view text) {
  auto root_fd = OpenRoot(root);
  if (!root_fd.ok()) return root_fd.status();
  return WriteFileBeneath(root_fd->get(), root, relative, text);
}

}  // namespace fsmove::base
