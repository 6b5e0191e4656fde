// What a replay of missing notifiers observes of the services in the sandbox, before and after
// it refreshes them: each process (its command line) and each listening socket. A restart
// that changes neither shows nothing of the files the restart re-read; one that changes
// something shows what the daemon that was not refreshed still did the old way.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

// The listening sockets in /proc/net's tables (the text of tcp, tcp6, udp, udp6 and unix),
// one "tcp 127.0.0.1:11211", "tcp6 [::1]:22", "udp 0.0.0.0:161" or "unix /run/x.sock" each,
// sorted and unique. TCP sockets in LISTEN; UDP sockets bound to a port; Unix sockets that
// accept connections and have a path (abstract names start with '@').
std::vector<std::string> ListeningSockets(std::string_view tcp, std::string_view tcp6,
                                          std::string_view udp, std::string_view udp6,
                                          std::string_view unix_sockets);

// /proc/PID/cmdline's bytes as one line: NULs become spaces, trailing ones dropped.
std::string CommandLine(std::string_view cmdline);

// A file a process holds that is no longer at its name: /proc/PID/fd's link or a line of
// /proc/PID/maps ending " (deleted)", for a path of the file tree (not a socket, a pipe, a
// memfd). Puppet replaces a file it changes by renaming a new one over it, so a daemon that
// opened the old file and keeps it (a table read per lookup, a database, its own mapped
// program) still reads the old content: the path, its newlines made spaces; else nullopt.
std::optional<std::string> ReplacedFile(std::string_view link);

// What one process holds (ObserveSandbox): its replaced files (ReplacedFile, sorted, at most
// kMaxReplacedPerProcess), none whose shown name (" (deleted)" and all) is a file's: module code
// can name a live file so to forge a stale daemon; whether it watches files with inotify (it
// may open a changed file again); and the files it holds open for writing (`written`,
// WrittenFile: sorted, at most kMaxReplacedPerProcess), its logs and databases: where a
// configuration sends a daemon's output.
struct HeldFiles {
  std::vector<std::string> replaced;
  bool watches = false;
  std::vector<std::string> written;
};
HeldFiles ObserveHeldFiles(const std::string& proc_dir, pid_t pid);

// A file of a temporary directory (/tmp, /var/tmp, /run, /dev/shm): databases keep theirs
// unlinked, so one held replaced there proves nothing and is given no rereading window.
bool IsTemporaryFile(std::string_view path);

// The path of a file a descriptor holds open for writing, from its link (`link`) and the
// `flags:` of its fdinfo (`fdinfo`): a live file of the tree (not replaced, not a socket, a
// pipe, /dev, /proc, /sys or a temporary file), its newlines made spaces; else nullopt.
std::optional<std::string> WrittenFile(std::string_view link, std::string_view fdinfo);

// How long a replay waits, after a refresh, before it looks at the files the restarted
// daemon writes: what a daemon writes only while it starts (a cache it rebuilds, a database it
// checks) is not where its configuration sends its output.
inline constexpr int kWriteSettleSeconds = 10;

// How long a replay waits, once the second apply replaced a file a daemon still holds
// (ReplacedFile, not under /tmp, /var/tmp, /run or /dev/shm), before it looks again: longer than
// the period of daemons that look at their files' times on a clock and open them again (cron, each
// minute: cron(8)), so that one still holding the old file then does not mean to read the new one.
inline constexpr int kRereadWindowSeconds = 65;

// One observation of the sandbox under `proc_dir`: every process but `skip` (the supervisor,
// PID 1 under systemd), and the listening sockets, all of `stage`. For each process also the
// replaced files it holds ("replaced", ReplacedFile: at most kMaxReplacedPerProcess) and
// whether it watches files with inotify ("watches": it may open a changed file again).
std::vector<Observation> ObserveSandbox(const std::string& proc_dir, int stage,
                                        const std::vector<pid_t>& skip);

// Observations of the same stage that differ only in their order are the same.
bool SameObservations(std::vector<Observation> a, std::vector<Observation> b);

// What a refresh changed: the processes it stopped (`stopped`, from stage 1) and started
// (`started`, stage 2), and the differences that show a behaviour, each as a sentence:
// command lines of the stopped processes that no started one has (and the other way), and
// listening sockets that went or came. Empty `differences`: the restart changed nothing seen.
struct RestartComparison {
  std::vector<Observation> stopped;
  std::vector<Observation> started;
  std::vector<std::string> differences;
};
RestartComparison CompareRestart(const std::vector<Observation>& observed);

}  // namespace fsmove::exec
