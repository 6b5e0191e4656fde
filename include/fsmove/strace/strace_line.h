// Stage 1 of trace parsing: splits one strace output line into its cheap parts (pid, kind,
// syscall name) and, only on demand, its argument text and return value.
//
// Accepted shapes (strace 5.x/6.x): `PID rest` (-f -o), `[pid PID] rest` (-f to stderr), no
// prefix (one process); optional -t/-tt/-ttt/-r timestamps; -T durations; -y/-yy decorations;
// `<unfinished ...>` and `<... NAME resumed>`; `--- SIG ---`; `+++ exited/killed/superseded +++`;
// `<pid changed to N ...>`.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace fsmove::strace {

enum class LineKind : uint8_t {
  kCall,        // NAME(ARGS) = RET ...   (a complete call)
  kUnfinished,  // NAME(ARGS <unfinished ...>, ... <pid changed to N ...> or ... <detached ...>
  kResumed,     // <... NAME resumed>ARGS) = RET ...
  kSignal,      // --- SIGCHLD {...} ---   or  --- stopped by SIGSTOP ---
  kExited,      // +++ exited with N +++
  kKilled,      // +++ killed by SIGKILL +++
  kSuperseded,  // +++ superseded by execve in pid N +++
  kNotice,      // strace's own messages: "strace: Process N attached", "[ Process PID=... ]"
  kBlank,       // empty or whitespace only
  kGarbage,     // none of the above
};

inline constexpr size_t kReturnNotSearched = std::string_view::npos - 1;

struct LineHead {
  LineKind kind = LineKind::kGarbage;
  bool has_pid = false;
  int32_t pid = 0;
  std::string_view name;  // syscall name (kCall, kUnfinished, kResumed)
  // kCall: the text after "NAME(" to the end of the line.
  // kUnfinished: the text after "NAME(" up to the "<unfinished ...>" marker (trimmed).
  // kResumed: the text after "resumed>" to the end of the line.
  std::string_view rest;
  // kSuperseded: the pid whose execve took over this pid. kUnfinished with
  // `<pid changed to N ...>`: N (the pid the calling thread now has).
  int32_t other_pid = -1;
  const char* garbage_reason = nullptr;
  // What the threaded reader's first stage found ahead, so that the second does not read the
  // line's bytes again (ParseLineHead leaves them unset):
  // kCall: where the return value starts in `rest` (ReturnValueStart), or npos.
  size_t return_at = kReturnNotSearched;
  // kCall: the line does not end with an strace "Process N attached" notice.
  bool no_spliced_notice = false;
  // kCall: 1 when the return value is negative ("-1 ENOENT"), 0 when not; -1: not looked at.
  int8_t returned_negative = -1;
  // kCall, kResumed, kUnfinished: the name's index in the syscall table of the first stage's
  // caller.
  int32_t syscall = -1;
};

// Looks syscall names up through `lookup` (the caller's syscall table), remembering the last
// few names: nearly every line repeats one of them (Ruby's start-up alternates readlink and
// newfstatat). A remembered name is also recognised at the start of a line with a few word
// compares, instead of a scan of its bytes. Names are kept as copies: the lines may go.
class NameIndex {
 public:
  explicit NameIndex(int32_t (*lookup)(std::string_view name)) : lookup_(lookup) {}
  int32_t operator()(std::string_view name);
  // Whether [p, end) starts with a remembered name and '(': sets its length and index. Only
  // names that start with a lowercase letter are remembered, as a call's name in the common
  // line shape does.
  // Inline: it runs on nearly every line.
  bool Match(const char* p, const char* end, size_t* size, int32_t* index) {
    const size_t avail = static_cast<size_t>(end - p);
    if (avail < 8) return false;  // a line this short is left to the scan
    const uint64_t first = Load8(p);
    for (size_t k = 0; k < kWays; ++k) {
      const size_t way = (hit_ + k) % kWays;
      const Entry& e = ways_[way];
      if (e.size == 0 || (first & e.mask) != e.first) continue;
      const size_t n = e.size + 1;  // with its '('
      if (n > avail) continue;
      if (n > 16 ? memcmp(p + 8, e.text + 8, n - 8) != 0 : n > 8 && Load8(p + n - 8) != e.last) {
        continue;
      }
      hit_ = way;
      *size = e.size;
      *index = e.index;
      return true;
    }
    return false;
  }

 private:
  static constexpr size_t kWays = 4;
  struct Entry {
    uint64_t first = 0;  // the first 8 bytes of "NAME(", zero-padded
    uint64_t mask = 0;   // of `first`'s bytes that belong to "NAME("
    uint64_t last = 0;   // "NAME("'s last 8 bytes, when it is 9 to 16 bytes long
    uint32_t size = 0;   // of NAME; 0: an empty way
    int32_t index = -1;
    char text[24] = {};  // "NAME("
  };
  static uint64_t Load8(const char* p) {  // little-endian: p[0] is the low byte
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
  }

  int32_t (*lookup_)(std::string_view);
  Entry ways_[kWays];
  size_t hit_ = 0;   // the way that matched last: tried first
  size_t next_ = 0;  // the way a new name replaces
};

// Whether a line of this kind names a syscall that NameIndex looks up: a call, either half of
// a split one.
inline bool NamesSyscall(LineKind kind) {
  return kind == LineKind::kCall || kind == LineKind::kResumed || kind == LineKind::kUnfinished;
}

// Parses the prefix, kind and name. Never fails hard: unknown shapes become kGarbage with a
// reason. Cost: a short scan of the line's start and its end. With `names`, also looks the
// name up (LineHead::syscall) for the kinds that name a call.
LineHead ParseLineHead(std::string_view line);
LineHead ParseLineHead(std::string_view line, NameIndex* names);

struct CallTail {
  std::string_view args;  // the argument text, without the outer parentheses
  bool has_return = false;
  bool return_unknown = false;  // "= ?"
  int64_t ret = 0;
  // "ENOENT", "ERESTARTSYS", ...: read only after a negative or unknown return, so empty on
  // success (whatever follows a success, e.g. a decorated path with a word starting with E).
  std::string_view errno_name;
  // The raw return token with its whole -y/-yy decoration, spaces included, e.g.
  // "3</etc/passwd>", "3</srv/My Files>", "3</dev/null<char 1:3>>", "0x7f00".
  std::string_view ret_text;
};

// Finds the end of the argument list in `rest` (quote, bracket and -y decoration aware) and
// parses the return part. `open_parens` is 1 for kCall/kResumed text (the opening parenthesis
// was already consumed). Returns false when the text has no closing parenthesis.
bool ParseCallTail(std::string_view rest, CallTail* out);
// The same, splitting the arguments into `args` in the pass that finds their end (args.h).
class ArgList;
bool ParseCallTail(std::string_view rest, CallTail* out, ArgList* args);

// Where the return value starts in a call's text (LineHead::rest of a kCall or kResumed
// line): just after the last `) = ` (strace may pad before the '='), or npos when there is
// none, as in a line cut short (a truncated trace, a line over the reader's limit). Cheap,
// it runs on every call: memrchr for '=' from the end, usually a few bytes back.
size_t ReturnValueStart(std::string_view rest);
inline bool HasReturnPart(std::string_view rest) {
  return ReturnValueStart(rest) != std::string_view::npos;
}

// Index of the parenthesis closing an argument list that starts at text[0] with depth 1,
// or npos. Skips strings, nested ()[]{} and <...> fd decorations.
size_t FindArgsEnd(std::string_view text);

}  // namespace fsmove::strace
