// FStrace constructs: a factory per kind, their names, and the one JSON form of a construct
// (what `fsmove trace dump --fstrace` prints).
#include "fsmove/fstrace/construct.h"

#include <string>

#include "nlohmann/json.hpp"

namespace fsmove::fstrace {

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kHPath:
      return "hpath";
    case Op::kHPathSym:
      return "hpathsym";
    case Op::kNewFd:
      return "newfd";
    case Op::kDelFd:
      return "delfd";
    case Op::kDupFd:
      return "dupfd";
    case Op::kSetCloexec:
      return "setcloexec";
    case Op::kCloseRange:
      return "closerange";
    case Op::kSetCwd:
      return "setcwd";
    case Op::kSetRoot:
      return "setroot";
    case Op::kNewProc:
      return "newproc";
    case Op::kExec:
      return "exec";
    case Op::kRename:
      return "rename";
    case Op::kLink:
      return "link";
    case Op::kSymlink:
      return "symlink";
    case Op::kLearnSymlink:
      return "learnsymlink";
    case Op::kUnshare:
      return "unshare";
    case Op::kNop:
      return "nop";
  }
  return "?";
}

namespace make {

// Designated initializers, in Construct's field order: every other field keeps its default.

Construct HPath(int dirfd, std::string_view path, Effect e, bool follow) {
  return {.op = follow ? Op::kHPath : Op::kHPathSym, .effect = e, .dirfd = dirfd, .path = path};
}

Construct NameEffect(int dirfd, std::string_view path, Effect e) {
  return {.op = Op::kHPathSym, .effect = e, .dirfd = dirfd, .path = path, .record_only = true};
}

Construct NewFd(int dirfd, std::string_view path, int fd, bool cloexec, bool follow, bool tmpfile) {
  return {.op = Op::kNewFd,
          .dirfd = dirfd,
          .path = path,
          .fd = fd,
          .cloexec = cloexec,
          .follow = follow,
          .tmpfile = tmpfile};
}

Construct AnonFd(int fd, bool cloexec) {
  return {.op = Op::kNewFd, .fd = fd, .cloexec = cloexec, .anonymous = true};
}

Construct DelFd(int fd) { return {.op = Op::kDelFd, .fd = fd}; }

Construct DupFd(int from, int to, bool cloexec) {
  return {.op = Op::kDupFd, .fd = from, .fd2 = to, .cloexec = cloexec};
}

Construct SetCloexec(int fd, bool cloexec) {
  return {.op = Op::kSetCloexec, .fd = fd, .cloexec = cloexec};
}

Construct CloseRange(int first, int last, bool cloexec, bool unshare_fds) {
  return {.op = Op::kCloseRange,
          .fd = first,
          .fd2 = last,
          .cloexec = cloexec,
          .unshare_fds = unshare_fds};
}

Construct SetCwd(int dirfd, std::string_view path, bool via_fd) {
  return {.op = Op::kSetCwd, .dirfd = dirfd, .path = path, .empty_path = via_fd};
}

Construct SetRoot(std::string_view path) { return {.op = Op::kSetRoot, .path = path}; }

Construct NewProc(int32_t child, uint64_t clone_flags) {
  return {.op = Op::kNewProc, .clone_flags = clone_flags, .child = child};
}

Construct Exec(std::string_view program, std::string_view argv) {
  return {.op = Op::kExec, .path = program, .path2 = argv};
}

Construct Rename(int dirfd, std::string_view from, int dirfd2, std::string_view to, bool exchange) {
  return {.op = Op::kRename,
          .dirfd = dirfd,
          .path = from,
          .dirfd2 = dirfd2,
          .path2 = to,
          .exchange = exchange};
}

Construct Link(int dirfd, std::string_view from, int dirfd2, std::string_view to, bool empty_path,
               bool follow) {
  return {.op = Op::kLink,
          .dirfd = dirfd,
          .path = from,
          .dirfd2 = dirfd2,
          .path2 = to,
          .empty_path = empty_path,
          .follow = follow};
}

Construct Symlink(std::string_view target, int dirfd, std::string_view link) {
  return {.op = Op::kSymlink, .path = target, .dirfd2 = dirfd, .path2 = link};
}

Construct LearnSymlink(int dirfd, std::string_view path, std::string_view target) {
  return {.op = Op::kLearnSymlink, .dirfd = dirfd, .path = path, .path2 = target};
}

Construct Unshare(uint64_t clone_flags) { return {.op = Op::kUnshare, .clone_flags = clone_flags}; }

}  // namespace make

nlohmann::json ConstructToJson(const Construct& c) {
  nlohmann::json j;
  j["op"] = std::string(OpName(c.op));
  switch (c.op) {
    case Op::kHPath:
    case Op::kHPathSym:
      j["effect"] = std::string(EffectName(c.effect));
      j["dirfd"] = c.dirfd;
      j["path"] = std::string(c.path);
      break;
    case Op::kNewFd:
      j["fd"] = c.fd;
      if (c.anonymous) {
        j["anonymous"] = true;
      } else {
        j["dirfd"] = c.dirfd;
        j["path"] = std::string(c.path);
      }
      break;
    case Op::kDelFd:
    case Op::kSetCloexec:
      j["fd"] = c.fd;
      break;
    case Op::kDupFd:
    case Op::kCloseRange:
      j["fd"] = c.fd;
      j["fd2"] = c.fd2;
      break;
    case Op::kNewProc:
      j["child"] = c.child;
      j["share_fds"] = (c.clone_flags & kCloneFiles) != 0;
      j["share_cwd"] = (c.clone_flags & kCloneFs) != 0;
      j["thread"] = (c.clone_flags & kCloneThread) != 0;
      break;
    case Op::kRename:
    case Op::kLink:
    case Op::kSymlink:
    case Op::kLearnSymlink:
      j["dirfd"] = c.dirfd;
      j["path"] = std::string(c.path);
      j["dirfd2"] = c.dirfd2;
      j["path2"] = std::string(c.path2);
      break;
    default:
      if (!c.path.empty() || c.empty_path) {
        j["dirfd"] = c.dirfd;
        j["path"] = std::string(c.path);
      }
  }
  return j;
}

}  // namespace fsmove::fstrace
