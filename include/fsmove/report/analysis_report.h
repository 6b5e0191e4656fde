// Reports of `fsmove analyze` before/without a catalog: trace statistics, resource blocks and
// the inferred relations with their evidence, as text for people or JSON for tools.
#pragma once

#include <ostream>
#include <string>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/analysis/relations.h"
#include "nlohmann/json.hpp"

namespace fsmove::report {

struct StageSeconds {
  double analysis = 0;  // parse + interpret
  double relations = 0;
};

nlohmann::json StatsToJson(const analysis::Analyzer& analyzer, const StageSeconds& seconds);
nlohmann::json RelationsToJson(const analysis::Relations& relations,
                               const analysis::BlockTable& blocks);
// What an access did to its path, in the words every report uses for evidence ("PATH:
// produced by A ..., consumed by B ..."; JSON's "verb"; the Markdown comment; the scan's
// report.html): produced, removed, needed as directory, listed its directory, consumed, or
// managed (looked at) for Puppet's own look at a file it manages; "(call failed)" added to a
// failed call.
std::string AccessVerb(const analysis::Access& a);
// One access: effect, verb, syscall, trace line, pid and its flags (failed,
// as_parent_directory, managed, listed_directory); AccessToJson adds the resource it is
// charged to.
nlohmann::json AccessFieldsToJson(const analysis::Access& a);
nlohmann::json AccessToJson(const analysis::Access& a, const analysis::BlockTable& blocks);

void WriteAnalysisText(std::ostream& out, const std::string& trace_name,
                       const analysis::Analyzer& analyzer, const analysis::Relations& relations);
// One line summarising what the trace held, for stderr and for the text report.
std::string SummaryLine(const std::string& trace_name, const analysis::Analyzer& analyzer);

}  // namespace fsmove::report
