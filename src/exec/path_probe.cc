// What a path is at the end of a run; see path_probe.h.
#include "fsmove/exec/path_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string_view>

#include "fsmove/base/sha256.h"

namespace fsmove::exec {

namespace fs = std::filesystem;

PathState ProbePath(const std::string& path) {
  PathState p;
  p.path = path;
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    p.exists = false;
    if (errno != ENOENT) p.error = std::strerror(errno);
    return p;
  }
  p.exists = true;
  p.mode = st.st_mode & 07777;
  p.uid = st.st_uid;
  p.gid = st.st_gid;
  p.mtime = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
  if (S_ISLNK(st.st_mode)) {
    p.type = "symlink";
    std::error_code ec;
    p.target = fs::read_symlink(path, ec).string();
  } else if (S_ISDIR(st.st_mode)) {
    p.type = "directory";
  } else if (S_ISREG(st.st_mode)) {
    p.type = "file";
    p.size = static_cast<uint64_t>(st.st_size);
    // Content by digest; a file larger than the cap is compared by size and mtime only.
    constexpr off_t kMaxHashed = off_t{256} << 20;
    int fd = st.st_size <= kMaxHashed
                 ? open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                 : -1;
    if (fd >= 0) {
      base::Sha256 h;
      char buf[1 << 16];
      ssize_t got;
      while ((got = read(fd, buf, sizeof buf)) > 0)
        h.Update(std::string_view(buf, static_cast<size_t>(got)));
      close(fd);
      p.sha256 = h.FinishHex();
    }
  } else {
    p.type = "other";
  }
  return p;
}

}  // namespace fsmove::exec
