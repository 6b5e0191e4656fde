// How the supervisor runs programs in its sandbox and keeps what they print: each starts in
// the sandbox's root, at /, with Puppet's environment and (in the overlay sandbox) the module's
// capabilities only; its output goes through a socket into the out directory (output_drain.h);
// orphans are reaped while it runs, and strace's own end is remembered. Also the supervisor's
// files: the sandbox's work directory (Inside) and the out directory (CopyOut, WriteOut,
// OpenOut, ReadOut), which code in the sandbox never holds.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/exec/output_drain.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/sandbox.h"
#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

// Copies what `in` has left into `out`, `max` bytes at most (a read stops at the chunk that
// reaches it); false when a write fell short.
bool CopyBounded(int in, int out, size_t max);

class SandboxRunner {
 public:
  // Before the pivot: the host's root, the work directory's in/ (InsideWorkDir).
  SandboxRunner(const SandboxSpec& spec, int out_dir, StatusWriter status);

  // The supervisor pivoted into the sandbox: its root is /, its work directory kSandboxWorkDir.
  void Pivoted();

  // A file of the sandbox's own work directory (kSandboxWorkDir once pivoted; without the
  // sandbox, the host work directory's in/): what Puppet reads and writes.
  std::string Inside(const std::string& name) const { return io_dir_ + "/" + name; }
  // The sandbox's root as this process sees it ("/" once pivoted).
  const std::string& root() const { return root_; }

  // Copies the sandbox's file `name` (a log) to the out directory, as an untrusted file: no
  // link followed, only a regular file, at most kMaxOutBytes.
  void CopyOut(const std::string& name, const std::string& out_name = "") const;
  // Writes `text` to the out directory's `name`.
  void WriteOut(const std::string& name, std::string_view text) const;
  // A file of the out directory for a drain to fill: appended to, or emptied first.
  // Without an out directory (never in a check), the sandbox's own file of that name.
  int OpenOut(const std::string& name, bool append) const;
  // The out directory's file `name`, as an untrusted file (see OpenOut).
  absl::StatusOr<std::string> ReadOut(const std::string& name, size_t max_bytes) const;
  // Removes the out directory's file `name` (see OpenOut).
  void RemoveOut(const std::string& name) const;
  // ReadOut, then RemoveOut: a command's output taken once ("" when it could not be read).
  std::string TakeOut(const std::string& name, size_t max_bytes) const;

  // How everything the sandbox runs starts: in its root, at /, with Puppet's environment.
  // Module code in the sandbox keeps ModuleCapabilities only.
  SpawnOptions InSandbox(int out_fd, int err_fd) const;
  // Runs argv to its end (inside the sandbox's root), reaping every orphan meanwhile.
  int RunToEnd(const std::vector<std::string>& argv, int out_fd, int err_fd);
  // Runs argv to its end like RunToEnd, its stdout and stderr drained (either may be null):
  // its wait status, or none when it could not start (said in a note).
  std::optional<int> RunDrained(const std::vector<std::string>& argv, OutputDrain* out,
                                OutputDrain* err, const std::string& what);
  // A program's output through a socket into the out directory's `name` (output_drain.h):
  // module code can neither reopen nor truncate it. Null when no socket could be made (the
  // output is then lost, and said).
  std::unique_ptr<OutputDrain> DrainInto(const std::string& name, bool append, uint64_t max_bytes);

  // For a program started otherwise (the traced apply): its output drains while the runner
  // waits or pauses, until FinishDrains.
  void Draining(std::vector<OutputDrain*> drains) { draining_ = std::move(drains); }
  // Waits for `pid`; other children (orphans reparented to us) are reaped on the way, and
  // strace's own end is remembered.
  int WaitReaping(pid_t pid);
  // Lets `ms` pass, copying the output being drained meanwhile.
  void Pause(std::chrono::milliseconds ms);
  // The drains' programs have ended: what is left is copied, and a cut is said.
  void FinishDrains(const std::string& what);
  // Reaps the children that have ended, without waiting.
  void ReapAvailable();

  // strace, once found: its end is remembered when it is reaped.
  void WatchStrace(pid_t pid) { strace_pid_ = pid; }
  pid_t strace_pid() const { return strace_pid_; }
  bool strace_reaped() const { return strace_reaped_; }
  int strace_status() const { return strace_status_; }

 private:
  bool AnyDrainOpen() const;
  void Reaped(pid_t pid, int status);

  const SandboxSpec& spec_;
  int out_dir_;
  StatusWriter status_;
  std::string io_dir_;
  std::string root_ = "/";
  std::vector<OutputDrain*> draining_;  // the output drains of the program being waited for
  pid_t strace_pid_ = 0;
  bool strace_reaped_ = false;
  int strace_status_ = 0;
};

}  // namespace fsmove::exec
