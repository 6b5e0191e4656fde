// The catalog a supervisor applies: compiled in its sandbox (`puppet catalog find`), or given
// (the one the compile sandbox left, a replay's), prepared for (the root's apt caches) and
// copied for Puppet to apply, its puppet:/// sources served from the modulepath.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fsmove/exec/sandbox.h"
#include "fsmove/exec/sandbox_runner.h"
#include "fsmove/exec/status_message.h"
#include "fsmove/exec/supervisor.h"

namespace fsmove::exec {

class SupervisorCatalog {
 public:
  SupervisorCatalog(const SandboxSpec& spec, SupervisorPhase phase, const SupervisorFds& fds,
                    SandboxRunner& run, StatusWriter status)
      : spec_(spec), phase_(phase), fds_(fds), run_(run), status_(status) {}

  // `puppet catalog find`: the catalog's JSON (empty when there is none), its exit code and
  // time. Its stdout and stderr are drained into the out directory (output_drain.h); log
  // lines Puppet prints before the JSON document go to the log `log_name` too (appended).
  struct Compiled {
    int code = 1;
    double seconds = 0;
    std::string json;
  };
  Compiled Run(const std::string& log_name, bool append);

  // The compile phase's catalog, compiled (said as the "compile" phase and `Compiled`), kept
  // and written to the out directory: whether it compiled.
  bool Compile();
  // The apply sandbox's catalog: the one the compile sandbox left in the out directory, or a
  // replay's, which the executor put in the in directory (said like a compiled one).
  bool LoadGiven();
  // A later apply's catalog (compiled again, or a replay's second one).
  void Replace(std::string text) { text_ = std::move(text); }

  // Before the traced apply, untraced: apt's caches built and its package lists fetched if the
  // catalog has packages, man-db's trigger off (each would put hundreds of MB into the trace),
  // and the packages the catalog installs that the root already has removed
  // (RemovePreinstalled).
  void PrepareApply();

  // Puppet applies its own copy of the catalog (the executor took the compiled one), written
  // to the work directory, and `apply_argv` names it. `puppet apply --catalog` cannot serve
  // puppet:///modules/ sources (its environment is a remote one): in the copy they name the
  // modules' files (see local_sources.h).
  void WriteApplyCopy(std::vector<std::string>* apply_argv) const;

 private:
  void NotePackages();
  // The catalog's packages the root has (preinstalled_packages.h), with the dependencies only
  // they need: downloaded into apt's cache, then purged, so that Puppet installs them under the
  // trace. Nothing is removed unless all of them downloaded and apt would remove no other package.
  // `run` runs a command with its output into the out directory's file of that name (empty:
  // the prep's log) and returns its wait status.
  using PrepRun = std::function<int(const std::vector<std::string>&, const std::string&)>;
  void RemovePreinstalled(const PrepRun& run);

  const SandboxSpec& spec_;
  SupervisorPhase phase_;
  const SupervisorFds& fds_;
  SandboxRunner& run_;
  StatusWriter status_;
  std::string text_;  // as compiled; Puppet applies a copy
  bool has_packages_ = false;
};

}  // namespace fsmove::exec
