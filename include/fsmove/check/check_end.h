// What a check's run means once Puppet is done, decided without printing: whether its work
// directory stays, what the idempotence apply showed, and how the check ends — with no report
// (Puppet could not compile, the sandbox could not be made, ...) or after it, with which exit
// code and what to tell the user. `fsmove check` prints the diagnostics and exits with the
// code; tests build a RunResult and read the decisions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fsmove/base/diagnostic.h"
#include "fsmove/exec/executor.h"

namespace fsmove::check {

// The check layer says what it decides in base's diagnostics and ends with base's exit codes
// (base/diagnostic.h), named here as the check's own.
using base::Diagnostic;
using base::Error;
using base::ExitForSignal;
using base::Format;
using base::Info;
using base::kExitError;
using base::kExitFindings;
using base::kExitIncomplete;
using base::kExitOk;
using base::Note;
using base::Warning;

// The work directory: kept when asked (--keep-work) or when the run went wrong (Puppet's log
// and the sandbox's files are what a user looks at next) unless the caller discards it (a
// scan keeps what matters in the module's folder); `named` when kept and the run never got to
// a report, so the message names it.
struct WorkPolicy {
  bool keep = false;
  bool named = false;
};
WorkPolicy DecideWorkDirectory(const exec::RunResult& run, bool keep_work, bool discard_work);

// --idempotence: fills run->summary.idempotence from the applies after the first (which
// resources changed or failed again); a warning when the apply ran once only.
std::vector<Diagnostic> SummarizeIdempotence(exec::RunResult* run);

// How a run ends before any report: the exit code and what to say when there is nothing to
// report on (interrupted, setup failed, compile failed, timed out before the apply); nullopt
// when the findings are to be reported. `work_dir_kept`: the work directory stays (its path is
// then named). `puppet_version`: the root's, for the hint on Puppet 8's legacy facts.
struct End {
  int exit_code = kExitOk;
  std::vector<Diagnostic> say;
};
std::optional<End> EndBeforeReport(const exec::RunResult& run, bool work_dir_kept,
                                   int timeout_seconds, const std::string& puppet_version);

// The failed Services of a run without systemd as PID 1 that Puppet found no init script for
// (Debian packages more and more ship a systemd unit only): with `--init systemd` they would
// start. Empty when the run booted systemd, or no Service failed so.
std::vector<std::string> ServicesWantingSystemd(const base::RunSummary& summary);

// How a run ends after its report, whose own status is `report_status` (0, 1, 3 or an error):
// a run that did not finish (timed out, trace cut short, Puppet killed) is an error whatever
// the report found; failed resources and an incomplete check are said. `limit_hit`: a limit of
// fsmove's own was reached (the report and its warnings say which), which alone makes it
// incomplete.
End EndAfterReport(const exec::RunResult& run, int report_status, int timeout_seconds,
                   bool limit_hit = false);

}  // namespace fsmove::check
