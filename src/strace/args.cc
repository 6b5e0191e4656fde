// Stage 2 of trace parsing: argument splitting and decoding; see args.h.
// Strings are decoded to raw bytes: paths are bytes, not text.
#include "fsmove/strace/args.h"

#include <cstring>

#include "byte_scan.h"

namespace fsmove::strace {
namespace {

using byte_scan::IsDigit;
inline bool IsIdentStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
inline int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Always inline: SplitUntilClose trims every argument of every modelled call (GCC made it a
// call, with the substr before it: about 30 instructions an argument).
[[gnu::always_inline]] inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Index just past the string starting at s[i] == '"' (or s.size() if unterminated).
size_t SkipString(std::string_view s, size_t i) {
  size_t close = byte_scan::SkipString(s, i);
  return close == std::string_view::npos ? s.size() : close + 1;
}

// Index of the bracket closing the one at token[0] ('{' or '['), or npos. Strings and
// decorations are skipped, so `{a="}"} => {b=1}` closes at its first '}' that is structure.
size_t MatchingClose(std::string_view token) {
  int depth = 0;
  const size_t n = token.size();
  for (size_t i = 0; i < n; ++i) {
    char c = token[i];
    if (c == '"') {
      i = SkipString(token, i) - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return i;
    } else if (c == '<' && byte_scan::IsDecorationStart(token, i)) {
      size_t end = byte_scan::SkipDecoration(token, i);
      if (end == std::string_view::npos) return end;
      i = end;
    }
  }
  return std::string_view::npos;
}

}  // namespace

namespace {
// The bytes ArgList must look at; the others are skipped in a tight loop (it runs on every
// modelled call inside a block).
struct ArgBytes {
  bool special[256] = {};
  constexpr ArgBytes() {
    for (unsigned char c : std::string_view("\"()[]{}<,")) special[c] = true;
  }
};
constexpr ArgBytes kArgBytes;
}  // namespace

ArgList::ArgList(std::string_view args) {
  int depth = 0;
  size_t start = 0;
  const size_t n = args.size();
  for (size_t i = 0; i < n; ++i) {
    while (!kArgBytes.special[static_cast<unsigned char>(args[i])]) {
      if (++i == n) break;
    }
    if (i == n) break;
    char c = args[i];
    if (c == '"') {
      i = SkipString(args, i) - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == '<') {
      if (byte_scan::IsDecorationStart(args, i)) {
        // -y decoration: paths may hold ", " and sockets "->" inside [...].
        size_t end = byte_scan::SkipDecoration(args, i);
        i = end == std::string_view::npos ? n : end;
      }
    } else if (depth == 0) {  // ','
      items_.push_back(Trim(args.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = Trim(args.substr(std::min(start, n)));
  if (!last.empty() || !items_.empty()) items_.push_back(last);
}

size_t ArgList::SplitUntilClose(std::string_view rest) {
  items_.clear();
  int depth = 0;  // inside the argument list
  size_t start = 0;
  const size_t n = rest.size();
  for (size_t i = 0; i < n; ++i) {
    while (!kArgBytes.special[static_cast<unsigned char>(rest[i])]) {
      if (++i == n) return std::string_view::npos;
    }
    const char c = rest[i];
    if (c == '"') {
      i = byte_scan::SkipString(rest, i);
      if (i == std::string_view::npos) return i;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth-- > 0) continue;
      if (c != ')') return std::string_view::npos;
      std::string_view last = Trim(std::string_view(rest.data() + start, i - start));
      if (!last.empty() || !items_.empty()) items_.push_back(last);
      return i;
    } else if (c == '<') {
      if (byte_scan::IsDecorationStart(rest, i)) {
        i = byte_scan::SkipDecoration(rest, i);
        if (i == std::string_view::npos) return i;
      }
    } else if (depth == 0) {  // ','
      items_.push_back(Trim(std::string_view(rest.data() + start, i - start)));
      start = i + 1;
    }
  }
  return std::string_view::npos;
}

void ArgList::SaveTo(std::string_view rest, size_t close, std::vector<uint32_t>* out) const {
  out->push_back(close == std::string_view::npos ? UINT32_MAX : static_cast<uint32_t>(close));
  out->push_back(static_cast<uint32_t>(items_.size()));
  for (std::string_view item : items_) {
    out->push_back(static_cast<uint32_t>(item.data() - rest.data()));  // within rest, trimmed
    out->push_back(static_cast<uint32_t>(item.size()));
  }
}

size_t ArgList::RestoreFrom(std::string_view rest, const uint32_t* saved) {
  items_.clear();
  const uint32_t count = saved[1];
  for (uint32_t i = 0; i < count; ++i) {
    items_.emplace_back(rest.data() + saved[2 + 2 * i], saved[3 + 2 * i]);
  }
  return saved[0] == UINT32_MAX ? std::string_view::npos : saved[0];
}

std::string_view ArgList::Named(std::string_view name) const {
  for (std::string_view item : items_) {
    if (item.size() > name.size() && item.compare(0, name.size(), name) == 0 &&
        item[name.size()] == '=') {
      return item.substr(name.size() + 1);
    }
  }
  return {};
}

namespace {
// The byte an escape stands for: token[*i] is the character after the backslash, and *i moves
// past the escape (\n and the other C letters, \xHH, up to three octal digits, or the
// character itself: \\ \" \').
char DecodeEscape(std::string_view token, size_t* i) {
  const size_t n = token.size();
  char c = token[(*i)++];
  switch (c) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case 'v':
      return '\v';
    case 'f':
      return '\f';
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'e':
      return '\033';
    case 'x': {
      int v = 0, digits = 0;
      while (digits < 2 && *i < n && HexValue(token[*i]) >= 0) {
        v = v * 16 + HexValue(token[(*i)++]);
        ++digits;
      }
      return static_cast<char>(v);
    }
    default:
      if (c >= '0' && c <= '7') {
        int v = c - '0', digits = 1;
        while (digits < 3 && *i < n && token[*i] >= '0' && token[*i] <= '7') {
          v = v * 8 + (token[(*i)++] - '0');
          ++digits;
        }
        return static_cast<char>(v & 0xff);
      }
      return c;  // \\ \" \' and anything strace may escape literally
  }
}
}  // namespace

bool DecodeString(std::string_view token, std::string* out, bool* truncated) {
  out->clear();
  if (truncated != nullptr) *truncated = false;
  if (token.empty() || token[0] != '"') return false;
  const size_t n = token.size();
  size_t i = 1;
  size_t quote = 0;  // the first '"' at or after i (n: none), found again once i is past it
  while (i < n) {
    // Copy runs of plain bytes at once: up to the next quote, or a backslash before it.
    if (quote < i) {
      const void* q = memchr(token.data() + i, '"', n - i);
      quote = q != nullptr ? static_cast<size_t>(static_cast<const char*>(q) - token.data()) : n;
    }
    const char* start = token.data() + i;
    const void* backslash = memchr(start, '\\', quote - i);
    const size_t run = backslash != nullptr
                           ? static_cast<size_t>(static_cast<const char*>(backslash) - start)
                           : quote - i;
    out->append(start, run);
    i += run;
    if (i >= n) return false;  // unterminated
    if (token[i] == '"') {
      if (truncated != nullptr) *truncated = token.substr(i + 1).starts_with("...");
      return true;
    }
    ++i;  // backslash
    if (i >= n) return false;
    out->push_back(DecodeEscape(token, &i));
  }
  return false;
}

size_t DecodeStringPrefix(std::string_view token, char* out, size_t cap) {
  if (token.empty() || token[0] != '"') return 0;
  const size_t n = token.size();
  size_t i = 1, written = 0;
  while (written < cap && i < n && token[i] != '"') {
    if (token[i] != '\\') {
      out[written++] = token[i++];
    } else if (++i < n) {
      out[written++] = DecodeEscape(token, &i);
    }
  }
  return written;
}

bool ParseInt(std::string_view token, int64_t* value) {
  token = Trim(token);
  if (token.starts_with("AT_FDCWD")) {
    *value = -100;
    return true;
  }
  bool neg = false;
  size_t i = 0;
  if (i < token.size() && token[i] == '-') {
    neg = true;
    ++i;
  }
  if (i >= token.size() || !IsDigit(token[i])) return false;
  uint64_t v = 0;
  if (token[i] == '0' && i + 1 < token.size() && (token[i + 1] == 'x' || token[i + 1] == 'X')) {
    i += 2;
    while (i < token.size() && HexValue(token[i]) >= 0) v = (v << 4) | HexValue(token[i++]);
  } else if (token[i] == '0') {
    while (i < token.size() && token[i] >= '0' && token[i] <= '7')
      v = (v << 3) | (token[i++] - '0');
  } else {
    while (i < token.size() && IsDigit(token[i])) v = v * 10 + (token[i++] - '0');
  }
  // Negated as unsigned: -9223372036854775808 is INT64_MIN, not an overflow.
  *value = static_cast<int64_t>(neg ? 0 - v : v);
  return true;
}

uint64_t ParseFlags(std::string_view token, const FlagName* names, size_t count) {
  uint64_t bits = 0;
  size_t i = 0;
  const size_t n = token.size();
  while (i < n) {
    char c = token[i];
    if (IsIdentStart(c)) {
      size_t start = i;
      while (i < n && (IsIdentStart(token[i]) || IsDigit(token[i]))) ++i;
      std::string_view word = token.substr(start, i - start);
      for (size_t k = 0; k < count; ++k) {
        if (names[k].name == word) {
          bits |= names[k].value;
          break;
        }
      }
    } else if (IsDigit(c)) {
      size_t start = i;
      while (i < n && (HexValue(token[i]) >= 0 || token[i] == 'x' || token[i] == 'X')) ++i;
      int64_t v = 0;
      if (ParseInt(token.substr(start, i - start), &v)) bits |= static_cast<uint64_t>(v);
    } else {
      ++i;
    }
  }
  return bits;
}

std::string_view StructField(std::string_view struct_token, std::string_view field) {
  struct_token = Trim(struct_token);
  if (struct_token.size() < 2 || struct_token.front() != '{') return {};
  size_t close = MatchingClose(struct_token);
  if (close == std::string_view::npos) return {};
  return ArgList(struct_token.substr(1, close - 1)).Named(field);
}

absl::InlinedVector<std::string_view, 4> ArrayItems(std::string_view token) {
  absl::InlinedVector<std::string_view, 4> items;
  token = Trim(token);
  if (token.size() < 2 || token.front() != '[') return items;
  size_t close = MatchingClose(token);
  if (close == std::string_view::npos) return items;
  ArgList list(token.substr(1, close - 1));
  for (size_t i = 0; i < list.size(); ++i) items.push_back(list[i]);
  return items;
}

}  // namespace fsmove::strace
