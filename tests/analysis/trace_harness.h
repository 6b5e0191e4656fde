// Test helper: runs hand-written strace lines through the real pipeline and answers
// questions about the resulting access map.
#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "fsmove/analysis/analyzer.h"

namespace fsmove::testing {

// The two marker lines Puppet writes around a resource, from pid `pid`.
inline std::string Begin(int pid, const std::string& ref) {
  return std::to_string(pid) + " writev(1, [{iov_base=\"\\33[0;32mInfo: /Stage[main]/Main/" + ref +
         ": Starting to evaluate the resource (1 of 9)\\33[0m\", iov_len=99}, {iov_base=\"\\n\", "
         "iov_len=1}], 2) = 100";
}
inline std::string End(int pid, const std::string& ref) {
  return std::to_string(pid) + " writev(1, [{iov_base=\"\\33[0;32mInfo: /Stage[main]/Main/" + ref +
         ": Evaluated in 0.01 seconds\\33[0m\", iov_len=80}, {iov_base=\"\\n\", iov_len=1}], 2) = "
         "81";
}

// A resource block of pid 100 around the given calls (each without its pid).
inline std::vector<std::string> Block(const std::string& ref,
                                      const std::vector<std::string>& calls) {
  std::vector<std::string> out{Begin(100, ref)};
  for (const auto& c : calls) out.push_back("100 " + c);
  out.push_back(End(100, ref));
  return out;
}

inline std::vector<std::string> Cat(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

struct Harness {
  analysis::Analyzer analyzer;

  explicit Harness(const std::vector<std::string>& lines, analysis::AnalyzerOptions options = {})
      : analyzer(options) {
    uint64_t n = 0;
    for (const std::string& l : lines) analyzer.FeedLine(l, ++n);
    analyzer.Finish();
  }

  // (resource, effect) pairs recorded for an exact path.
  std::set<std::pair<std::string, std::string>> At(const std::string& path) const {
    std::set<std::pair<std::string, std::string>> out;
    const analysis::AccessMap& map = analyzer.interpreter().accesses();
    for (analysis::PathId id = 0; id < map.path_count(); ++id) {
      if (map.path(id) != path) continue;
      for (const analysis::Access& a : map.accesses(id)) {
        out.emplace(analyzer.interpreter().blocks().info(a.block).ref,
                    std::string(fstrace::EffectName(a.effect)));
      }
    }
    return out;
  }

  // Every recorded path.
  std::set<std::string> Paths() const {
    std::set<std::string> out;
    const analysis::AccessMap& map = analyzer.interpreter().accesses();
    for (analysis::PathId id = 0; id < map.path_count(); ++id) {
      if (!map.accesses(id).empty()) out.emplace(map.path(id));
    }
    return out;
  }

  // (first, second) refs of one relation kind.
  std::set<std::pair<std::string, std::string>> Pairs(analysis::RelationKind kind) const {
    analysis::Relations r = analyzer.ComputeRelations();
    const auto& list = kind == analysis::RelationKind::kOrdering       ? r.ordering
                       : kind == analysis::RelationKind::kNotification ? r.notification
                                                                       : r.write_write;
    std::set<std::pair<std::string, std::string>> out;
    const auto& blocks = analyzer.interpreter().blocks();
    for (const auto& rel : list)
      out.emplace(blocks.info(rel.first).ref, blocks.info(rel.second).ref);
    return out;
  }
};

using Pair = std::pair<std::string, std::string>;
using PairSet = std::set<Pair>;

}  // namespace fsmove::testing
