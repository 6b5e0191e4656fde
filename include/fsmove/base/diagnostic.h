// What fsmove tells its user, from any layer, and how a command ends. Every layer says what it
// has to say as Diagnostics, to a DiagnosticSink its caller gives it (or returns them, when it
// decides without printing); only the command line prints them (Format), on stderr. Beside
// them, the one table of exit codes every command returns (docs/check.md: "Exit codes").
#pragma once

#include <functional>
#include <string>

namespace fsmove::base {

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

// Where a layer's diagnostics go; unset: nowhere.
using DiagnosticSink = std::function<void(const Diagnostic&)>;

}  // namespace fsmove::base
