// The supervisor of one sandbox: PID 1 of its namespaces (or, with --sandbox none, a child
// subreaper on the host). It lays out the sandbox's file systems over the OS root, pivots
// into them, locks itself down (no_new_privs, seccomp), and runs one phase of the check:
// the compile, or the apply under strace with what follows it (replays' restores, the
// idempotence applies, probes). Each step goes to the status pipe; files go to the out
// directory through a descriptor code in the sandbox never holds.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fsmove/exec/capabilities.h"
#include "fsmove/exec/process_tree.h"
#include "fsmove/exec/sandbox.h"
#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

enum class SupervisorPhase {
  kCompile,  // the compile sandbox: `puppet catalog find`, the catalog to the out directory
  kApply,    // the apply sandbox: the catalog the compile sandbox (or a replay) left
  kBoth,     // --sandbox none: both, one after the other, on the host
};

// Whether the sandbox of `phase` boots systemd as its PID 1 (--init systemd): the apply's,
// and the compile's too, so that the catalog is compiled on the system it is applied on:
// Facter's facts, Puppet's default providers (the systemd service provider is confined to a
// PID 1 named systemd) and compile-time functions see systemd as PID 1, as the apply does.
// (--sandbox none, kBoth, runs on the host, where --init systemd is refused.)
inline bool BootsSystemd(const SandboxSpec& spec, SupervisorPhase phase) {
  return spec.init == "systemd" && phase != SupervisorPhase::kBoth;
}

// Descriptors the keeper opened for the supervisor as the host user, before the sandbox's
// user namespace made the host's paths unreachable (all close-on-exec; -1: none).
struct SupervisorFds {
  int status = -1;   // the status pipe
  int done = -1;     // --init systemd: the supervisor's exit code goes here (one byte)
  int in_dir = -1;   // the work directory's in/ (manifest, module links, a replay's catalog)
  int out_dir = -1;  // the work directory's out/ (kOutDir)
  int lower = -1;    // O_PATH: the overlay's lower layer (the OS root, idmapped if need be)
  // The keeper's overlay (overlay_mount.h), when the keeper mounted it: O_PATH of the merged
  // tree, which becomes the sandbox's root, and of its upper layer (for --keep-sandbox).
  int merged = -1;
  int upper = -1;
  int trace_fifo = -1;                              // O_PATH: the trace FIFO strace writes into
  int keep_dir = -1;                                // O_PATH: --keep-sandbox's directory
  std::vector<std::pair<std::string, int>> inputs;  // O_PATH: module directories, manifests
};

int RunSupervisor(SandboxSpec spec, SupervisorPhase phase, SupervisorFds fds);

}  // namespace fsmove::exec
