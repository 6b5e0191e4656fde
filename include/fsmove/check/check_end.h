// What a check's run means once Puppet is done, decided without printing: whether its work
// directory stays, what the idempotence apply showed, and how the check ends — with no report
// (Puppet could not compile, the sandbox could not be made, ...) or after it, with which exit
// code and what to tell the user. `fsmove check` prints the diagnostics and exits with the
// code; tests build a RunResult and read the decisions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fsmove/exec/executor.h"

namespace fsmove::check {

// How a command ends, and its exit code (docs/check.md: "Exit codes"). The one table: every
// command returns one of these.
inline constexpr int kExitOk = 0;        // nothing found (or only suppressed findings)
inline constexpr int kExitFindings = 1;  // findings (scan, merge: some module not ok)
inline constexpr int kExitError = 2;     // usage or input error, a run that failed
// check, analyze: Puppet did not apply the whole catalog (resources failed, were skipped or
// never evaluated; its apply failed), so the check saw only part of it, with or without
// findings (the report says both). --allow-failed: 0 or 1 on the findings alone.
inline constexpr int kExitIncomplete = 3;
// Stopped by SIGINT, SIGTERM or SIGHUP (check, scan): 128 + the signal, as a shell reports a
// process the signal killed (130 for Ctrl-C).
inline constexpr int ExitForSignal(int signal) { return 128 + signal; }

// One thing to tell the user: "fsmove: error: TEXT" (kInfo: "fsmove: TEXT", what a command
// did or is doing, e.g. "fsmove: scanning 3 modules ..."; kPlain: TEXT as it is, e.g. Puppet's
// log after the line that introduces it).
struct Diagnostic {
  enum class Severity { kError, kWarning, kNote, kInfo, kPlain };
  Severity severity = Severity::kNote;
  std::string text;
  bool operator==(const Diagnostic&) const = default;
};
Diagnostic Error(std::string text);
Diagnostic Warning(std::string text);
Diagnostic Note(std::string text);
Diagnostic Info(std::string text);
// "fsmove: error: TEXT", "fsmove: warning: TEXT", "fsmove: note: TEXT", "fsmove: TEXT",
// "TEXT"; no newline.
std::string Format(const Diagnostic& d);

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
