// The sandbox's file systems: what its PID 1 lays out in its own mount namespace before
// anything of the module runs, then pivots into.
//
//   the OS root     an overlay: the keeper's (overlay_mount.h), bound, or one mounted here
//                   over a tmpfs of its own; its lower layer held by a descriptor
//   /proc, /sys     fresh, for the sandbox's PID and network namespaces; /sys read-only, and
//                   the kernel's knobs under /proc read-only
//   /run, /tmp      tmpfs, sized; the memory limit covers their pages
//   /dev            a tmpfs with the harmless devices bound from the host, its own devpts;
//                   under --init systemd a console, a pseudo-terminal of that devpts whose
//                   master the layout keeps (console_master): systemd as PID 1 writes its
//                   log to /dev/console alone, and container runtimes give it one the same way
//   inputs          the module directories and manifests, bound read-only from descriptors;
//                   each modulepath directory is a read-only tmpfs with only its modules
//                   bound in it (a link's at its name: target.h's input_at)
//   /run/fsmove     the sandbox's work directory (kSandboxWorkDir): the manifest and module
//                   links copied in, Puppet's graph directory, the trace FIFO for strace
// The scratch directory (the host's /tmp, covered by a tmpfs in this mount namespace only)
// holds the layers and mount points; after Pivot() nothing of the host's file tree is
// reachable.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "fsmove/exec/sandbox.h"
#include "fsmove/exec/status_message.h"
#include "fsmove/exec/supervisor.h"

namespace fsmove::exec {

class SandboxLayout {
 public:
  // `fds` and `status` must outlive the layout; `scratch` is covered by a tmpfs.
  SandboxLayout(const SandboxSpec& spec, SupervisorPhase phase, const SupervisorFds& fds,
                const StatusWriter& status, std::string scratch = "/tmp")
      : spec_(spec), phase_(phase), fds_(fds), status_(status), ws_(std::move(scratch)) {}

  // Lays the file systems out under root() (SCRATCH/merged).
  absl::Status Build();
  // Makes root() the namespace's root and detaches the old one; root() is "/" after.
  absl::Status Pivot();
  const std::string& root() const { return root_; }
  // Under --init systemd: the master of the sandbox's /dev/console (taken by the caller), or
  // -1 when none could be made (said as a note; systemd then logs nowhere).
  int TakeConsoleMaster() {
    const int fd = console_master_;
    console_master_ = -1;
    return fd;
  }
  ~SandboxLayout();
  SandboxLayout(const SandboxLayout&) = delete;
  SandboxLayout& operator=(const SandboxLayout&) = delete;

 private:
  absl::Status MountOwnOverlay();
  absl::Status SetUpWorkDir();
  absl::Status SetUpDevices();
  absl::Status SetUpNames();
  absl::Status SetPolicyRc();
  absl::Status MountForSystemd(const std::string& owner);
  absl::Status MakeConsole();

  const SandboxSpec& spec_;
  SupervisorPhase phase_;
  const SupervisorFds& fds_;
  const StatusWriter& status_;
  std::string ws_;
  std::string root_;
  int console_master_ = -1;
};

// The sandbox's /etc/hosts: the root's `hosts`, and when no line of it names `hostname` (the
// sandbox's host name, the machine's), a line mapping it (and its short name) to 127.0.1.1, as
// Debian's installer writes it: programs that resolve their own host name at start (Erlang's
// distribution, a mail server's HELO, Java's InetAddress.getLocalHost) find it, as on the
// machine the module is for, without the network.
std::string HostsWithOwnName(std::string_view hosts, std::string_view hostname);

// A host name with a domain, as Facter finds one on a configured machine: `name` when it has a
// dot; else the first name of a line of the machine's `hosts` that names `name` as an alias
// ("127.0.1.1 web1.example.org web1"); else `name` in the `domain` (or first `search` domain) of
// its `resolv` (resolv.conf); else `name`.localdomain. Mail servers (amavisd, sendmail, exim)
// refuse to start under a host name without one, and modules put `networking.domain` and `fqdn`
// in configuration: the sandbox's name has one whatever the machine is called.
std::string QualifiedHostName(std::string_view name, std::string_view hosts,
                              std::string_view resolv);

// Writes `text` to `path` with `mode` (created or truncated).
absl::Status WriteFileWithMode(const std::string& path, std::string_view text, mode_t mode);

}  // namespace fsmove::exec
