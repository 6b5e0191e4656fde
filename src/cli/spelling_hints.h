// "Did you mean" for the command line: a mistyped command or option of a command gets the
// nearest real one (base/spelling.h), as git and cargo answer `git comit`.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace fsmove::cli {

// When argv[1] is no option and no command of `app`: the sentence that says so, with the
// nearest command when one is near.
std::optional<std::string> UnknownCommandMessage(const CLI::App& app, int argc, char** argv);

// After CLI11 refused arguments it did not expect (CLI::ExtrasError): "did you mean --x?" for
// the first unexpected long option of the command that was given, when one is near.
std::optional<std::string> UnexpectedOptionHint(const CLI::App& app);

}  // namespace fsmove::cli
