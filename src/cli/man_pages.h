// The manual pages, written in roff from the CLI11 app itself (its subcommands, their options'
// names, types, descriptions and defaults, their footers), so that they never drift from
// --help: fsmove.1 and fsmove-SUBCOMMAND.1 for each visible subcommand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"

namespace fsmove::cli {

// `text` made safe for roff: backslashes as \e, every '-' as \-, a leading '.' or '\'' behind
// \& (a line of its own would be read as a request).
std::string RoffEscape(std::string_view text);

// The subcommands --help lists (a hidden one has no group).
std::vector<const CLI::App*> VisibleSubcommands(const CLI::App& app);

// fsmove(1): synopsis, the subcommands, exit status, see also.
std::string MainManPage(const CLI::App& app);
// fsmove-NAME(1) for the subcommand `sub` of `app`: its options, its own subcommands, its footer.
std::string SubcommandManPage(const CLI::App& app, const CLI::App& sub);

// Writes fsmove.1 and fsmove-NAME.1 for each visible subcommand into `dir`, which exists.
absl::Status WriteManPages(const CLI::App& app, const std::string& dir);

}  // namespace fsmove::cli
