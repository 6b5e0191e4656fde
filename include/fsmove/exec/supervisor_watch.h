// The executor's side of a run: starts the sandbox keeper (`fsmove __sandbox SPEC FD`, a
// fresh process in its own session that dies with us), reads the supervisor's status
// messages as they come, and ends the run on --timeout or a signal (SIGINT, SIGTERM, SIGHUP).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/base/host_budget.h"
#include "fsmove/base/progress_line.h"
#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

// What the supervisor said on the status pipe, and how the run ended for us.
struct SupervisorReport {
  std::string phase;                                    // the last phase it entered
  std::chrono::steady_clock::time_point phase_started;  // when it entered it
  bool compiled = false;
  int compile_code = -1;
  double compile_seconds = 0;
  bool applied = false;
  int apply_code = -1;
  double apply_seconds = 0;  // also of an apply ended by --timeout or a signal: until then
  std::string strace_end;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;  // facts that may decide the result (also in notes)
  std::vector<std::string> limits;    // limits the sandbox hit (also in notes)
  std::vector<std::string> errors;
  std::string catalog_text;  // taken as soon as it was compiled
  // The largest catalog taken (the host's budget); a larger one is left unread and said here.
  uint64_t max_catalog_bytes = base::kDefaultMaxCatalogBytes;
  std::optional<base::BudgetHit> catalog_limit_hit;
  std::vector<status::Reapplied> reapplies;
  std::vector<PathState> probes;
  std::vector<Daemon> daemons;
  std::vector<Observation> observed;
  std::vector<status::Skipped> skipped;  // --init systemd: units whose start condition failed

  bool timed_out = false;
  int interrupted_by = 0;  // the signal that ended the run
  int keeper_status = 0;   // the keeper's wait status

  // Takes one message in (a phase is also shown on `progress`; `work_fd` is the work
  // directory, from which a compiled catalog is taken at once).
  void Take(const StatusMessage& message, base::ProgressLine& progress, int work_fd);
};

struct SupervisorWatchOptions {
  std::string spec_path;  // the SandboxSpec file
  int timeout_seconds = 1800;
  int work_fd = -1;  // the work directory (O_PATH)
  // The sandbox's cgroup (empty: none) and whether systemd ran in it: a keeper killed on
  // --timeout could not remove them.
  std::string cgroup_name;
  bool systemd = false;
  base::ProgressLine* progress = nullptr;
  // The largest compiled catalog taken in (--max-catalog-bytes).
  uint64_t max_catalog_bytes = base::kDefaultMaxCatalogBytes;
  // Called on the watching thread once the keeper has been reaped.
  std::function<void()> on_end;
};

class SupervisorWatch {
 public:
  // Starts the keeper and the thread that watches it.
  static absl::StatusOr<std::unique_ptr<SupervisorWatch>> Start(SupervisorWatchOptions options);
  ~SupervisorWatch();
  // Waits for the keeper's end; the report is complete after this.
  SupervisorReport& Join();

 private:
  explicit SupervisorWatch(SupervisorWatchOptions options);
  void Watch(int status_fd, int keeper);

  SupervisorWatchOptions options_;
  class SignalScope;
  std::unique_ptr<SignalScope> signals_;
  SupervisorReport report_;
  std::thread thread_;
};

}  // namespace fsmove::exec
