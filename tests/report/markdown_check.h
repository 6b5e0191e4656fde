// Test helper: structural checks that untrusted text stayed inert in fsmove's Markdown: fenced
// blocks balanced with the expected info strings, and outside code (fences and code spans) no
// HTML but fsmove's own tags, no unescaped link bracket but fsmove's own links (to its rule
// pages and its method's paper, with words of its own), no mention or
// issue reference, and no heading but fsmove's.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "fsmove/report/sarif.h"

namespace fsmove::testing {

struct MarkdownShape {
  std::vector<std::string> fences;  // info strings, in order
  std::vector<std::string> blocks;  // their contents
  std::string problem;              // empty when inert
};

// Removes CommonMark code spans from one line of text (a run of n backticks up to the next
// run of exactly n); an unmatched run is literal.
inline std::string WithoutCodeSpans(const std::string& line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] != '`') {
      out += line[i++];
      continue;
    }
    size_t n = 0;
    while (i + n < line.size() && line[i + n] == '`') ++n;
    size_t j = i + n;
    size_t close = std::string::npos;
    while (j < line.size()) {
      if (line[j] != '`') {
        ++j;
        continue;
      }
      size_t m = 0;
      while (j + m < line.size() && line[j + m] == '`') ++m;
      if (m == n) {
        close = j;
        break;
      }
      j += m;
    }
    if (close == std::string::npos) {
      out += line.substr(i, n);
      i += n;
    } else {
      out += "CODE";
      i = close + n;
    }
  }
  return out;
}

inline MarkdownShape CheckMarkdown(const std::string& text) {
  MarkdownShape shape;
  std::istringstream in(text);
  std::string line, fence;
  const std::string zwsp = "\xE2\x80\x8B";
  for (int number = 1; std::getline(in, line); ++number) {
    auto fail = [&](const std::string& why) {
      if (shape.problem.empty()) shape.problem = "line " + std::to_string(number) + ": " + why;
    };
    size_t ticks = 0;
    while (ticks < line.size() && line[ticks] == '`') ++ticks;
    if (!fence.empty()) {
      if (ticks >= fence.size() && line.find_first_not_of('`') == std::string::npos) {
        fence.clear();
      } else {
        shape.blocks.back() += line + "\n";
      }
      continue;
    }
    // CommonMark: a backtick fence's info string holds no backtick.
    if (ticks >= 3 && line.find('`', ticks) == std::string::npos) {
      fence = line.substr(0, ticks);
      shape.fences.push_back(line.substr(ticks));
      shape.blocks.emplace_back();
      continue;
    }
    if (ticks >= 3) fail("a line starts with a long backtick run");
    if (line.starts_with("#") && !line.starts_with("## fsmove") && !line.starts_with("### ")) {
      fail("a heading fsmove did not write");
    }
    std::string rest = WithoutCodeSpans(line);
    for (const std::string tag : {"<!-- fsmove-report -->", "<sub>", "</sub>"}) {
      for (size_t p; (p = rest.find(tag)) != std::string::npos;) rest.erase(p, tag.size());
    }
    // fsmove's own links: a word or two of its own to a rule page or the method's paper.
    std::string rules = report::RuleHelpUri("x");  // the pages' directory
    rules.resize(rules.size() - std::string("x.md").size());
    for (const std::string& url : {rules, std::string(report::ToolInformationUri())}) {
      for (size_t at; (at = rest.find("](" + url)) != std::string::npos;) {
        const size_t open = rest.rfind('[', at);
        const size_t close = rest.find(')', at);
        if (open == std::string::npos || close == std::string::npos) break;
        if (open > 0 && rest[open - 1] == '\\') break;  // an escaped bracket opens no link
        const std::string text = rest.substr(open + 1, at - open - 1);
        if (text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ") !=
            std::string::npos) {
          break;
        }
        rest.erase(open, close - open + 1);
      }
    }
    for (size_t i = 0; i < rest.size(); ++i) {
      const bool escaped = i > 0 && rest[i - 1] == '\\';
      const char c = rest[i];
      if ((c == '<' || c == '[' || c == ']' || c == '`') && !escaped) {
        fail(std::string("unescaped '") + c + "' in: " + line);
      }
      const bool heading_marks = line.starts_with("#") && rest.find_first_not_of('#') > i;
      if ((c == '@' || c == '#') && !heading_marks && rest.compare(i + 1, zwsp.size(), zwsp) != 0) {
        fail(std::string("a mention or reference can form at '") + c + "' in: " + line);
      }
    }
  }
  if (!fence.empty()) shape.problem = "unclosed fence";
  return shape;
}

}  // namespace fsmove::testing
