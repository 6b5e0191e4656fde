// Shell completions for bash and zsh, written from the CLI11 app itself as the man pages are
// (man_pages.h), so that they never drift from --help: every visible subcommand and option,
// the values of an option checked against a fixed set (CLI::IsMember), and files or
// directories for FILE and DIR arguments.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"

namespace fsmove::cli {

// The bash completion script: a function _fsmove, registered with `complete -F`.
std::string BashCompletion(const CLI::App& app);
// The zsh completion function (#compdef fsmove), with _arguments for each subcommand.
std::string ZshCompletion(const CLI::App& app);

// Writes DIR/fsmove (bash, named for the command as bash-completion loads it) and DIR/_fsmove
// (zsh) into DIR, which exists.
absl::Status WriteCompletions(const CLI::App& app, const std::string& dir);

}  // namespace fsmove::cli
