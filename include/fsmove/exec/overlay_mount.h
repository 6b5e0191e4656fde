// Who mounts the sandbox's overlay of the OS root, and the keeper's overlay.
//
// An overlay mounted in a user namespace (`userxattr`) creates no redirects, so renaming a
// directory of the OS root fails with EXDEV ("Invalid cross-device link"; mv copies instead,
// a program's rename() fails), and it marks a directory removed and made again in a user.*
// extended attribute, which tmpfs keeps only from Linux 6.6 on. An overlay mounted by the
// host's root uses trusted.* attributes, which every tmpfs keeps, and redirects. So:
//   kKeeper   run as root (the default then): the keeper mounts the overlay before the sandbox
//             starts, over a tmpfs in its private mount namespace, with the idmapped OS root
//             as its lower layer and an upper layer owned by the sandbox's root
//             (redirect_dir=on); the sandbox gets the merged tree (and the upper layer, for
//             --keep-sandbox) as descriptors. Rootful container runtimes with a user namespace
//             do the same. Directories rename as on a real machine, on every kernel.
//   kSandbox  rootless (or where the keeper's overlay cannot be made): the sandbox's PID 1
//             mounts the overlay in its own user and mount namespaces over a tmpfs of its own;
//             the limits above hold, and are said.
//   kAuto     kKeeper when run as root, else kSandbox.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace fsmove::exec {

enum class OverlayMount { kAuto, kSandbox, kKeeper };

std::string_view OverlayMountName(OverlayMount how);
std::optional<OverlayMount> ParseOverlayMount(std::string_view name);

// Whether a tmpfs keeps user.* extended attributes: mounts a small tmpfs at `probe_dir` (an
// empty directory; root, in a private mount namespace) and sets one. Linux 6.6 and later.
bool TmpfsKeepsUserXattrs(const std::string& probe_dir);

// The keeper's overlay (kKeeper), mounted at construction and gone with Remove():
//   DIR/layers  a tmpfs (sized like the sandbox's own, its pages charged to whoever writes
//               them: the sandbox's memory cgroup) holding upper/ and work/, owned by the
//               sandbox's root (host ids `uid`, `gid`);
//   DIR/merged  the overlay of `lower` (the OS root, idmapped for the sandbox) and upper/.
class KeeperOverlay {
 public:
  static absl::StatusOr<KeeperOverlay> Make(const std::string& dir, const std::string& lower,
                                            uid_t uid, gid_t gid);
  KeeperOverlay(KeeperOverlay&& other) noexcept;
  KeeperOverlay& operator=(KeeperOverlay&&) = delete;
  KeeperOverlay(const KeeperOverlay&) = delete;
  ~KeeperOverlay();

  std::string merged() const { return dir_ + "/merged"; }
  std::string upper() const { return dir_ + "/layers/upper"; }
  // Unmounts both (lazily: the sandbox's mount namespace keeps its own references) and
  // removes DIR's directories.
  void Remove();

 private:
  explicit KeeperOverlay(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace fsmove::exec
