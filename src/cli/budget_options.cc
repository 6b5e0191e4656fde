// The host budget's flags; see budget_options.h.
#include "budget_options.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "fsmove/exec/memory_limit.h"

namespace fsmove::cli {
namespace {

// "128M", "4G", "1048576"; "128 MiB" as the defaults are shown. Never 0: a limit of nothing
// would refuse every catalog.
std::optional<uint64_t> ParseBudgetSize(std::string text) {
  std::erase(text, ' ');
  if (text.ends_with("iB")) text.resize(text.size() - 2);  // "128MiB" -> "128M"
  std::optional<uint64_t> bytes = exec::ParseMemorySize(text);
  if (!bytes || *bytes == 0) return std::nullopt;
  return bytes;
}

}  // namespace

void AddBudgetOptions(CLI::App* cmd, BudgetFlags* flags, BudgetScope scope) {
  const std::string group = "fsmove's own limits (past one, the check is incomplete: exit 3)";
  if (scope != BudgetScope::kCatalog) {
    cmd->add_option("--max-paths", flags->max_paths,
                    "distinct paths the analysis records (about 460 bytes of memory each); past "
                    "them the rest of the trace is not analysed")
        ->type_name("N")
        ->check(CLI::PositiveNumber)
        ->capture_default_str()
        ->group(group);
    cmd->add_option("--max-inodes", flags->max_inodes,
                    "names the analysis's model of the file system holds at once; past them the "
                    "rest of the trace is not analysed")
        ->type_name("N")
        ->check(CLI::PositiveNumber)
        ->capture_default_str()
        ->group(group);
  }
  cmd->add_option("--max-catalog-bytes", flags->max_catalog_bytes,
                  "the largest compiled catalog read (SIZE such as 128M or 1G); a larger one is "
                  "not checked")
      ->type_name("SIZE")
      ->capture_default_str()
      ->group(group);
  cmd->add_option("--max-catalog-values", flags->max_catalog_values,
                  "JSON values of the catalog held at once while it is read (those of one "
                  "resource, one edge, or outside them); a catalog holding more is not checked")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->capture_default_str()
      ->group(group);
  if (scope == BudgetScope::kCheck) {
    cmd->add_option("--max-saved-trace", flags->max_saved_trace,
                    "the trace text --save-trace writes, before compression (SIZE such as 4G); "
                    "the file stops at the last whole line within it")
        ->type_name("SIZE")
        ->capture_default_str()
        ->group(group);
  }
}

absl::StatusOr<base::HostBudget> BudgetFromFlags(const BudgetFlags& flags) {
  base::HostBudget budget;
  budget.paths = flags.max_paths;
  budget.inodes = flags.max_inodes;
  budget.catalog_values = flags.max_catalog_values;
  const std::pair<const std::string*, uint64_t*> sizes[] = {
      {&flags.max_catalog_bytes, &budget.catalog_bytes},
      {&flags.max_saved_trace, &budget.saved_trace}};
  const char* names[] = {"--max-catalog-bytes", "--max-saved-trace"};
  for (size_t i = 0; i < 2; ++i) {
    std::optional<uint64_t> bytes = ParseBudgetSize(*sizes[i].first);
    if (!bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          names[i], " ", *sizes[i].first, ": expected a size such as 128M or 4G (not 0)"));
    }
    *sizes[i].second = *bytes;
  }
  return budget;
}

}  // namespace fsmove::cli
