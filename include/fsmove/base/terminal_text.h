// Text from the sandbox (titles, paths, file names, Puppet's messages, notes) as data, never
// as instructions to what shows it: control characters and bidirectional formatting
// controls escaped for a terminal, the way `ls -b` and git quote names, and the same
// controls escaped for JSON, XML and HTML. A title such as Exec["\e]0;x\a"] cannot set the
// terminal's title, "\e[2J" cannot clear the screen, a newline cannot split a report line,
// and U+202E cannot reverse what a reader sees (Trojan Source, CVE-2021-42574).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fsmove::base {

// The code point of the well-formed UTF-8 sequence at text[i] and its length (1 to 4), or a
// length of 0 when the byte there starts none (a stray continuation byte, a truncated or
// overlong sequence, a surrogate, a value past U+10FFFF).
struct Utf8Char {
  char32_t code_point = 0;
  size_t length = 0;
};
Utf8Char DecodeUtf8(std::string_view text, size_t i);

// The bidirectional formatting controls: U+061C, U+200E, U+200F, U+202A..U+202E,
// U+2066..U+2069 (embeddings, overrides, isolates and marks).
bool IsBidiControl(char32_t c);

// What is escaped in every format that keeps Unicode text: C1 controls (U+0080..U+009F,
// which some terminals obey), the bidirectional controls, and the line and paragraph
// separators U+2028 and U+2029 (line breaks to some viewers).
bool IsFormatControl(char32_t c);

// For a terminal, on one line: "\n" -> "\\n", "\t" -> "\\t", "\r" -> "\\r", ESC -> "\\e",
// other C0 controls and DEL -> "\\xNN", IsFormatControl code points -> "\\uNNNN" (lower-case
// hex, U+202E -> "\\u202e"), each byte of invalid UTF-8 -> "\\xNN"; everything else (printable
// ASCII, well-formed UTF-8) unchanged. Backslashes are kept as they are: the result is for
// reading, and TerminalSafe(TerminalSafe(x)) == TerminalSafe(x).
std::string TerminalSafe(std::string_view text);

// TerminalSafe, but keeping "\n": for text of several lines whose line breaks are the
// writer's own (a whole report, a diagnostic), with each untrusted part already on one line.
std::string TerminalSafeLines(std::string_view text);

// Whether TerminalSafe(text) == text.
bool IsTerminalSafe(std::string_view text);

// Text already escaped for a Unicode format (dumped JSON, XML, HTML, Markdown) with each
// IsFormatControl code point spelled as `spell` gives it (e.g. "\\u202e" for JSON, "&#x202E;"
// for XML); everything else, invalid UTF-8 included, unchanged.
std::string EscapeFormatControls(std::string_view text, std::string (*spell)(char32_t));

// The spellings EscapeFormatControls takes: "\\u202e" (JSON, JavaScript) and "&#x202E;" (XML,
// HTML).
std::string JsonEscape(char32_t c);
std::string XmlCharRef(char32_t c);

}  // namespace fsmove::base
