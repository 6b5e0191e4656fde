// Reports of the checker's findings, for people (text: both resources with file:line, every
// conflicting path with both system calls and trace lines, and the fix) and for tools (JSON
// with stable field names: faults[].kind "MOR"|"MN", faults[].source/target, faults[].paths).
#pragma once

#include <ostream>
#include <string>

#include "nlohmann/json.hpp"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/check/checker.h"
#include "fsmove/graph/dependency_graph.h"
#include "fsmove/report/analysis_report.h"

namespace fsmove::report {

struct CheckSeconds {
  double parse_interpret = 0;
  double catalog_and_graph = 0;
  double check = 0;
};

struct FindingsContext {
  std::string trace_name;
  const analysis::Analyzer* analyzer = nullptr;
  const catalog::Catalog* catalog = nullptr;
  const graph::DependencyGraph* graph = nullptr;
  const check::CheckResult* result = nullptr;
  CheckSeconds seconds;
};

void WriteFindingsText(std::ostream& out, const FindingsContext& c);
nlohmann::json FindingsToJson(const FindingsContext& c);

}  // namespace fsmove::report
