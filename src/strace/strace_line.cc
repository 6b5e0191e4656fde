// Stage 1 of trace parsing: prefix, kind and name of an strace line; tail on demand.
// Hand-written scanning: this runs on every line of multi-gigabyte traces.
#include "fsmove/strace/strace_line.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "byte_scan.h"

namespace fsmove::strace {
namespace {

constexpr std::string_view kUnfinished = "<unfinished ...>";
constexpr std::string_view kPidChanged = "<pid changed to ";
constexpr std::string_view kDetached = "<detached ...>";

using byte_scan::IsDigit;

// [A-Za-z0-9_], by table: one load per byte of a name, on every line.
struct NameChars {
  bool is[256] = {};
  constexpr NameChars() {
    for (int c = 0; c < 256; ++c) {
      is[c] =
          (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (c >= 'A' && c <= 'Z');
    }
  }
};
constexpr NameChars kNameChars;
inline bool IsNameChar(char c) { return kNameChars.is[static_cast<unsigned char>(c)]; }

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Parses a decimal integer at s[*pos]; advances *pos. Returns false if no digit.
bool ParseDecimal(std::string_view s, size_t* pos, int64_t* value) {
  size_t i = *pos;
  int64_t v = 0;
  while (i < s.size() && IsDigit(s[i])) {
    if (v < (int64_t{1} << 58)) v = v * 10 + (s[i] - '0');
    ++i;
  }
  if (i == *pos) return false;
  *pos = i;
  *value = v;
  return true;
}

// Linux pids are below 2^22; anything over INT32_MAX would wrap into another pid (0 is the
// unprefixed process's): such a line is garbage, not a process.
bool FitsPid(int64_t v) { return v <= INT32_MAX; }

}  // namespace

namespace {

// The bytes FindArgsEnd must look at; everything else is skipped in a tight loop.
struct StructureBytes {
  bool special[256] = {};
  constexpr StructureBytes() {
    for (unsigned char c : std::string_view("\"()[]{}<")) special[c] = true;
  }
};
constexpr StructureBytes kStructure;

}  // namespace

size_t FindArgsEnd(std::string_view text) {
  int depth = 1;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    while (!kStructure.special[static_cast<unsigned char>(text[i])]) {
      if (++i == n) return std::string_view::npos;
    }
    switch (text[i]) {
      case '"':
        i = byte_scan::SkipString(text, i);
        if (i == std::string_view::npos) return i;
        break;
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ')':
      case ']':
      case '}':
        if (--depth == 0) return text[i] == ')' ? i : std::string_view::npos;
        break;
      default:  // '<'
        if (byte_scan::IsDecorationStart(text, i)) {
          i = byte_scan::SkipDecoration(text, i);
          if (i == std::string_view::npos) return i;
        }
        break;
    }
  }
  return std::string_view::npos;
}

namespace {

using line_scan::IsLower;
using line_scan::Load8;
using line_scan::ReadPidColumn;
using line_scan::SkipSpaces;

// Skips the spaces before p back to begin, eight at a time (a short call's padding).
inline const char* SkipSpacesBack(const char* begin, const char* p) {
  constexpr uint64_t kSpaces = 0x2020202020202020ull;
  while (p - begin >= 8) {
    const uint64_t other = Load8(p - 8) ^ kSpaces;  // p[-1] is the high byte
    if (other != 0) return p - std::countl_zero(other) / 8;
    p -= 8;
  }
  while (p > begin && p[-1] == ' ') --p;
  return p;
}

}  // namespace

size_t ReturnValueStartSlow(std::string_view rest) {
  const char* data = rest.data();
  size_t end = rest.size();
  while (end > 0) {
    const void* q = memrchr(data, '=', end);
    if (q == nullptr) return std::string_view::npos;
    const size_t eq = static_cast<const char*>(q) - data;
    if (eq >= 2 && eq + 1 < rest.size() && data[eq - 1] == ' ' && data[eq + 1] == ' ') {
      size_t j = eq - 1;  // strace pads before "= " to align the returns: `close(3)      = 0`
      j = static_cast<size_t>(SkipSpacesBack(data, data + j) - data);
      if (j > 0 && data[j - 1] == ')') return eq + 2;
    }
    end = eq;  // '=' inside a decoration, a string or a struct: look further back
  }
  return std::string_view::npos;
}

namespace {

// The shape of nearly every line of an `strace -f -o` trace, `PID  name(args) = ret`, read in
// one pass of pointer steps; false (nothing written) for any other shape, left to the general
// parse. What it accepts, it reads exactly as the general parse would. With `names`, a name
// it remembers is recognised without a scan, and the name is looked up.
bool ParseCommonHead(std::string_view line, NameIndex* names, LineHead* head) {
  const char* p = line.data();
  const char* const end = p + line.size();
  // A pid, then spaces: the -o pid column.
  uint32_t pid = 0;
  p = ReadPidColumn(p, end, &pid);
  if (p == nullptr) return false;
  p = SkipSpaces(p, end);
  // A name that starts with a lowercase letter (not a timestamp, a notice or a resumption)...
  if (p == end || !IsLower(*p)) return false;
  const char* name = p;
  size_t name_size = 0;
  int32_t syscall = -1;
  const bool known = names != nullptr && names->Match(p, end, &name_size, &syscall);
  if (known) {
    p += name_size;  // at its '('
  } else {
    while (p < end && IsNameChar(*p)) ++p;
    if (p == end || *p != '(') return false;
    name_size = static_cast<size_t>(p - name);
  }
  // ...and a line that does not end in '>' (unfinished, detached, pid changed) after its
  // trailing blanks.
  const char* rest = p + 1;
  const char* rest_end = end;
  while (rest_end > rest && (rest_end[-1] == ' ' || rest_end[-1] == '\t' || rest_end[-1] == '\r')) {
    --rest_end;
  }
  if (rest_end > rest && rest_end[-1] == '>') return false;
  head->kind = LineKind::kCall;
  head->has_pid = true;
  head->pid = static_cast<int32_t>(pid);
  head->name = std::string_view(name, name_size);
  head->rest = std::string_view(rest, rest_end - rest);
  if (names != nullptr) head->syscall = known ? syscall : (*names)(head->name);
  return true;
}

}  // namespace

int32_t NameIndex::operator()(std::string_view name) {
  // Only a name of the common line's shape is remembered: 1 to 15 name bytes, lowercase first.
  if (name.empty() || name.size() > 15 || !IsLower(name[0])) return lookup_(name);
  for (char c : name) {
    if (!IsNameChar(c)) return lookup_(name);
  }
  char text[16] = {};
  memcpy(text, name.data(), name.size());
  text[name.size()] = '(';
  Key key;
  KeyAt(text, &key);  // the '(' is within the 16 bytes
  if (const Entry* e = Find(key)) return e->index;
  const int32_t index = lookup_(name);
  // The set's first way if it is free, else the second (a third name in the set replaces it).
  const size_t set = SetOf(key);
  Entry& e = slots_[slots_[set].first == 0 ? set : set + 1];
  e = Entry{key.first, key.second, key.size, index};
  return index;
}

namespace {

// The pid before a general line: "[pid  123] " or the -o column's bare "123 ". Sets head's pid
// and returns where the line goes on after it: i itself when there is none (an integer without
// a space after it is not a pid), npos with the garbage reason for a prefix that is there but
// cannot be a pid.
inline size_t ParsePidPrefix(std::string_view line, size_t i, LineHead* head) {
  const size_t n = line.size();
  if (line[i] == '[' && line.compare(i, 5, "[pid ") == 0) {
    size_t j = i + 5;
    while (j < n && line[j] == ' ') ++j;
    int64_t pid = 0;
    if (!ParseDecimal(line, &j, &pid) || j >= n || line[j] != ']') {
      head->garbage_reason = "malformed [pid N] prefix";
      return std::string_view::npos;
    }
    if (!FitsPid(pid)) {
      head->garbage_reason = "pid out of range";
      return std::string_view::npos;
    }
    head->has_pid = true;
    head->pid = static_cast<int32_t>(pid);
    return j + 1;
  }
  if (IsDigit(line[i])) {
    size_t j = i;
    int64_t pid = 0;
    ParseDecimal(line, &j, &pid);
    if (j < n && line[j] == ' ') {  // a bare integer then a space: the pid column
      if (!FitsPid(pid)) {
        head->garbage_reason = "pid out of range";
        return std::string_view::npos;
      }
      head->has_pid = true;
      head->pid = static_cast<int32_t>(pid);
      return j;
    }
  }
  return i;
}

// Timestamp (-t, -tt, -ttt, -r): digits with ':' or '.', then a space. Returns where the line
// goes on after it and its spaces; i itself when there is none. Bare digits count only after a
// pid: without one, they were the pid column.
inline size_t SkipTimestamp(std::string_view line, size_t i, bool has_pid) {
  const size_t n = line.size();
  if (i < n && IsDigit(line[i])) {
    size_t j = i;
    bool punct = false;
    while (j < n && (IsDigit(line[j]) || line[j] == ':' || line[j] == '.')) {
      punct |= !IsDigit(line[j]);
      ++j;
    }
    if (j < n && line[j] == ' ' && (punct || has_pid)) {
      i = j;
      while (i < n && line[i] == ' ') ++i;
    }
  }
  return i;
}

// "+++ exited ...", "+++ killed ...", "+++ superseded by execve in pid N +++".
inline void ParseLifecycleNotice(std::string_view p, LineHead* head) {
  if (p.starts_with("+++ exited")) {
    head->kind = LineKind::kExited;
  } else if (p.starts_with("+++ killed")) {
    head->kind = LineKind::kKilled;
  } else if (p.starts_with("+++ superseded by execve in pid ")) {
    size_t j = std::strlen("+++ superseded by execve in pid ");
    int64_t other = 0;
    if (ParseDecimal(p, &j, &other) && FitsPid(other)) {
      head->kind = LineKind::kSuperseded;
      head->other_pid = static_cast<int32_t>(other);
    } else {
      head->garbage_reason = "malformed superseded notice";
    }
  } else {
    head->garbage_reason = "unknown +++ notice";
  }
}

// "<... name resumed>rest": the second half of an unfinished call.
inline void ParseResumed(std::string_view p, LineHead* head) {
  size_t j = 5;
  size_t name_start = j;
  while (j < p.size() && IsNameChar(p[j])) ++j;
  constexpr std::string_view kResumed = " resumed>";
  if (j == name_start || p.compare(j, kResumed.size(), kResumed) != 0) {
    head->garbage_reason = "malformed resumed line";
    return;
  }
  head->kind = LineKind::kResumed;
  head->name = p.substr(name_start, j - name_start);
  head->rest = p.substr(j + kResumed.size());
}

// Lifecycle and notice lines start with punctuation; system calls with a letter. True when p
// (the line after its prefix) is one of them, read into head; false for a system call line.
inline bool ParseNonCallLine(std::string_view p, LineHead* head) {
  const char first = p[0];
  if (first != '+' && first != '-' && first != '<' && first != '[' && first != 's') return false;
  if (p.starts_with("+++ ")) {
    ParseLifecycleNotice(p, head);
    return true;
  }
  if (p.starts_with("--- ")) {
    head->kind = LineKind::kSignal;
    return true;
  }
  if (p.starts_with("<... ")) {
    ParseResumed(p, head);
    return true;
  }
  if (p.starts_with("strace: ") || p.starts_with("[ Process ") || p.starts_with("<detached")) {
    head->kind = LineKind::kNotice;
    return true;
  }
  return false;
}

// The first half of a call strace left to finish later: rest ends in "<unfinished ...>",
// "<detached ...>" or "<pid changed to N ...>". True when it does (head written).
inline bool ParseUnfinishedEnd(std::string_view rest, LineHead* head) {
  if (rest.ends_with(kUnfinished)) {
    head->kind = LineKind::kUnfinished;
    head->rest = TrimRight(rest.substr(0, rest.size() - kUnfinished.size()));
    return true;
  }
  if (rest.ends_with(kDetached)) {  // strace detached during the call: it never returns
    head->kind = LineKind::kUnfinished;
    head->rest = TrimRight(rest.substr(0, rest.size() - kDetached.size()));
    return true;
  }
  if (rest.ends_with("...>")) {
    size_t at = rest.rfind(kPidChanged);
    if (at != std::string_view::npos) {
      size_t k = at + kPidChanged.size();
      int64_t other = 0;
      if (ParseDecimal(rest, &k, &other) && FitsPid(other)) {
        head->kind = LineKind::kUnfinished;
        head->other_pid = static_cast<int32_t>(other);
        head->rest = TrimRight(rest.substr(0, at));
        return true;
      }
    }
  }
  return false;
}

// "name(rest": a whole call, or the first half of one.
inline void ParseCallLine(std::string_view p, LineHead* head) {
  size_t j = 0;
  while (j < p.size() && IsNameChar(p[j])) ++j;
  if (j == 0 || j >= p.size() || p[j] != '(') {
    head->garbage_reason = "not a system call line";
    return;
  }
  head->name = p.substr(0, j);
  std::string_view rest = p.substr(j + 1);
  // Most complete calls end in a digit or ')'.
  if (!rest.empty() && rest.back() == '>' && ParseUnfinishedEnd(rest, head)) return;
  head->kind = LineKind::kCall;
  head->rest = rest;
}

// Every other shape: [pid N] prefixes, timestamps, notices, resumed and unfinished halves.
void ParseGeneralHead(std::string_view line, LineHead* head) {
  size_t i = 0;
  const size_t n = line.size();
  while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == n || TrimRight(line).empty()) {
    head->kind = LineKind::kBlank;
    return;
  }
  i = ParsePidPrefix(line, i, head);
  if (i == std::string_view::npos) return;
  while (i < n && line[i] == ' ') ++i;
  i = SkipTimestamp(line, i, head->has_pid);
  std::string_view p = TrimRight(line.substr(i));
  if (p.empty()) {
    head->kind = LineKind::kGarbage;
    head->garbage_reason = "prefix without a call";
    return;
  }
  if (ParseNonCallLine(p, head)) return;
  ParseCallLine(p, head);
}

}  // namespace

LineHead ParseLineHead(std::string_view line) { return ParseLineHead(line, nullptr); }

LineHead ParseLineHead(std::string_view line, NameIndex* names) {
  LineHead head;
  if (ParseCommonHead(line, names, &head)) return head;
  ParseGeneralHead(line, &head);
  if (names != nullptr && NamesSyscall(head.kind)) head.syscall = (*names)(head.name);
  return head;
}

namespace {
// ParseCallTail once the argument list's closing parenthesis is found at `end` (npos: none).
bool ParseTailAt(std::string_view rest, size_t end, CallTail* out) {
  *out = CallTail{};
  if (end == std::string_view::npos) return false;
  out->args = std::string_view(rest.data(), end);
  size_t i = end + 1;
  const size_t n = rest.size();
  // strace pads a short call's return out to column 40: up to dozens of spaces.
  i = static_cast<size_t>(SkipSpaces(rest.data() + std::min(i, n), rest.data() + n) - rest.data());
  if (i + 1 >= n || rest[i] != '=' || rest[i + 1] != ' ') return true;  // no return value
  i += 2;
  while (i < n && rest[i] == ' ') ++i;
  size_t tok = i;
  while (i < n && rest[i] != ' ') {
    if (rest[i] == '<' &&
        byte_scan::IsDecorationStart(rest, i)) {  // "3</srv/My Emails>": one token
      size_t close = byte_scan::SkipDecoration(rest, i);
      if (close == std::string_view::npos) {
        i = n;
        break;
      }
      i = close;
    }
    ++i;
  }
  out->ret_text = std::string_view(rest.data() + tok, i - tok);
  out->has_return = true;
  std::string_view r = out->ret_text;
  if (!r.empty() && r[0] == '?') {
    out->return_unknown = true;
  } else {
    bool neg = !r.empty() && r[0] == '-';
    size_t k = neg ? 1 : 0;
    int64_t v = 0;
    if (r.size() > k + 2 && r[k] == '0' && r[k + 1] == 'x') {
      uint64_t u = 0;  // addresses may use all 64 bits
      for (k += 2; k < r.size(); ++k) {
        char c = r[k];
        int d = IsDigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (d < 0) break;
        u = (u << 4) | static_cast<uint64_t>(d);
      }
      v = static_cast<int64_t>(u);
    } else if (!ParseDecimal(r, &k, &v)) {
      out->has_return = false;  // not a return value we understand
      return true;
    }
    // Negated as unsigned: "-0x8000000000000000" is INT64_MIN, not an overflow.
    out->ret = static_cast<int64_t>(neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  }
  // An error name follows only a failure ("-1 ENOENT (...)") or an unknown return
  // ("? ERESTARTSYS (...)"); after a success the text is a decoration or a comment.
  if (!out->return_unknown && out->ret >= 0) return true;
  while (i < n && rest[i] == ' ') ++i;
  if (i < n && rest[i] == 'E') {
    size_t e = i;
    while (i < n && ((rest[i] >= 'A' && rest[i] <= 'Z') || IsDigit(rest[i]) || rest[i] == '_')) ++i;
    out->errno_name = rest.substr(e, i - e);
  }
  return true;
}

}  // namespace

bool ParseCallTail(std::string_view rest, CallTail* out) {
  return ParseTailAt(rest, FindArgsEnd(rest), out);
}

bool ParseCallTailAt(std::string_view rest, size_t close, CallTail* out) {
  return ParseTailAt(rest, close, out);
}

}  // namespace fsmove::strace
