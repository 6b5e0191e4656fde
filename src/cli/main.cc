// fsmove: the command-line entry point. It only parses options and wires library stages.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.h"
#include "completions.h"
#include "fsmove/exec/sandbox.h"
#include "man_pages.h"
#include "spelling_hints.h"

namespace {

int Run(int argc, char** argv) {
  // The executor's sandbox keeper: `fsmove __sandbox SPEC STATUS_FD` (not for users).
  if (argc == 4 && std::string_view(argv[1]) == "__sandbox") {
    return fsmove::exec::SandboxMain(argv[2], std::atoi(argv[3]));
  }
  CLI::App app{
      "fsmove: finds missing ordering relationships and missing notifiers in Puppet code "
      "from strace traces of real runs"};
  app.set_version_flag("--version", std::string("fsmove ") + FSMOVE_VERSION);
  // Where the manual is. Set before the subcommands are made, which inherit it (scan and merge
  // replace it with their own).
  app.footer(
      "Documentation: man fsmove (fsmove-COMMAND for each command), and README.md and docs/ in "
      "fsmove's source");
  app.require_subcommand(1);
  auto analyze = fsmove::cli::RegisterAnalyze(app);
  auto trace = fsmove::cli::RegisterTrace(app);
  auto graph = fsmove::cli::RegisterGraph(app);
  auto check = fsmove::cli::RegisterCheck(app);
  auto scan = fsmove::cli::RegisterScan(app);
  auto merge = fsmove::cli::RegisterMerge(app);
  auto root = fsmove::cli::RegisterRoot(app);
  auto doctor = fsmove::cli::RegisterDoctor(app);
  auto man = fsmove::cli::RegisterBuildWriter(
      app, "man", "Write the manual pages (fsmove.1, fsmove-*.1) to DIR",
      fsmove::cli::WriteManPages);
  auto completions = fsmove::cli::RegisterBuildWriter(
      app, "completions", "Write the bash and zsh completions (fsmove, _fsmove) to DIR",
      fsmove::cli::WriteCompletions);
  if (std::optional<std::string> unknown = fsmove::cli::UnknownCommandMessage(app, argc, argv)) {
    std::cerr << *unknown << "\n";
    return fsmove::cli::kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    if (std::optional<std::string> hint = fsmove::cli::UnexpectedOptionHint(app)) {
      std::cerr << *hint << "\n";
    }
    return fsmove::cli::kExitError;
  }
  if (app.got_subcommand("analyze")) return analyze();
  if (app.got_subcommand("trace")) return trace();
  if (app.got_subcommand("graph")) return graph();
  if (app.got_subcommand("check")) return check();
  if (app.got_subcommand("scan")) return scan();
  if (app.got_subcommand("merge")) return merge();
  if (app.got_subcommand("root")) return root();
  if (app.got_subcommand("doctor")) return doctor();
  if (app.got_subcommand("man")) return man();
  if (app.got_subcommand("completions")) return completions();
  return fsmove::cli::kExitError;
}

}  // namespace

// Anything the commands did not turn into a message (they should): said, never an abort.
int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    fsmove::cli::Say({fsmove::check::Error(e.what())});
    return fsmove::cli::kExitError;
  }
}
