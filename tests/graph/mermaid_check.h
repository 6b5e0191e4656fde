// Test helper: a checker for the Mermaid subset fsmove writes (flowchart LR; nodes n<i> with one
// quoted label; `-->`, `-->|word|` and `==>|missing word|` edges between declared nodes;
// linkStyle lines naming edges that exist; one classDef and one class line). Every label must be
// inert: no quote, backtick, angle bracket but the <br/> fsmove puts there itself, no `;` `|` `%`
// `{` `}` `&` `#` outside an entity code.
#pragma once

#include <set>
#include <sstream>
#include <string>

#include "re2/re2.h"

namespace fsmove::testing {

// Empty when `text` (without fences) is well-formed; else the first problem.
inline std::string MermaidProblem(const std::string& text) {
  // RE2, not std::regex: g++ 12 warns inside <regex> at -O2 with the sanitizers (-Werror).
  static const RE2 kNode(R"re(  (n\d+)\["([^"]*)"\])re");
  static const RE2 kEdge(R"re(  (n\d+) (-->|-->\|[a-z]+\||==>\|missing [a-z]+\|) (n\d+))re");
  static const RE2 kClassDef(R"re(  classDef [a-z]+ [a-z-]+:[#0-9a-z]+(,[a-z-]+:[#0-9a-z]+)*)re");
  static const RE2 kLinkStyle(
      R"re(  linkStyle (\d+(?:,\d+)*) [a-z-]+:[#0-9a-z]+(,[a-z-]+:[#0-9a-z]+)*)re");
  static const RE2 kClass(R"re(  class (n\d+(?:,n\d+)*) [a-z]+)re");
  static const RE2 kEntity(R"re(#\d+;)re");
  std::istringstream in(text);
  std::string line;
  std::set<std::string> nodes;
  bool header = false;
  int edges = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string id, label, arrow, to, ids;
    const std::string where = "line " + std::to_string(number) + " '" + line + "': ";
    if (!header) {
      if (line != "flowchart LR") return where + "expected the flowchart LR header";
      header = true;
    } else if (RE2::FullMatch(line, kNode, &id, &label)) {
      if (edges > 0) return where + "node after an edge";
      if (!nodes.insert(id).second) return where + "node declared twice";
      RE2::GlobalReplace(&label, kEntity, "");
      size_t br;
      while ((br = label.find("<br/>")) != std::string::npos) label.erase(br, 5);
      if (label.find_first_of("\"`<>;|%{}&#\\") != std::string::npos) {
        return where + "label has a raw special character";
      }
      if (label.find("-->") != std::string::npos) return where + "label has an arrow";
    } else if (RE2::FullMatch(line, kEdge, &id, &arrow, &to)) {
      if (!nodes.count(id) || !nodes.count(to)) return where + "edge to an undeclared node";
      ++edges;
    } else if (RE2::FullMatch(line, kLinkStyle, &ids)) {
      std::istringstream list(ids);
      for (std::string each; std::getline(list, each, ',');) {
        if (std::stoi(each) >= edges) return where + "style of a link not drawn";
      }
    } else if (RE2::FullMatch(line, kClass, &ids)) {
      std::istringstream list(ids);
      for (std::string each; std::getline(list, each, ',');) {
        if (!nodes.count(each)) return where + "class of an undeclared node";
      }
    } else if (!RE2::FullMatch(line, kClassDef)) {
      return where + "not in the subset";
    }
  }
  if (!header) return "empty";
  if (nodes.empty()) return "no nodes";
  return "";
}

}  // namespace fsmove::testing
