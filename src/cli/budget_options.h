// The host budget's flags (base/host_budget.h) for the commands that read what module code
// made: `fsmove graph` (the catalog), `fsmove analyze` (also paths and inodes) and `fsmove
// check` (also --save-trace's cap).
#pragma once

#include <cstdint>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "fsmove/base/host_budget.h"

namespace fsmove::cli {

struct BudgetFlags {
  uint64_t max_paths = base::kDefaultMaxPaths;
  uint64_t max_inodes = base::kDefaultMaxInodes;
  std::string max_catalog_bytes = base::ByteSizeText(base::kDefaultMaxCatalogBytes);
  uint64_t max_catalog_values = base::kDefaultMaxCatalogValues;
  std::string max_saved_trace = base::ByteSizeText(base::kDefaultMaxSavedTrace);
};

// Which limits a command reads a budget for: the catalog's (fsmove graph), also the analysis's
// (fsmove analyze), also the saved trace's (fsmove check).
enum class BudgetScope { kCatalog, kAnalyze, kCheck };

// --max-catalog-bytes, --max-catalog-values; from kAnalyze --max-paths, --max-inodes; for
// kCheck --max-saved-trace.
void AddBudgetOptions(CLI::App* cmd, BudgetFlags* flags, BudgetScope scope);

// The budget the flags give; InvalidArgument naming the flag for a size it cannot read.
absl::StatusOr<base::HostBudget> BudgetFromFlags(const BudgetFlags& flags);

}  // namespace fsmove::cli
