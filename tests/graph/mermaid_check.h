// Test helper: a checker for the Mermaid subset fsmove writes (flowchart LR; nodes n<i> with one
// quoted label; `-->`, `-->|word|` and `-.->|word|` edges between declared nodes; one classDef
// and one class line). Every label must be inert: no quote, backtick, angle bracket but the
// <br/> fsmove puts there itself, no `;` `|` `%` `{` `}` `&` `#` outside an entity code.
#pragma once

#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fsmove::testing {

// Empty when `text` (without fences) is well-formed; else the first problem.
inline std::string MermaidProblem(const std::string& text) {
  static const std::regex kNode(R"re(  (n\d+)\["([^"]*)"\])re");
  static const std::regex kEdge(R"re(  (n\d+) (-->|-->\|[a-z]+\||-\.->\|[a-z]+\|) (n\d+))re");
  static const std::regex kClassDef(
      R"re(  classDef [a-z]+ [a-z-]+:[#0-9a-z]+(,[a-z-]+:[#0-9a-z]+)*)re");
  static const std::regex kClass(R"re(  class (n\d+(,n\d+)*) [a-z]+)re");
  static const std::regex kEntity(R"re(#\d+;)re");
  std::istringstream in(text);
  std::string line;
  std::set<std::string> nodes;
  bool header = false;
  int edges = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    std::smatch m;
    const std::string where = "line " + std::to_string(number) + " '" + line + "': ";
    if (!header) {
      if (line != "flowchart LR") return where + "expected the flowchart LR header";
      header = true;
    } else if (std::regex_match(line, m, kNode)) {
      if (edges > 0) return where + "node after an edge";
      if (!nodes.insert(m[1]).second) return where + "node declared twice";
      std::string label = std::regex_replace(m[2].str(), kEntity, "");
      size_t br;
      while ((br = label.find("<br/>")) != std::string::npos) label.erase(br, 5);
      if (label.find_first_of("\"`<>;|%{}&#\\") != std::string::npos) {
        return where + "label has a raw special character";
      }
      if (label.find("-->") != std::string::npos) return where + "label has an arrow";
    } else if (std::regex_match(line, m, kEdge)) {
      if (!nodes.count(m[1]) || !nodes.count(m[3])) return where + "edge to an undeclared node";
      ++edges;
    } else if (std::regex_match(line, m, kClass)) {
      std::string ids = m[1];
      std::istringstream list(ids);
      for (std::string id; std::getline(list, id, ',');) {
        if (!nodes.count(id)) return where + "class of an undeclared node";
      }
    } else if (!std::regex_match(line, kClassDef)) {
      return where + "not in the subset";
    }
  }
  if (!header) return "empty";
  if (nodes.empty()) return "no nodes";
  return "";
}

}  // namespace fsmove::testing
