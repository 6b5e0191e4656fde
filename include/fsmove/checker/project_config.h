// A project's own settings, kept with its code in `.fsmove.json` (the module root for
// `fsmove check`, `--config FILE` for any command): paths and resources to ignore, pairs of
// resources whose findings are accepted with a written reason, and whether packages notify.
//
//   {
//     "ignore_paths": ["/var/cache/app/**"],             globs, as --ignore-path
//     "ignore_resources": ["Exec[apt-update]"],          references, as --ignore-resource
//     "ignore_pairs": [{"source": "Package[a]", "target": "Package[b]",
//                       "reason": "apt orders these itself",        required, not blank
//                       "rule": "missing-ordering"}],               optional: one rule only
//     "package_notify": true                              as --package-notify
//   }
//
// Every key is optional; unknown keys are errors (a misspelt "ignore_path" must not be
// silently ignored). Command-line options add to the file's.
//
// The checker's input: its ignores and package_notify go into the CheckOptions
// (ApplyProjectConfig) before the check; its ignore_pairs act on the findings after it
// (gating/suppressions.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"

namespace fsmove::checker {

inline constexpr std::string_view kProjectConfigName = ".fsmove.json";

// Findings between two resources accepted on purpose (e.g. commutative resources).
struct IgnoredPair {
  std::string source;  // references as written ("Type[title]")
  std::string target;
  std::string reason;
  std::optional<checker::FaultKind> rule;  // only this rule; both when absent
  std::string json_pointer;                // where it is, for warnings ("/ignore_pairs/2")
};

struct ProjectConfig {
  std::string source_name;  // the file it was read from; empty for no file
  std::vector<std::string> ignore_paths;
  std::vector<std::string> ignore_resources;
  std::vector<IgnoredPair> ignore_pairs;
  bool package_notify = false;
  // The OS root `--root auto` takes (a control repo has no metadata.json to ask for one):
  // a pinned root's name; empty: none set.
  std::string root;
};

// Parses and validates a configuration document. Errors name the source and the JSON
// pointer ("proj/.fsmove.json: /ignore_pairs/0/reason: must not be empty").
absl::StatusOr<ProjectConfig> ParseProjectConfig(std::string_view text,
                                                 std::string_view source_name);
absl::StatusOr<ProjectConfig> LoadProjectConfigFile(const std::string& path);

// `<dir>/.fsmove.json` when it exists, an empty configuration (no source_name) when it
// does not; a file that exists but cannot be read or is invalid is an error. This is what
// `fsmove check` calls with the module root.
absl::StatusOr<ProjectConfig> LoadProjectConfig(const std::string& dir);

// Adds the configuration's ignores and package_notify to `options` (the command line's stay).
// A configuration covers every manifest of a project and a catalog holds only one, so
// ignore_resources the catalog does not have are skipped, each with a warning (returned);
// the command line's --ignore-resource still must exist.
std::vector<std::string> ApplyProjectConfig(const ProjectConfig& config,
                                            const catalog::Catalog& catalog,
                                            checker::CheckOptions* options);

}  // namespace fsmove::checker
