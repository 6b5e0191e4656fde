// Escaping for GitHub-flavoured Markdown; see markdown_text.h.
#include "fsmove/report/markdown_text.h"

#include <algorithm>

#include "fsmove/base/terminal_text.h"

namespace fsmove::report {

using base::TerminalSafe;
namespace {

// The longest run of backticks in `text`.
size_t LongestBacktickRun(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

constexpr std::string_view kZeroWidthSpace = "\xE2\x80\x8B";

// What can start markup inside a line in GitHub-flavoured Markdown: emphasis, code, links and
// images, HTML and entities, table cells, strikethrough, math, headings (escaped anywhere, as
// a caller may start a line with the text). List and setext markers (- + . =) only mean
// something at the start of a line, where fsmove never puts this text.
constexpr std::string_view kSpecial = "\\`*_{}[]<>()#!|~&$@";

}  // namespace

std::string MarkdownText(std::string_view text) {
  const std::string safe = TerminalSafe(text);
  std::string out;
  out.reserve(safe.size() + safe.size() / 4);
  for (char c : safe) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
    if (c == '@' || c == '#') out += kZeroWidthSpace;
  }
  return out;
}

std::string MarkdownCode(std::string_view text) {
  if (text.empty()) return "` `";
  const std::string safe = TerminalSafe(text);
  const std::string fence(LongestBacktickRun(safe) + 1, '`');
  // A space on each side when the content touches a backtick (CommonMark strips one each).
  const bool pad =
      safe.front() == '`' || safe.back() == '`' || (safe.front() == ' ' && safe.back() == ' ');
  return fence + (pad ? " " : "") + safe + (pad ? " " : "") + fence;
}

std::string MarkdownTextWithCode(std::string_view text) {
  if (std::count(text.begin(), text.end(), '`') % 2 != 0) return MarkdownText(text);
  std::string out;
  bool code = false;
  size_t start = 0;
  for (;;) {
    size_t tick = text.find('`', start);
    std::string_view part =
        text.substr(start, tick == std::string_view::npos ? tick : tick - start);
    out += code ? MarkdownCode(part) : MarkdownText(part);
    if (tick == std::string_view::npos) break;
    code = !code;
    start = tick + 1;
  }
  return out;
}

std::string MarkdownFence(std::string_view raw, std::string_view info) {
  // Control and bidirectional characters made visible as everywhere else; the code's tabs
  // and line breaks kept.
  std::string text;
  for (size_t start = 0;;) {
    const size_t tab = raw.find('\t', start);
    text += base::TerminalSafeLines(
        raw.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) break;
    text += '\t';
    start = tab + 1;
  }
  const std::string fence(std::max<size_t>(3, LongestBacktickRun(text) + 1), '`');
  std::string out = fence;
  out += info;
  out += '\n';
  out += text;
  if (!text.empty() && text.back() != '\n') out += '\n';
  out += fence;
  out += '\n';
  return out;
}

}  // namespace fsmove::report
