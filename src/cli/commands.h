// The subcommands of the fsmove executable; each registers its options on the CLI11 app and
// runs through the library. Exit codes: 0 nothing found, 1 findings, 2 usage or input error.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"

namespace fsmove::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

// The OS root `check` and `scan` run Puppet on unless --root says otherwise (see README:
// "OS roots").
inline constexpr std::string_view kDefaultRoot = "debian-12";
// "host, debian-12, debian-13": the values --root takes by name.
std::string RootNames();

// Where a report goes: `path` opened in `file`, or standard output when `path` is empty.
// Null (after printing an error) when the file cannot be written.
// An output the user named. Never written through a symbolic link: run as root, a link
// planted where a report goes (/tmp/report -> /etc/passwd) would otherwise be followed.
inline std::ostream* OpenOutput(const std::string& path, std::ofstream* file) {
  if (path.empty()) return &std::cout;
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::cerr << "fsmove: error: " << path
              << " is a symbolic link; fsmove does not write through one (name its target)\n";
    return nullptr;
  }
  file->open(path);
  if (!*file) {
    std::cerr << "fsmove: error: cannot write " << path << ": " << std::strerror(errno) << "\n";
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
std::function<int()> RegisterRoot(CLI::App& app);

}  // namespace fsmove::cli
