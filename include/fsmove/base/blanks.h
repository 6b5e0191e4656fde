// Blanks around a word of a line of configuration or a hand-written file (environment.conf, a
// Puppetfile, a comment's directive) or of a trace (an unfinished call's text): spaces and
// tabs, and the carriage return a file written on Windows leaves at a line's end. (Debian 12's
// Abseil has its own string_view, so its StripAsciiWhitespace does not take std::string_view.)
#pragma once

#include <string_view>

namespace fsmove::base {

inline std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace fsmove::base
