// Byte-level scanning shared by the two parser stages: quoted strings and -y/-yy fd
// decorations, the two places where strace prints text that must not be read as structure.
#pragma once

#include <cstring>
#include <string_view>

namespace fsmove::strace::byte_scan {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Whether the '<' at text[i] opens a -y/-yy decoration. strace prints one right after an fd
// number (`3</etc/x>`, `3<TCP:[...]>`), after AT_FDCWD (`AT_FDCWD</tmp>`) and after its -X
// verbose form (`-100 /* AT_FDCWD */</tmp>`).
inline bool IsDecorationStart(std::string_view text, size_t i) {
  if (i == 0 || text[i] != '<') return false;
  char prev = text[i - 1];
  return IsDigit(prev) || prev == 'D' || (prev == '/' && i >= 2 && text[i - 2] == '*');
}

// Index of the '>' closing the decoration opened at text[i] == '<', or npos. Paths inside are
// printed with '<' and '>' escaped, so the only nesting is strace's own (`-e decode-fds=dev`:
// `1</dev/pts/0<char 136:0>>`); socket decorations print "->" inside [...].
inline size_t SkipDecoration(std::string_view text, size_t i) {
  int square = 0;
  int angle = 1;
  for (++i; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      ++square;
    } else if (c == ']') {
      if (square > 0) --square;
    } else if (square == 0) {
      if (c == '<') {
        ++angle;
      } else if (c == '>' && --angle == 0) {
        return i;
      }
    }
  }
  return std::string_view::npos;
}

// Index of the '"' closing the string opened at text[i] == '"', or npos. memchr keeps long
// strings (write buffers, argv) cheap.
inline size_t SkipString(std::string_view text, size_t i) {
  const size_t n = text.size();
  size_t j = i + 1;
  for (;;) {
    if (j >= n) return std::string_view::npos;
    const void* q = memchr(text.data() + j, '"', n - j);
    if (q == nullptr) return std::string_view::npos;
    size_t k = static_cast<const char*>(q) - text.data();
    size_t backslashes = 0;
    while (k - backslashes > j && text[k - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return k;
    j = k + 1;
  }
}

}  // namespace fsmove::strace::byte_scan
