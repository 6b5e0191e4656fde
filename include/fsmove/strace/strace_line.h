// Stage 1 of trace parsing: splits one strace output line into its cheap parts (pid, kind,
// syscall name) and, only on demand, its argument text and return value.
//
// Accepted shapes (strace 5.x/6.x): `PID rest` (-f -o), `[pid PID] rest` (-f to stderr), no
// prefix (one process); optional -t/-tt/-ttt/-r timestamps; -T durations; -y/-yy decorations;
// `<unfinished ...>` and `<... NAME resumed>`; `--- SIG ---`; `+++ exited/killed/superseded +++`;
// `<pid changed to N ...>`.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
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
  // kCall: its arguments as the threaded reader's first stage split them (ArgList::SaveTo,
  // from `rest`), or null.
  const uint32_t* split = nullptr;
};

// Looks syscall names up through `lookup` (the caller's syscall table), remembering every name
// it looked up in a small table keyed by the name's bytes: the lookup runs once per name, not
// once per line. A remembered name is also recognised at the start of a line by two word loads
// and one compare, instead of a scan of its bytes; names are kept as copies (the lines go).
class NameIndex {
 public:
  explicit NameIndex(int32_t (*lookup)(std::string_view name)) : lookup_(lookup) {}
  int32_t operator()(std::string_view name);
  // Whether [p, end) starts with a remembered name and '(': sets its length and index. Only
  // names of 1 to 15 bytes that start with a lowercase letter are remembered, as a call's name
  // in the common line shape does.
  // Inline: it runs on nearly every line.
  bool Match(const char* p, const char* end, size_t* size, int32_t* index) {
    if (end - p < 16) return false;  // a line this short is left to the scan
    // Runs of one name are common (a process's probes, its reads): the last name matched is
    // tried first, by two masked word compares, before the key's scan and hash.
    if ((Load8(p) & last_.first_mask) != last_.first ||
        (Load8(p + 8) & last_.second_mask) != last_.second) {
      Key key;
      if (!KeyAt(p, &key)) return false;
      const Entry* e = Find(key);
      if (e == nullptr) return false;
      last_ = Last(*e);
    }
    *size = last_.size;
    *index = last_.index;
    return true;
  }

 private:
  // "NAME(" in two little-endian words, zero past the '(': p[0] is the low byte of `first`.
  struct Key {
    uint64_t first = 0;
    uint64_t second = 0;
    uint32_t size = 0;  // of NAME
  };
  struct Entry {
    uint64_t first = 0;  // 0: an empty slot ("NAME(" is never all zero)
    uint64_t second = 0;
    uint32_t size = 0;
    int32_t index = -1;
  };
  // Two ways in each of 128 sets: a trace names a few dozen syscalls.
  static constexpr size_t kSlots = 256;
  // An entry with the masks of its key's bytes: "NAME(" is at p when p's words, masked, are
  // the key's. The first never matches (no mask: no word is 1).
  struct Last {
    uint64_t first = 1;
    uint64_t second = 0;
    uint64_t first_mask = 0;
    uint64_t second_mask = 0;
    uint32_t size = 0;
    int32_t index = -1;
    Last() = default;
    explicit Last(const Entry& e)
        : first(e.first),
          second(e.second),
          first_mask(LowBytes(~uint64_t{0}, std::min<size_t>(e.size + 1, 8))),
          second_mask(e.size + 1 > 8 ? LowBytes(~uint64_t{0}, e.size + 1 - 8) : 0),
          size(e.size),
          index(e.index) {}
  };

  static uint64_t Load8(const char* p) {  // little-endian: p[0] is the low byte
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
  }
  // The bytes of `w` that are '(' as their high bit (exact for the lowest one).
  static uint64_t ParenBytes(uint64_t w) {
    constexpr uint64_t kParens = 0x2828282828282828ull;
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHighs = 0x8080808080808080ull;
    const uint64_t x = w ^ kParens;
    return (x - kOnes) & ~x & kHighs;
  }
  // The low `bytes` bytes of a word (1 to 8).
  static uint64_t LowBytes(uint64_t w, size_t bytes) {
    return bytes >= 8 ? w : w & ((uint64_t{1} << (8 * bytes)) - 1);
  }
  // The key of the "NAME(" at p, whose first 16 bytes are readable; false when no '(' is
  // among them.
  static bool KeyAt(const char* p, Key* key) {
    const uint64_t w0 = Load8(p);
    const uint64_t paren0 = ParenBytes(w0);
    if (paren0 != 0) {
      const size_t at = static_cast<size_t>(std::countr_zero(paren0)) / 8;
      *key = Key{LowBytes(w0, at + 1), 0, static_cast<uint32_t>(at)};
      return true;
    }
    const uint64_t w1 = Load8(p + 8);
    const uint64_t paren1 = ParenBytes(w1);
    if (paren1 == 0) return false;
    const size_t at = static_cast<size_t>(std::countr_zero(paren1)) / 8;
    *key = Key{w0, LowBytes(w1, at + 1), static_cast<uint32_t>(8 + at)};
    return true;
  }
  static size_t SetOf(const Key& key) {
    const uint64_t h = (key.first ^ (key.second * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h >> 57) * 2;  // 128 sets
  }
  const Entry* Find(const Key& key) const {
    const size_t set = SetOf(key);
    for (size_t way = 0; way < 2; ++way) {
      const Entry& e = slots_[set + way];
      if (e.first == key.first && e.second == key.second) return &e;
    }
    return nullptr;
  }

  int32_t (*lookup_)(std::string_view);
  Entry slots_[kSlots];
  Last last_;  // the last name Match found (a copy: the index may be moved)
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

// The common line of an `strace -f -o` trace, a whole call `PID  name(args) = ret` whose name
// `names` already knows, read in one pass for the caller's fast path: what ParseLineHead gives
// such a line, with where its return value starts (ReturnValueStart). False, nothing written,
// for any other line (a new name, a line ending in a blank, '>' or 'd', no return value): the
// caller then reads it with ParseLineHead.
struct CommonCall {
  int32_t pid = 0;
  int32_t syscall = -1;
  std::string_view name;
  std::string_view rest;  // LineHead::rest
  size_t return_at = 0;   // in rest
  bool returned_negative = false;
};
// ReadCommonCall, below the line scans it is made of.

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
// The same once the closing parenthesis is known to be at rest[close] (npos: none), as
// ArgList::SplitUntilClose answers in the pass that splits the arguments (args.h).
bool ParseCallTailAt(std::string_view rest, size_t close, CallTail* out);

// Where the return value starts in a call's text (LineHead::rest of a kCall or kResumed
// line): just after the last `) = ` (strace may pad before the '='), or npos when there is
// none, as in a line cut short (a truncated trace, a line over the reader's limit). Cheap,
// it runs on every call: memrchr for '=' from the end, usually a few bytes back.
size_t ReturnValueStartSlow(std::string_view rest);
// Inline: the last '=' of nearly every line is its return's, right after the ')': one memrchr.
// Always inline (GCC made it a call of its own in ReadCommonCall: about 15 instructions a line
// for the call, its frame and the copy of `rest`).
[[gnu::always_inline]] inline size_t ReturnValueStart(std::string_view rest) {
  const char* data = rest.data();
  const void* q = memrchr(data, '=', rest.size());
  if (q == nullptr) return std::string_view::npos;
  const size_t eq = static_cast<size_t>(static_cast<const char*>(q) - data);
  if (eq >= 2 && eq + 1 < rest.size() && data[eq - 2] == ')' && data[eq - 1] == ' ' &&
      data[eq + 1] == ' ') {
    return eq + 2;
  }
  return ReturnValueStartSlow(rest);  // padded, or an '=' after the return's
}
inline bool HasReturnPart(std::string_view rest) {
  return ReturnValueStart(rest) != std::string_view::npos;
}

// The byte scans of a line's head, shared by ReadCommonCall (inline, below) and the parser.
namespace line_scan {
// Little-endian word loads: the first byte of the text is the word's low byte.
static_assert(std::endian::native == std::endian::little, "word-at-a-time scans assume it");

inline uint64_t Load8(const char* p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

inline bool IsLower(char c) { return c >= 'a' && c <= 'z'; }

// Skips the spaces at p, eight at a time (the -o pid column is padded: `7     readlink(`).
inline const char* SkipSpaces(const char* p, const char* end) {
  constexpr uint64_t kSpaces = 0x2020202020202020ull;
  while (end - p >= 8) {
    const uint64_t other = Load8(p) ^ kSpaces;  // zero bytes are spaces
    if (other != 0) return p + std::countr_zero(other) / 8;
    p += 8;
  }
  while (p < end && *p == ' ') ++p;
  return p;
}

// The -o pid column at p: at most 9 digits (the pid fits in an int32) and a space. Returns
// where the space is, with the pid, or null.
inline const char* ReadPidColumn(const char* p, const char* end, uint32_t* pid) {
  uint32_t value = 0;  // unsigned: a 10th digit may wrap it, and only ends the shape
  const char* const digits = p;
  const char* const digits_end = p + std::min<ptrdiff_t>(end - p, 10);
  while (p < digits_end && static_cast<unsigned char>(*p - '0') < 10) {
    value = value * 10 + static_cast<uint32_t>(*p++ - '0');
  }
  if (p == digits || p - digits > 9 || p == end || *p != ' ') return nullptr;
  *pid = value;
  return p;
}

// The -o pid column and the spaces after it, as the last line read had them: most lines come
// from the process of the line before, and one masked word compare then reads the column in
// place of its digits' and spaces' scans.
class PidColumnMemo {
 public:
  // Where the name starts after the pid column at p, with the pid; null when the line does
  // not start with one. At least 16 bytes from p must be readable.
  const char* Read(const char* p, const char* end, uint32_t* pid) {
    if ((Load8(p) & mask_) == word_ && p[width_] != ' ') {
      *pid = pid_;
      return p + width_;
    }
    const char* name = ReadPidColumn(p, end, pid);
    if (name == nullptr) return nullptr;
    name = SkipSpaces(name, end);
    const size_t width = static_cast<size_t>(name - p);
    if (width <= 8) {  // a column that fits a word, and the byte after it in the 16
      mask_ = width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
      word_ = Load8(p) & mask_;
      width_ = width;
      pid_ = *pid;
    }
    return name;
  }

 private:
  uint64_t word_ = 1;  // no mask: no line's word is 1 until a column is remembered
  uint64_t mask_ = 0;
  size_t width_ = 0;
  uint32_t pid_ = 0;
};
}  // namespace line_scan

// Always inline (GCC would not, for its size): it runs on nearly every line, and its caller
// then keeps `call` in registers, without a call's frame: 25 instructions a line.
// `pid_column` is the caller's, kept from line to line.
[[gnu::always_inline]] inline bool ReadCommonCall(std::string_view line, NameIndex* names,
                                                  line_scan::PidColumnMemo* pid_column,
                                                  CommonCall* call) {
  // NameIndex::Match needs 16 bytes from the name on: a shorter line is never read here.
  if (line.size() < 16) return false;
  const char* p = line.data();
  const char* const end = p + line.size();
  // As ParseCommonHead reads the pid column and the name, but only a name the index knows.
  uint32_t pid = 0;
  p = pid_column->Read(p, end, &pid);
  if (p == nullptr) return false;
  size_t name_size = 0;
  int32_t syscall = -1;
  if (p == end || !line_scan::IsLower(*p) || !names->Match(p, end, &name_size, &syscall)) {
    return false;
  }
  // Whatever ParseLineHead and the assembler read off the line's end is absent: no trailing
  // blank (rest is the line's end), no '>' (unfinished), no 'd' (a spliced notice).
  const char* rest = p + name_size + 1;
  const char last = end[-1];
  if (rest >= end || last == ' ' || last == '\t' || last == '\r' || last == '>' || last == 'd') {
    return false;
  }
  const std::string_view rest_text(rest, static_cast<size_t>(end - rest));
  const size_t at = ReturnValueStart(rest_text);
  if (at == std::string_view::npos) return false;
  call->pid = static_cast<int32_t>(pid);
  call->syscall = syscall;
  call->name = std::string_view(p, name_size);
  call->rest = rest_text;
  call->return_at = at;
  call->returned_negative = at < rest_text.size() && rest_text[at] == '-';
  return true;
}

// Index of the parenthesis closing an argument list that starts at text[0] with depth 1,
// or npos. Skips strings, nested ()[]{} and <...> fd decorations.
size_t FindArgsEnd(std::string_view text);

}  // namespace fsmove::strace
