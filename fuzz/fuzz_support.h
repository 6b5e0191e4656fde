// Shared by the fuzz targets: splitting an input into trace lines and checking invariants.
// A failed check aborts, which libFuzzer reports as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace fsmove::fuzz {

#define FSMOVE_FUZZ_CHECK(condition)                                                         \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

// Calls f(line) for each '\n'-terminated line and for a last unterminated one, the way
// strace::LineReader cuts a trace.
template <typename F>
void ForEachLine(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      f(text);
      return;
    }
    f(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
}

// Whether `part` is a view into `whole` (or empty).
inline bool Within(std::string_view part, std::string_view whole) {
  if (part.empty()) return true;
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

}  // namespace fsmove::fuzz
