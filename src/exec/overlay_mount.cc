// Who mounts the sandbox's overlay, and the keeper's overlay; see overlay_mount.h.
#include "fsmove/exec/overlay_mount.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"

namespace fsmove::exec {

std::string_view OverlayMountName(OverlayMount how) {
  switch (how) {
    case OverlayMount::kAuto:
      return "auto";
    case OverlayMount::kSandbox:
      return "sandbox";
    case OverlayMount::kKeeper:
      return "keeper";
  }
  return "auto";
}

std::optional<OverlayMount> ParseOverlayMount(std::string_view name) {
  for (OverlayMount how : {OverlayMount::kAuto, OverlayMount::kSandbox, OverlayMount::kKeeper}) {
    if (name == OverlayMountName(how)) return how;
  }
  return std::nullopt;
}

absl::StatusOr<KeeperOverlay> KeeperOverlay::Make(const std::string& dir, const std::string& lower,
                                                  uid_t uid, gid_t gid) {
  KeeperOverlay made(dir);
  const std::string layers = dir + "/layers";
  if ((mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) ||
      (mkdir(layers.c_str(), 0700) != 0 && errno != EEXIST) ||
      (mkdir(made.merged().c_str(), 0755) != 0 && errno != EEXIST)) {
    return base::ErrnoStatus(fmt::format("mkdir {}", dir));
  }
  // The writable layer: memory, never the host's disk; sized like the sandbox's own tmpfs.
  if (mount("fsmove-layers", layers.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700,size=75%") !=
      0) {
    return base::ErrnoStatus(fmt::format("mount tmpfs on {}", layers));
  }
  for (const char* d : {"upper", "work"}) {
    const std::string p = layers + "/" + d;
    if (mkdir(p.c_str(), 0755) != 0 || chown(p.c_str(), uid, gid) != 0) {
      absl::Status st = base::ErrnoStatus(fmt::format("making {}", p));
      made.Remove();
      return st;
    }
  }
  // The lower layer by descriptor and the others relative to DIR: overlayfs splits its
  // options at ',' and ':', which a work directory's path may hold.
  int lower_fd = open(lower.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (lower_fd < 0) {
    absl::Status st = base::ErrnoStatus(fmt::format("open {}", lower));
    made.Remove();
    return st;
  }
  int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  absl::Status st = absl::OkStatus();
  if (chdir(dir.c_str()) != 0) {
    st = base::ErrnoStatus(fmt::format("chdir {}", dir));
  } else if (mount("fsmove-root", "merged", "overlay", MS_NOSUID | MS_NODEV,
                   fmt::format("lowerdir=/proc/self/fd/{},upperdir=layers/upper,workdir=layers/"
                               "work,redirect_dir=on",
                               lower_fd)
                       .c_str()) != 0) {
    st = base::ErrnoStatus(fmt::format("mount the overlay of {} on {}", lower, made.merged()));
  }
  if (cwd >= 0) {
    if (fchdir(cwd) != 0) (void)!chdir("/");  // a fortified chdir must be looked at
    close(cwd);
  }
  close(lower_fd);
  if (!st.ok()) {
    made.Remove();
    return st;
  }
  return made;
}

KeeperOverlay::KeeperOverlay(KeeperOverlay&& other) noexcept : dir_(std::move(other.dir_)) {
  other.dir_.clear();
}

KeeperOverlay::~KeeperOverlay() { Remove(); }

void KeeperOverlay::Remove() {
  if (dir_.empty()) return;
  umount2(merged().c_str(), MNT_DETACH);
  umount2((dir_ + "/layers").c_str(), MNT_DETACH);
  rmdir(merged().c_str());
  rmdir((dir_ + "/layers").c_str());
  rmdir(dir_.c_str());
  dir_.clear();
}

}  // namespace fsmove::exec
