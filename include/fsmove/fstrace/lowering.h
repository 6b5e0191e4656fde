// Lowers a decoded system call to FStrace constructs through one table, like strace's
// syscallent.h: one row per call, its name, its lowering function and what else is known of
// it as flag columns. Calls not in the table are not guessed: the caller counts them by name.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/fstrace/construct.h"
#include "fsmove/strace/args.h"
#include "fsmove/strace/strace_line.h"

namespace fsmove::fstrace {

class Lowerer;
using LowerFn = void (*)(Lowerer&);

enum SyscallFlags : uint16_t {
  // Emits nothing but consuming effects and changes no state: outside any resource block the
  // call can be skipped without decoding its arguments.
  kConsumeOnly = 1 << 0,
  // A readlink: its result teaches a symlink even outside blocks.
  kTeachesSymlink = 1 << 1,
  // write/writev: may carry a Puppet evaltrace marker (see strace::WrittenBytes).
  kMayCarryMarker = 1 << 2,
  // A modelled call with no file-system effect.
  kNoEffect = 1 << 3,
  // Creates a process (clone, clone3, fork, vfork).
  kCreatesProcess = 1 << 4,
  // With kMayCarryMarker: the written bytes are an iovec array (writev), not a buffer (write).
  kMarkerInIovecs = 1 << 5,
  // Changes the mount table, not a file (mount, umount2): in a mount namespace of the calling
  // process's own, nobody else sees it.
  kMountTable = 1 << 6,
  // Its path effect is a lookup that reads no content (stat, access, readlink, getxattr).
  kLookup = 1 << 7,
  // Its path effect changes metadata only (chmod, chown, utimes, setxattr).
  kMetadata = 1 << 8,
};

struct SyscallSpec {
  std::string_view name;
  LowerFn lower;
  uint16_t flags;
};

// The spec for a syscall name, or nullptr if the call is not modelled.
const SyscallSpec* FindSyscall(std::string_view name);
// The table's kCreatesProcess flag, by name: what strace::CallAssembler is given to know the
// calls that return a child's pid (trace/ sits below this table).
bool CreatesProcess(std::string_view name);
// The calls the model interprets (the rows with an effect, and the writes that may carry
// Puppet's markers), in table order: what a tracer must record for the model to be exact.
std::vector<std::string_view> ModelledSyscalls();
// The same as an index (0: not modelled), and back to the spec (nullptr for 0).
uint16_t FindSyscallIndex(std::string_view name);
const SyscallSpec* SyscallSpecAt(uint16_t index);
// Stable small index of a spec (for compact access records) and back.
uint16_t SyscallIndex(const SyscallSpec* spec);
std::string_view SyscallName(uint16_t index);
// The table's kLookup and kMetadata flags, by index.
bool IsLookupSyscall(uint16_t index);
bool IsMetadataSyscall(uint16_t index);
// The table's kMountTable flag, by index.
bool ChangesMountTable(uint16_t index);

// Collects the constructs of one call. Failed calls (negative or unknown return) keep only
// their path effects, as consumption: the resource needed the path even if the call failed.
class Lowerer {
 public:
  static constexpr size_t kMaxConstructs = 6;

  // Lowers one call; returns the number of constructs (see construct(i)).
  size_t Lower(const SyscallSpec& spec, const strace::ArgList& args, const strace::CallTail& tail);

  size_t size() const { return count_; }
  const Construct& construct(size_t i) const { return out_[i]; }
  bool failed() const { return failed_; }
  // Path (and argv) arguments strace printed as addresses, in the last call: it could not read
  // the process's memory. NULL and malformed strings are not counted.
  uint32_t undecodable_paths() const { return undecodable_; }

  // --- used by the lowering functions ---
  const strace::ArgList& args() const { return *args_; }
  const strace::CallTail& tail() const { return *tail_; }
  int64_t ret() const { return tail_->ret; }
  // Decodes string argument i into a scratch slot; nullopt-like: returns false if absent.
  bool Str(size_t i, std::string_view* out);
  int Fd(size_t i) const;  // AT_FDCWD (-100) when it cannot be read
  // Flag argument i read with the vocabulary `names`; a token read lately is not read again.
  uint64_t Flags(size_t i, const strace::FlagName* names, size_t n);

  void HPath(int dirfd, std::string_view path, Effect e, bool follow, bool empty_path = false,
             bool probe = false, bool listing = false);
  void NewFd(int dirfd, std::string_view path, int fd, bool cloexec, bool follow, bool tmpfile);
  void AnonFd(int fd, bool cloexec);
  void Emit(const Construct& c);  // state constructs: dropped for failed calls

 private:
  const strace::ArgList* args_ = nullptr;
  const strace::CallTail* tail_ = nullptr;
  bool failed_ = false;
  size_t count_ = 0;
  uint32_t undecodable_ = 0;
  std::array<Construct, kMaxConstructs> out_;
  std::array<std::string, kMaxConstructs> strings_;
  size_t strings_used_ = 0;
  // The last token Flags() read with each vocabulary (by the table's address): a trace repeats
  // a few flag sets ("O_RDONLY|O_CLOEXEC") in most of its calls, and reading one is a word
  // scan and a search of the vocabulary per flag.
  struct FlagsSeen {
    const strace::FlagName* names = nullptr;
    std::string token;
    uint64_t bits = 0;
  };
  std::array<FlagsSeen, 4> flags_seen_;
};

// The clone flags of a process-creation call (clone, clone3; 0 for fork and vfork), from
// its argument list; used for the call's lowering and when it is still unfinished.
uint64_t CloneFlags(std::string_view syscall, const strace::ArgList& args);

// Flag vocabularies shared with tests.
extern const strace::FlagName kOpenFlagNames[];
extern const size_t kOpenFlagNameCount;
inline constexpr uint64_t kOWronly = 01, kORdwr = 02, kOCreat = 0100, kOExcl = 0200,
                          kOTrunc = 01000, kOAppend = 02000, kODirectory = 0200000,
                          kONofollow = 0400000, kOCloexec = 02000000, kOPath = 010000000,
                          kOTmpfile = 020000000;

}  // namespace fsmove::fstrace
