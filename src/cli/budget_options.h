// The host budget's flags (base/host_budget.h) for the commands that read what module code
// made: `fsmove graph` (the catalog), `fsmove analyze` (also paths and inodes), `fsmove
// check` (also --save-trace's cap) and `fsmove scan` (each module's check). The flags are
// made from the budget's one table, so that a limit added there is a flag of each.
#pragma once

#include <array>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "fsmove/base/host_budget.h"

namespace fsmove::cli {

using base::BudgetScope;

// Each limit's value as given (or its default's text), in base::BudgetLimits()'s order.
struct BudgetFlags {
  BudgetFlags();
  std::array<std::string, base::kBudgetLimitCount> text;
};

// The flags of the limits in `scope` (base::InScope).
void AddBudgetOptions(CLI::App* cmd, BudgetFlags* flags, BudgetScope scope);

// The budget the flags give; InvalidArgument naming the flag for a value it cannot read.
absl::StatusOr<base::HostBudget> BudgetFromFlags(const BudgetFlags& flags);

}  // namespace fsmove::cli
