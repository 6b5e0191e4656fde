// The checks a patched manifest must pass besides the re-check, with the tools Puppet users
// run: `puppet parser validate` (it parses) and `puppet-lint` (it adds no warning the
// original did not have; counted per check, so that lines shifted by the fix do not matter).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace fsmove::fix {

// A program's exit code and what it printed (stdout and stderr together).
struct ProgramOutput {
  int exit_code = -1;
  std::string output;
};

// Runs `argv` (argv[0] looked up on PATH) with stdin from /dev/null. Unavailable when the
// program is not installed.
absl::StatusOr<ProgramOutput> RunProgram(const std::vector<std::string>& argv);

// `puppet parser validate FILE`: InvalidArgument with Puppet's message when it does not parse,
// Unavailable without puppet.
absl::Status ValidateManifest(const std::string& file);

// puppet-lint's problems in `file`, counted by check ("arrow_alignment": 2). Unavailable
// without puppet-lint.
absl::StatusOr<std::map<std::string, int>> LintCounts(const std::string& file);

// The checks `patched` has more problems of than `original`, as "arrow_alignment (1 more)";
// empty when none. Unavailable without puppet-lint.
absl::StatusOr<std::string> LintRegressions(const std::string& original,
                                            const std::string& patched);

}  // namespace fsmove::fix
