// Test helper: one recorded run from traces/NAME analysed and checked the way `fsmove analyze
// --catalog` does, kept alive for the report tests (the context points into it).
#pragma once

#include <memory>
#include <string>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/findings_report.h"
#include "fsmove/strace/line_reader.h"
#include "gtest/gtest.h"

namespace fsmove::testing {

struct RecordedCheck {
  std::unique_ptr<catalog::Catalog> catalog;
  std::unique_ptr<analysis::Analyzer> analyzer;
  std::unique_ptr<graph::DependencyGraph> graph;
  checker::CheckResult result;

  report::FindingsContext Context(const gating::Suppressions* suppressions = nullptr) const {
    report::FindingsContext c;
    c.trace_name = "trace.zst";
    c.analyzer = analyzer.get();
    c.catalog = catalog.get();
    c.graph = graph.get();
    c.result = &result;
    c.suppressions = suppressions;
    return c;
  }
};

inline std::string TraceDir(const std::string& name) {
  return std::string(FSMOVE_SOURCE_DIR) + "/traces/" + name;
}

// Fails the calling test (ASSERT in the caller on `catalog`) when anything does not load.
inline RecordedCheck CheckRecorded(const std::string& name, checker::CheckOptions options = {}) {
  RecordedCheck r;
  auto cat = catalog::Catalog::LoadFile(TraceDir(name) + "/catalog.json");
  if (!cat.ok()) {
    ADD_FAILURE() << cat.status();
    return r;
  }
  auto reader = strace::LineReader::Open(TraceDir(name) + "/trace.zst");
  if (!reader.ok()) {
    ADD_FAILURE() << reader.status();
    return r;
  }
  auto analyzer = std::make_unique<analysis::Analyzer>();
  if (absl::Status st = analyzer->Run(**reader); !st.ok()) {
    ADD_FAILURE() << st;
    return r;
  }
  auto catalog = std::make_unique<catalog::Catalog>(std::move(*cat));
  auto graph = std::make_unique<graph::DependencyGraph>(graph::DependencyGraph::Build(*catalog));
  auto result = checker::Check(analyzer->result(), *catalog, *graph, options);
  if (!result.ok()) {
    ADD_FAILURE() << result.status();
    return r;
  }
  r.catalog = std::move(catalog);
  r.analyzer = std::move(analyzer);
  r.graph = std::move(graph);
  r.result = std::move(*result);
  return r;
}

}  // namespace fsmove::testing
