// FStrace, the small language each system call is lowered to (paper, section 3.2, extended):
// path effects, descriptor and working-directory operations, process creation and names.
#pragma once

#include <cstdint>
#include <string_view>

#include "nlohmann/json_fwd.hpp"

namespace fsmove::fstrace {

inline constexpr int kAtFdcwd = -100;

enum class Effect : uint8_t { kConsumed = 0, kProduced = 1, kExpunged = 2 };

inline std::string_view EffectName(Effect e) {
  switch (e) {
    case Effect::kConsumed:
      return "consumed";
    case Effect::kProduced:
      return "produced";
    case Effect::kExpunged:
      return "expunged";
  }
  return "?";
}

enum class Op : uint8_t {
  kHPath,         // effect on path (dirfd, path), following a final symlink
  kHPathSym,      // the same without following a final symlink
  kNewFd,         // fd now refers to (dirfd, path), or to an anonymous object (pipe, socket)
  kDelFd,         // fd closed
  kDupFd,         // fd2 refers to what fd refers to
  kSetCloexec,    // fd's close-on-exec flag becomes `cloexec`
  kCloseRange,    // fds fd..fd2 closed (or marked close-on-exec when `cloexec`)
  kSetCwd,        // working directory becomes (dirfd, path); dirfd alone for fchdir
  kSetRoot,       // root directory becomes path (chroot)
  kNewProc,       // child process `child`, sharing fds/cwd per `clone_flags`
  kExec,          // successful execve: private fd table, close-on-exec fds closed
  kRename,        // (dirfd, path) renamed to (dirfd2, path2)
  kLink,          // (dirfd, path) gets the new name (dirfd2, path2)
  kSymlink,       // (dirfd2, path2) becomes a symlink whose target is `path`
  kLearnSymlink,  // readlink showed (dirfd, path) is a symlink to path2 (a pre-existing one)
  kUnshare,       // unshare(2): private fd table and/or fs context per `clone_flags`
  kNop,
};

std::string_view OpName(Op op);

// A construct borrows its strings from the call it was lowered from.
struct Construct {
  Op op = Op::kNop;
  Effect effect = Effect::kConsumed;
  int dirfd = kAtFdcwd;
  std::string_view path{};
  int dirfd2 = kAtFdcwd;
  std::string_view path2{};
  int fd = -1;
  int fd2 = -1;
  bool cloexec = false;
  bool anonymous = false;    // kNewFd without a path
  bool empty_path = false;   // AT_EMPTY_PATH: an empty path names the object dirfd refers to
  bool exchange = false;     // kRename with RENAME_EXCHANGE
  bool unshare_fds = false;  // kCloseRange with CLOSE_RANGE_UNSHARE
  bool follow = true;        // kNewFd, kLink: follow the (source) path's final symlink
  bool record_only = false;  // kHPath*: record the effect; the name change is a later construct
  bool tmpfile = false;      // kNewFd with O_TMPFILE: a new unnamed inode in directory `path`
  bool probe = false;        // kHPath*: an open that only looks (O_PATH): no content read
  bool listing = false;      // kHPath*: a directory opened to list it (opendir: O_DIRECTORY)
  uint64_t clone_flags = 0;
  int32_t child = 0;
};

// Clone flags the interpreter reads (values from <linux/sched.h>).
inline constexpr uint64_t kCloneFs = 0x00000200;
inline constexpr uint64_t kCloneFiles = 0x00000400;
inline constexpr uint64_t kCloneThread = 0x00010000;
inline constexpr uint64_t kCloneNewns = 0x00020000;  // a mount namespace of its own

// One factory per kind of construct: the fields each kind uses, and nothing else set.
namespace make {
// A path effect; `follow` picks kHPath (follow a final symlink) or kHPathSym.
Construct HPath(int dirfd, std::string_view path, Effect e, bool follow);
// kHPathSym recording only the effect on a name: a later construct of the same call
// (kRename, kLink, kSymlink) makes the change.
Construct NameEffect(int dirfd, std::string_view path, Effect e);
Construct NewFd(int dirfd, std::string_view path, int fd, bool cloexec, bool follow, bool tmpfile);
Construct AnonFd(int fd, bool cloexec);
Construct DelFd(int fd);
Construct DupFd(int from, int to, bool cloexec);
Construct SetCloexec(int fd, bool cloexec);
Construct CloseRange(int first, int last, bool cloexec, bool unshare_fds);
// `via_fd`: fchdir, the directory dirfd refers to (path empty).
Construct SetCwd(int dirfd, std::string_view path, bool via_fd);
Construct SetRoot(std::string_view path);
Construct NewProc(int32_t child, uint64_t clone_flags);
// `argv` is the argument vector as strace printed it (`["systemctl", "start", ...]`).
Construct Exec(std::string_view program, std::string_view argv = {});
Construct Rename(int dirfd, std::string_view from, int dirfd2, std::string_view to, bool exchange);
Construct Link(int dirfd, std::string_view from, int dirfd2, std::string_view to, bool empty_path,
               bool follow);
Construct Symlink(std::string_view target, int dirfd, std::string_view link);
Construct LearnSymlink(int dirfd, std::string_view path, std::string_view target);
Construct Unshare(uint64_t clone_flags);
}  // namespace make

// The construct as one JSON object: "op" and the fields its kind uses (`fsmove trace dump
// --fstrace` adds where it comes from).
nlohmann::json ConstructToJson(const Construct& c);

}  // namespace fsmove::fstrace
