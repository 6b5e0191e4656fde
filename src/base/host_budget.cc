// The host process's budget; see host_budget.h.
#include "fsmove/base/host_budget.h"

#include "fmt/format.h"

namespace fsmove::base {

namespace {

// One row a limit, in the enum's order: its JSON name, its flag, and the field of
// HostBudget that holds its value.
struct BudgetRow {
  BudgetLimit limit;
  std::string_view name;
  std::string_view flag;
  uint64_t HostBudget::*value;
};

constexpr BudgetRow kBudgetRows[] = {
    {BudgetLimit::kPaths, "paths", "--max-paths", &HostBudget::paths},
    {BudgetLimit::kInodes, "inodes", "--max-inodes", &HostBudget::inodes},
    {BudgetLimit::kCatalogBytes, "catalog_bytes", "--max-catalog-bytes",
     &HostBudget::catalog_bytes},
    {BudgetLimit::kCatalogValues, "catalog_values", "--max-catalog-values",
     &HostBudget::catalog_values},
    {BudgetLimit::kSavedTrace, "saved_trace", "--max-saved-trace", &HostBudget::saved_trace},
};

const BudgetRow& RowOf(BudgetLimit limit) {
  for (const BudgetRow& row : kBudgetRows) {
    if (row.limit == limit) return row;
  }
  return kBudgetRows[0];  // unreachable: every limit has its row
}

}  // namespace

uint64_t HostBudget::Of(BudgetLimit limit) const { return this->*RowOf(limit).value; }

std::string_view BudgetName(BudgetLimit limit) { return RowOf(limit).name; }

std::string_view BudgetFlag(BudgetLimit limit) { return RowOf(limit).flag; }

std::string ByteSizeText(uint64_t bytes) {
  static constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes == 0 || bytes % 1024 != 0) return fmt::format("{} bytes", bytes);
  std::string_view unit;
  for (std::string_view u : kUnits) {
    if (bytes % 1024 != 0) break;
    bytes /= 1024;
    unit = u;
  }
  return fmt::format("{} {}", bytes, unit);
}

std::string BudgetValueText(BudgetLimit limit, uint64_t value) {
  switch (limit) {
    case BudgetLimit::kPaths:
      return fmt::format("{} distinct paths", value);
    case BudgetLimit::kInodes:
      return fmt::format("{} names in its model of the file system", value);
    case BudgetLimit::kCatalogBytes:
    case BudgetLimit::kSavedTrace:
      return ByteSizeText(value);
    case BudgetLimit::kCatalogValues:
      return fmt::format("{} JSON values held at once", value);
  }
  return std::to_string(value);
}

std::string BudgetHit::Sentence() const {
  const std::string_view flag = BudgetFlag(limit);
  std::string value_text = BudgetValueText(limit, value);
  switch (limit) {
    case BudgetLimit::kPaths:
    case BudgetLimit::kInodes:
      return fmt::format(
          "the analysis stopped at its limit of {} ({}){}: what the rest of the trace did is "
          "not analysed; raise it with {} N (about 460 bytes of memory each)",
          value_text, flag, where.empty() ? "" : " at " + where, flag);
    case BudgetLimit::kCatalogBytes:
      return fmt::format(
          "{} is larger than the limit of {} on a catalog ({}): it was not read, so nothing "
          "was checked; raise it with {} SIZE",
          where.empty() ? "the catalog" : where, value_text, flag, flag);
    case BudgetLimit::kCatalogValues:
      return fmt::format(
          "{} holds more than {} JSON values at once (in one resource, one edge, or outside "
          "them) ({}): it was not read, so nothing was checked; raise it with {} N",
          where.empty() ? "the catalog" : where, value, flag, flag);
    case BudgetLimit::kSavedTrace:
      return fmt::format(
          "the saved trace {} stops at its limit of {} of trace text ({}): the analysis saw "
          "the whole trace, the file holds only its start; raise it with {} SIZE",
          where, value_text, flag, flag);
  }
  return value_text;
}

}  // namespace fsmove::base
