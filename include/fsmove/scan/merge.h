// Joining the results folders of a sharded scan: every module must come from exactly one
// input; a module found in several is a duplicate (same status and counts) or a conflict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fsmove/scan/results_dir.h"

namespace fsmove::scan {

struct MergeInput {
  std::string dir;
  ResultsDirContents contents;
  std::optional<ScanManifest> manifest;
};

struct MergePlan {
  std::vector<ModuleResult> results;  // sorted by module
  struct Source {
    std::string module;
    std::string input_dir;
    std::string folder;
  };
  std::vector<Source> sources;          // where each merged module's folder comes from
  std::vector<std::string> duplicates;  // "MODULE in A and B (same result)"
  std::vector<std::string> conflicts;   // "MODULE: A says findings (1 MOR, 0 MN), B says ok"
  std::vector<std::string> unfinished;  // folders without a valid status.json (warnings)
  std::vector<std::string> problems;    // shards missing or repeated, lists that differ,
                                        // modules a shard should hold but does not
};

// Decides what the merged folder holds; duplicates take the first input's copy.
MergePlan PlanMerge(const std::vector<MergeInput>& inputs);

}  // namespace fsmove::scan
