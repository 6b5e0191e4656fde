// Stage 1 of trace parsing: prefix, kind and name of an strace line; tail on demand.
// Hand-written scanning: this runs on every line of multi-gigabyte traces.
#include "fsmove/trace/strace_line.h"

#include <cstring>

namespace fsmove::trace {
namespace {

constexpr std::string_view kUnfinished = "<unfinished ...>";
constexpr std::string_view kPidChanged = "<pid changed to ";

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || IsDigit(c) || c == '_' || (c >= 'A' && c <= 'Z');
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
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

// Skips a -y/-yy decoration starting at text[i] == '<'; returns the index of its '>'.
size_t SkipDecoration(std::string_view text, size_t i) {
  int square = 0;
  for (++i; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      ++square;
    } else if (c == ']') {
      if (square > 0) --square;
    } else if (c == '>' && square == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

size_t FindArgsEnd(std::string_view text) {
  int depth = 1;
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    switch (c) {
      case '"': {
        // Find the closing quote, skipping escapes. memchr keeps long strings cheap.
        size_t j = i + 1;
        for (;;) {
          const void* q = memchr(text.data() + j, '"', n - j);
          if (q == nullptr) return std::string_view::npos;
          size_t k = static_cast<const char*>(q) - text.data();
          size_t backslashes = 0;
          while (k - backslashes > j && text[k - backslashes - 1] == '\\') ++backslashes;
          if (backslashes % 2 == 0) {
            i = k;
            break;
          }
          j = k + 1;
        }
        break;
      }
      case '(':
      case '[':
      case '{':
        ++depth;
        break;
      case ')':
      case ']':
      case '}':
        if (--depth == 0) return c == ')' ? i : std::string_view::npos;
        break;
      case '<':
        if (i > 0 && (IsDigit(text[i - 1]) || text[i - 1] == 'D')) {
          size_t end = SkipDecoration(text, i);
          if (end == std::string_view::npos) return end;
          i = end;
        }
        break;
      default:
        break;
    }
  }
  return std::string_view::npos;
}

LineHead ParseLineHead(std::string_view line) {
  LineHead head;
  size_t i = 0;
  const size_t n = line.size();
  while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == n || TrimRight(line).empty()) {
    head.kind = LineKind::kBlank;
    return head;
  }
  // Pid prefix: "[pid  123] " or "123 ".
  if (line.compare(i, 5, "[pid ") == 0) {
    size_t j = i + 5;
    while (j < n && line[j] == ' ') ++j;
    int64_t pid = 0;
    if (!ParseDecimal(line, &j, &pid) || j >= n || line[j] != ']') {
      head.garbage_reason = "malformed [pid N] prefix";
      return head;
    }
    head.has_pid = true;
    head.pid = static_cast<int32_t>(pid);
    i = j + 1;
  } else if (IsDigit(line[i])) {
    size_t j = i;
    int64_t pid = 0;
    ParseDecimal(line, &j, &pid);
    if (j < n && line[j] == ' ') {  // a bare integer then a space: the pid column
      head.has_pid = true;
      head.pid = static_cast<int32_t>(pid);
      i = j;
    }
  }
  while (i < n && line[i] == ' ') ++i;
  // Timestamp (-t, -tt, -ttt, -r): digits with ':' or '.', then a space.
  if (i < n && IsDigit(line[i])) {
    size_t j = i;
    bool punct = false;
    while (j < n && (IsDigit(line[j]) || line[j] == ':' || line[j] == '.')) {
      punct |= !IsDigit(line[j]);
      ++j;
    }
    if (j < n && line[j] == ' ' && (punct || head.has_pid)) {
      i = j;
      while (i < n && line[i] == ' ') ++i;
    }
  }
  std::string_view p = TrimRight(line.substr(i));
  if (p.empty()) {
    head.kind = LineKind::kGarbage;
    head.garbage_reason = "prefix without a call";
    return head;
  }
  if (p.starts_with("+++ ")) {
    if (p.starts_with("+++ exited")) {
      head.kind = LineKind::kExited;
    } else if (p.starts_with("+++ killed")) {
      head.kind = LineKind::kKilled;
    } else if (p.starts_with("+++ superseded by execve in pid ")) {
      size_t j = std::strlen("+++ superseded by execve in pid ");
      int64_t other = 0;
      if (ParseDecimal(p, &j, &other)) {
        head.kind = LineKind::kSuperseded;
        head.other_pid = static_cast<int32_t>(other);
      } else {
        head.garbage_reason = "malformed superseded notice";
      }
    } else {
      head.garbage_reason = "unknown +++ notice";
    }
    return head;
  }
  if (p.starts_with("--- ")) {
    head.kind = LineKind::kSignal;
    return head;
  }
  if (p.starts_with("<... ")) {
    size_t j = 5;
    size_t name_start = j;
    while (j < p.size() && IsNameChar(p[j])) ++j;
    constexpr std::string_view kResumed = " resumed>";
    if (j == name_start || p.compare(j, kResumed.size(), kResumed) != 0) {
      head.garbage_reason = "malformed resumed line";
      return head;
    }
    head.kind = LineKind::kResumed;
    head.name = p.substr(name_start, j - name_start);
    head.rest = p.substr(j + kResumed.size());
    return head;
  }
  if (p.starts_with("strace: ") || p.starts_with("[ Process ") || p.starts_with("<detached")) {
    head.kind = LineKind::kNotice;
    return head;
  }
  size_t j = 0;
  while (j < p.size() && IsNameChar(p[j])) ++j;
  if (j == 0 || j >= p.size() || p[j] != '(') {
    head.garbage_reason = "not a system call line";
    return head;
  }
  head.name = p.substr(0, j);
  std::string_view rest = p.substr(j + 1);
  if (rest.ends_with(kUnfinished)) {
    head.kind = LineKind::kUnfinished;
    head.rest = TrimRight(rest.substr(0, rest.size() - kUnfinished.size()));
    return head;
  }
  if (rest.ends_with("...>")) {
    size_t at = rest.rfind(kPidChanged);
    if (at != std::string_view::npos) {
      size_t k = at + kPidChanged.size();
      int64_t other = 0;
      if (ParseDecimal(rest, &k, &other)) {
        head.kind = LineKind::kUnfinished;
        head.other_pid = static_cast<int32_t>(other);
        head.rest = TrimRight(rest.substr(0, at));
        return head;
      }
    }
  }
  head.kind = LineKind::kCall;
  head.rest = rest;
  return head;
}

bool ParseCallTail(std::string_view rest, CallTail* out) {
  *out = CallTail{};
  size_t end = FindArgsEnd(rest);
  if (end == std::string_view::npos) return false;
  out->args = rest.substr(0, end);
  size_t i = end + 1;
  const size_t n = rest.size();
  while (i < n && rest[i] == ' ') ++i;
  if (i + 1 >= n || rest[i] != '=' || rest[i + 1] != ' ') return true;  // no return value
  i += 2;
  while (i < n && rest[i] == ' ') ++i;
  size_t tok = i;
  while (i < n && rest[i] != ' ') ++i;
  out->ret_text = rest.substr(tok, i - tok);
  out->has_return = true;
  std::string_view r = out->ret_text;
  if (r.starts_with("?")) {
    out->return_unknown = true;
  } else {
    bool neg = r.starts_with("-");
    size_t k = neg ? 1 : 0;
    int64_t v = 0;
    if (r.size() > k + 2 && r[k] == '0' && r[k + 1] == 'x') {
      for (k += 2; k < r.size(); ++k) {
        char c = r[k];
        int d = IsDigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (d < 0) break;
        v = (v << 4) | d;
      }
    } else if (!ParseDecimal(r, &k, &v)) {
      out->has_return = false;  // not a return value we understand
      return true;
    }
    out->ret = neg ? -v : v;
  }
  while (i < n && rest[i] == ' ') ++i;
  if (i < n && rest[i] == 'E') {
    size_t e = i;
    while (i < n && ((rest[i] >= 'A' && rest[i] <= 'Z') || IsDigit(rest[i]) || rest[i] == '_')) ++i;
    out->errno_name = rest.substr(e, i - e);
  }
  return true;
}

}  // namespace fsmove::trace
