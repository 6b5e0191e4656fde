// Golden text forms of an analysis; see golden.h.
#include "fsmove/report/golden.h"

#include <map>
#include <set>

#include "fmt/format.h"

namespace fsmove::report {

std::string AccessMapText(const analysis::Analyzer& analyzer) {
  const analysis::AccessMap& map = analyzer.interpreter().accesses();
  const analysis::BlockTable& blocks = analyzer.interpreter().blocks();
  std::map<std::string, std::set<std::string>> by_path;
  for (analysis::PathId id = 0; id < map.path_count(); ++id) {
    if (map.accesses(id).empty()) continue;
    auto& set = by_path[analyzer.interpreter().CanonicalPath(map.path(id))];
    for (const analysis::Access& a : map.accesses(id)) {
      set.insert(fmt::format("{}:{}", blocks.info(a.block).ref, fstrace::EffectName(a.effect)));
    }
  }
  std::string out;
  for (const auto& [path, set] : by_path) {
    out += path;
    out += '\t';
    bool first = true;
    for (const auto& s : set) {
      if (!first) out += ' ';
      out += s;
      first = false;
    }
    out += '\n';
  }
  return out;
}

std::string RelationsText(const analysis::Relations& relations,
                          const analysis::BlockTable& blocks) {
  std::set<std::string> lines;
  auto add = [&](const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      std::set<std::string> paths;
      for (const auto& e : r.evidence) paths.insert(e.path);
      std::string line = fmt::format("{}\t{}\t{}\t", analysis::RelationKindName(r.kind),
                                     blocks.info(r.first).ref, blocks.info(r.second).ref);
      bool first = true;
      for (const auto& p : paths) {
        if (!first) line += ' ';
        line += p;
        first = false;
      }
      lines.insert(line);
    }
  };
  add(relations.ordering);
  add(relations.notification);
  add(relations.write_write);
  std::string out;
  for (const auto& l : lines) out += l + '\n';
  return out;
}

std::string BlocksText(const analysis::BlockTable& blocks) {
  std::string out;
  for (analysis::BlockId id = 0; id < blocks.size(); ++id) {
    const analysis::BlockInfo& b = blocks.info(id);
    out += fmt::format("{}\tbegins={} ends={}\n", b.ref, b.begins, b.ends);
  }
  return out;
}

}  // namespace fsmove::report
