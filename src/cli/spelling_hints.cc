// The command line's "did you mean": the names a user could have meant, from the CLI11 app.
#include "spelling_hints.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "fsmove/base/spelling.h"

namespace fsmove::cli {

std::optional<std::string> UnknownCommandMessage(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string_view typed = argv[1];
  if (typed.empty() || typed.front() == '-') return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (command->get_name() == typed) return std::nullopt;
    names.push_back(command->get_name());
  }
  std::string message = fmt::format("fsmove: '{}' is not an fsmove command.", typed);
  if (std::optional<std::string> nearest = base::NearestName(typed, names)) {
    message += fmt::format(" Did you mean '{}'?", *nearest);
  }
  return message + "\nRun with --help for the commands.";
}

std::optional<std::string> UnexpectedOptionHint(const CLI::App& app) {
  for (const CLI::App* command : app.get_subcommands()) {  // the ones given
    std::vector<std::string> names;
    for (const CLI::Option* option : command->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    }
    for (const std::string& extra : command->remaining()) {
      if (!extra.starts_with("--")) continue;
      const std::string flag = extra.substr(0, extra.find('='));
      if (std::optional<std::string> nearest = base::NearestName(flag, names)) {
        return fmt::format("Did you mean '{}'? (fsmove {} --help lists the options)", *nearest,
                           command->get_name());
      }
    }
  }
  return std::nullopt;
}

}  // namespace fsmove::cli
