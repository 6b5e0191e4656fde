// Runs `fsmove check` on each module of a batch scan as a child process of this same binary
// (argv entries, never a shell), N at a time, each writing into its own folder of the results
// directory; a crash, hang or failure of one check is recorded and the scan goes on.
#pragma once

#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/scan/module_result.h"

namespace fsmove::scan {

struct ScanOptions {
  std::vector<std::string> modules;  // identities, in the order to run them
  std::string out_dir;
  int jobs = 1;
  int timeout_seconds = 1800;    // passed to check (--timeout)
  int kill_after_seconds = 300;  // check is killed this long after --timeout
  // How many --timeout periods one check may take: 2 with --confirm (the run, then its
  // replays, which share one more --timeout).
  int timeout_periods = 1;
  bool force = false;  // redo modules that have a valid status.json
  bool save_traces = false;
  // --modulepath of every check, in order; also where the scan looks for a compile's missing
  // dependencies (missing-dependency).
  std::vector<std::string> modulepath;
  // --module-source of every check (exec/module_sources.h): where the dependencies no
  // modulepath directory holds come from, before Debian's packages.
  std::vector<std::string> module_sources;
  std::vector<std::string> check_options;  // passed to every check (--package-notify ...)
  std::string fsmove_binary = "/proc/self/exe";
  // Each check's --work-dir is made under here and removed when it ends (what is worth
  // keeping is in the module's folder); empty: a fresh fsmove-scan.XXXXXX in $TMPDIR or /tmp.
  std::string work_parent;
  bool progress = false;  // a live line on stderr
};

struct ScanOutcome {
  std::vector<ModuleResult> results;  // finished modules (skipped ones included)
  size_t skipped = 0;                 // valid status.json found
  size_t redone = 0;                  // folder present but unfinished or corrupt
  int signal = 0;                     // interrupted by this signal: unfinished modules left
  std::vector<std::string> notes;     // "redoing X: reason"
};

// The argv of the check of `module` writing into `dir` (tested: this is the whole contract
// between scan and check); `systemd`: with systemd as the sandbox's PID 1 (RedoUnderSystemd).
std::vector<std::string> CheckArguments(const ScanOptions& options, const std::string& module,
                                        const std::string& dir, const std::string& work_dir,
                                        bool systemd = false);

// A check whose only failures were Services with no init script, in a sandbox whose PID 1 is
// not systemd (a package that ships a systemd unit only), applies cleanly under `--init
// systemd`: the scan runs it again so, once, when the scan's options choose no init system.
// Returns those Services (empty: no second run).
std::vector<std::string> RedoUnderSystemd(const ScanOptions& options, const CheckOutcome& outcome);

// `stop` is polled: when it becomes non-zero (a signal number) the running checks get SIGTERM,
// are waited for, and left unfinished (no status.json) for the next run.
absl::StatusOr<ScanOutcome> RunScan(const ScanOptions& options,
                                    const volatile std::sig_atomic_t* stop);

}  // namespace fsmove::scan
