// The subcommands of the fsmove executable; each registers its options on the CLI11 app and
// runs through the library. Exit codes: 0 nothing found, 1 findings, 2 usage or input error,
// 3 the check saw only part of the apply.
#pragma once

#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/check/check_end.h"
#include "fsmove/check/check_run.h"
#include "fsmove/exec/os_root.h"

namespace fsmove::cli {

// How a command ends, and its exit code: the one table is check/check_end.h.
using check::ExitForSignal;
using check::kExitError;
using check::kExitFindings;
using check::kExitIncomplete;
using check::kExitOk;

// Prints each diagnostic on standard error, a line each ("fsmove: error: ..."), escaped for
// the terminal: a title, path or message from the sandbox inside it cannot move the cursor,
// clear the screen or reverse the text (base::TerminalSafeLines; its line breaks are kept).
inline void Say(const std::vector<check::Diagnostic>& diagnostics) {
  for (const check::Diagnostic& d : diagnostics) {
    std::cerr << base::TerminalSafeLines(check::Format(d)) << "\n";
  }
}

// The check library's sink on the terminal: diagnostics through Say, reports on standard output.
class TerminalSink : public check::Sink {
 public:
  using check::Sink::Say;
  void Say(const check::Diagnostic& d) override { cli::Say({d}); }
  std::ostream& out() override { return std::cout; }
};

// Prints what building an OS root says (exec::RootBuildOptions::say) the same way.
inline void SayRootBuild(const base::Diagnostic& d) { Say({d}); }

// Prints "fsmove: error: MESSAGE".
inline void SayError(const absl::Status& status) {
  Say({check::Error(std::string(status.message()))});
}

// Prints "fsmove: error: MESSAGE" and returns kExitError.
inline int Fail(const absl::Status& status) {
  SayError(status);
  return kExitError;
}

// The OS root `check` and `scan` run Puppet on unless --root says otherwise.
using check::kAutoInit;
using check::kAutoRoot;
using check::kDefaultRoot;
// "host, debian-12, debian-13": the values --root takes by name.
std::string RootNames();

// Where a report goes: standard output when the path is empty, else a file written whole
// (base::ReportDestination), with its errors printed.
class ReportOutput {
 public:
  // Null (after printing the error) when the file cannot be written.
  std::ostream* Open(const std::string& path) {
    if (absl::Status st = dest_.Open(path, &std::cout); !st.ok()) {
      SayError(st);
      return nullptr;
    }
    return &dest_.stream();
  }
  // Puts the file in place (flushes standard output); false after printing the error.
  bool Close() {
    absl::Status st = dest_.Close();
    if (!st.ok()) SayError(st);
    return st.ok();
  }

 private:
  base::ReportDestination dest_;
};

// Each returns the function to run when its subcommand was chosen.
std::function<int()> RegisterAnalyze(CLI::App& app);
std::function<int()> RegisterTrace(CLI::App& app);
std::function<int()> RegisterGraph(CLI::App& app);
std::function<int()> RegisterCheck(CLI::App& app);
std::function<int()> RegisterScan(CLI::App& app);
std::function<int()> RegisterMerge(CLI::App& app);
std::function<int()> RegisterRoot(CLI::App& app);
std::function<int()> RegisterDoctor(CLI::App& app);
// A hidden subcommand for the build: `fsmove NAME DIR` writes files made from the app's own
// definitions into DIR (made if needed) with `write` (`man`: the manual pages, man_pages.h;
// `completions`: the bash and zsh completions, completions.h).
std::function<int()> RegisterBuildWriter(CLI::App& app, const std::string& name,
                                         const std::string& description,
                                         absl::Status (*write)(const CLI::App&,
                                                               const std::string&));

}  // namespace fsmove::cli
