// The host budget's flags; see budget_options.h.
#include "budget_options.h"

#include <optional>
#include <string>

#include "fmt/format.h"

namespace fsmove::cli {

BudgetFlags::BudgetFlags() {
  for (const base::BudgetLimitInfo& limit : base::BudgetLimits()) {
    text.at(static_cast<size_t>(limit.limit)) = base::BudgetDefaultText(limit.limit);
  }
}

void AddBudgetOptions(CLI::App* cmd, BudgetFlags* flags, BudgetScope scope) {
  const std::string group = "fsmove's own limits (past one, the check is incomplete: exit 3)";
  for (const base::BudgetLimitInfo& limit : base::BudgetLimits()) {
    if (!base::InScope(limit, scope)) continue;
    cmd->add_option(std::string(limit.flag), flags->text.at(static_cast<size_t>(limit.limit)),
                    std::string(limit.help))
        ->type_name(limit.unit == base::BudgetUnit::kBytes ? "SIZE" : "N")
        ->capture_default_str()
        ->group(group);
  }
}

absl::StatusOr<base::HostBudget> BudgetFromFlags(const BudgetFlags& flags) {
  base::HostBudget budget;
  for (const base::BudgetLimitInfo& limit : base::BudgetLimits()) {
    const std::string& text = flags.text.at(static_cast<size_t>(limit.limit));
    std::optional<uint64_t> value = base::ParseBudgetValue(limit.limit, text);
    if (!value) {
      return absl::InvalidArgumentError(fmt::format("{} {}: expected {}", limit.flag, text,
                                                    limit.unit == base::BudgetUnit::kBytes
                                                        ? "a size such as 128M or 4G (not 0)"
                                                        : "a whole number above 0"));
    }
    budget.Set(limit.limit, *value);
  }
  return budget;
}

}  // namespace fsmove::cli
