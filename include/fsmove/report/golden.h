// Stable, reviewable text forms of an analysis for golden tests: the access map (one line per
// canonical path) and the relations (one line per resource pair, with the evidence paths).
// Line numbers and pids are left out so that a re-recorded trace of the same run compares.
#pragma once

#include <string>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/analysis/relations.h"

namespace fsmove::report {

// "PATH\tRef:effect Ref:effect..." sorted by path, effects sorted.
std::string AccessMapText(const analysis::Analyzer& analyzer);
// "KIND\tFIRST\tSECOND\tPATH PATH..." sorted.
std::string RelationsText(const analysis::Relations& relations, const analysis::BlockTable& blocks);
// "REF\tbegins=N ends=N" sorted by first appearance.
std::string BlocksText(const analysis::BlockTable& blocks);

}  // namespace fsmove::report
