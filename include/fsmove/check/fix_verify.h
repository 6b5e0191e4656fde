// --fix-diff and --fix in `fsmove check`: the verifier, which re-runs the check on a patched
// copy of the code in a fresh sandbox (the code's scope: fix_scope.h).
#pragma once

#include <string>
#include <vector>

#include "fsmove/exec/check_request.h"
#include "fsmove/exec/target.h"
#include "fsmove/pipeline/check_and_report.h"

namespace fsmove::check {

struct FixVerifyInputs {
  exec::CheckRequest request;  // the check's own (a copy: targets are changed)
  exec::ResolvedTarget target;
  bool full_trace = false;
  pipeline::ReportSettings settings;
  pipeline::ProjectInputs project;
  // Puppet's failed resources in the check's own run: the re-check may fail them again.
  std::vector<std::string> failed_before;
  // Set to the signal (Ctrl-C, SIGTERM, SIGHUP) that interrupted a re-check or a replay: no
  // more are started, and the patches not verified say so. Not set: nothing interrupted.
  int* interrupted_by = nullptr;
};

// Re-checks the patched code: all planned patches together, then (if that fails) each on its
// own, up to a bound; sets each patch's verdict. An interrupted re-check ends the verification
// (inputs.interrupted_by).
pipeline::VerifyFixes MakeFixVerifier(const FixVerifyInputs& inputs);

}  // namespace fsmove::check
