// Which modules a batch scan covers: paths given on the command line, read from a list file
// or found in a directory of modules, normalised, de-duplicated and sorted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::scan {

// A module's identity in a scan: the path as given, lexically normalised ("./a/b/" -> "a/b").
// Two spellings of one path are one module; the identity is what summaries and shards use.
std::string NormalizeModulePath(std::string_view path);

// The module paths of a list file: one per line, blank lines and `#` comments ignored,
// surrounding spaces trimmed. Relative paths are relative to the current directory.
absl::StatusOr<std::vector<std::string>> ReadModuleList(const std::string& list_file);

// Every subdirectory of `dir` holding manifests/init.pp, as `dir/NAME`.
absl::StatusOr<std::vector<std::string>> DiscoverModules(const std::string& dir);

// Normalises, sorts and removes duplicates: the order the modules were given in never matters.
std::vector<std::string> CanonicalModuleList(std::vector<std::string> modules);

// The name of a module's folder in the results directory: its base name made file-system safe
// ([A-Za-z0-9._-], others as '_') and an 8-hex-digit hash of its identity, so that two modules
// with the same base name (vendor/a/nginx, other/nginx) never share a folder.
std::string ModuleDirName(std::string_view module);

}  // namespace fsmove::scan
