// The host process's budget; see host_budget.h.
#include "fsmove/base/host_budget.h"

#include <cctype>
#include <charconv>

#include "fmt/format.h"

namespace fsmove::base {

namespace {

// One row a limit, in the enum's order.
constexpr BudgetLimitInfo kBudgetRows[] = {
    {BudgetLimit::kPaths, "paths", "--max-paths", BudgetUnit::kCount, BudgetScope::kAnalyze,
     "distinct paths the analysis records (about 524 bytes of memory each); past them the "
     "rest of the trace is not analysed",
     &HostBudget::paths},
    {BudgetLimit::kInodes, "inodes", "--max-inodes", BudgetUnit::kCount, BudgetScope::kAnalyze,
     "names the analysis's model of the file system holds at once; past them the rest of the "
     "trace is not analysed",
     &HostBudget::inodes},
    {BudgetLimit::kCatalogBytes, "catalog_bytes", "--max-catalog-bytes", BudgetUnit::kBytes,
     BudgetScope::kCatalog,
     "the largest compiled catalog read (SIZE such as 128M or 1G); a larger one is not "
     "checked",
     &HostBudget::catalog_bytes},
    {BudgetLimit::kCatalogValues, "catalog_values", "--max-catalog-values", BudgetUnit::kCount,
     BudgetScope::kCatalog,
     "JSON values of the catalog held at once while it is read (those of one resource, one "
     "edge, or outside them); a catalog holding more is not checked",
     &HostBudget::catalog_values},
    {BudgetLimit::kSavedTrace, "saved_trace", "--max-saved-trace", BudgetUnit::kBytes,
     BudgetScope::kCheck,
     "the trace text --save-trace writes, before compression (SIZE such as 4G); the file "
     "stops at the last whole line within it",
     &HostBudget::saved_trace},
};

const BudgetLimitInfo& RowOf(BudgetLimit limit) {
  for (const BudgetLimitInfo& row : kBudgetRows) {
    if (row.limit == limit) return row;
  }
  return kBudgetRows[0];  // unreachable: every limit has its row
}

// "128M", "4G", "1048576", "128 MiB": bytes; none when unreadable or too large.
std::optional<uint64_t> ParseSize(std::string_view text) {
  std::string s(text);
  std::erase(s, ' ');
  if (s.ends_with("iB")) s.resize(s.size() - 2);  // "128MiB" -> "128M"
  return ParseByteSize(s);
}

}  // namespace

uint64_t HostBudget::Of(BudgetLimit limit) const { return this->*RowOf(limit).value; }

void HostBudget::Set(BudgetLimit limit, uint64_t value) { this->*RowOf(limit).value = value; }

std::span<const BudgetLimitInfo> BudgetLimits() { return kBudgetRows; }

bool InScope(const BudgetLimitInfo& limit, BudgetScope scope) {
  return static_cast<int>(limit.scope) <= static_cast<int>(scope);
}

std::optional<uint64_t> ParseBudgetValue(BudgetLimit limit, std::string_view text) {
  std::optional<uint64_t> value;
  if (RowOf(limit).unit == BudgetUnit::kBytes) {
    value = ParseSize(text);
  } else if (!text.empty() && text.size() <= 19 &&
             text.find_first_not_of("0123456789") == std::string_view::npos) {
    value = std::stoull(std::string(text));
  }
  if (!value || *value == 0) return std::nullopt;
  return value;
}

std::optional<uint64_t> ParseByteSize(std::string_view text, char largest_unit) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(text.data(), end, value);  // digits only
  if (error != std::errc() || rest == text.data()) return std::nullopt;
  const std::string_view unit(rest, static_cast<size_t>(end - rest));
  if (unit.empty()) return value;
  constexpr std::string_view kUnits = "KMGT";  // each 2^10 times the one before
  const size_t at =
      kUnits.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
  if (unit.size() != 1 || at == std::string_view::npos || at > kUnits.find(largest_unit)) {
    return std::nullopt;
  }
  const int shift = 10 * static_cast<int>(at + 1);
  if (value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

std::string BudgetDefaultText(BudgetLimit limit) {
  const uint64_t value = HostBudget{}.Of(limit);
  return RowOf(limit).unit == BudgetUnit::kBytes ? ByteSizeText(value) : std::to_string(value);
}

std::vector<std::string> BudgetArguments(const HostBudget& budget, BudgetScope scope) {
  const HostBudget defaults;
  std::vector<std::string> args;
  for (const BudgetLimitInfo& limit : BudgetLimits()) {
    if (!InScope(limit, scope) || budget.Of(limit.limit) == defaults.Of(limit.limit)) continue;
    args.emplace_back(limit.flag);
    args.push_back(std::to_string(budget.Of(limit.limit)));
  }
  return args;
}

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
          "not analysed; raise it with {} N (about 524 bytes of memory each)",
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
