// The subcommands of the fsmove executable; each registers its options on the CLI11 app and
// runs through the library. Exit codes: 0 nothing found, 1 findings, 2 usage or input error.
#pragma once

#include <fstream>
#include <functional>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"

namespace fsmove::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

// Where a report goes: `path` opened in `file`, or standard output when `path` is empty.
// Null (after printing an error) when the file cannot be written.
inline std::ostream* OpenOutput(const std::string& path, std::ofstream* file) {
  if (path.empty()) return &std::cout;
  file->open(path);
  if (!*file) {
    std::cerr << "fsmove: error: cannot write " << path << "\n";
    return nullptr;
  }
  return file;
}

// Each returns the function to run when its subcommand was chosen.
std::function<int()> RegisterAnalyze(CLI::App& app);
std::function<int()> RegisterTrace(CLI::App& app);
std::function<int()> RegisterGraph(CLI::App& app);
std::function<int()> RegisterCheck(CLI::App& app);
std::function<int()> RegisterScan(CLI::App& app);
std::function<int()> RegisterMerge(CLI::App& app);

}  // namespace fsmove::cli
