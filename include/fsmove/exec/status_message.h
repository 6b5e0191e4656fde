// The status pipe between the sandbox's supervisor (writer) and the executor (reader): one
// type per message, and the one place that turns them into lines and back. Code in the
// sandbox cannot write to the pipe; a line that does not decode is a bug, reported as such.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

// A path's state at the end of a run, as the sandbox saw it.
struct PathState {
  std::string path;
  bool exists = false;
  std::string type;   // file, directory, symlink, other
  unsigned mode = 0;  // permission bits
  unsigned uid = 0, gid = 0;
  std::string sha256;  // a file's content (empty: too large to hash, or unreadable)
  uint64_t size = 0;
  std::string target;  // a symlink's
  std::string error;   // lstat failed other than ENOENT
  double mtime = 0;    // seconds since the epoch
  // The same state; the modification time is not compared (every apply writes at its time).
  bool operator==(const PathState& o) const {
    return path == o.path && exists == o.exists && type == o.type && mode == o.mode &&
           uid == o.uid && gid == o.gid && sha256 == o.sha256 && size == o.size &&
           target == o.target && error == o.error;
  }
};

// A process left running at the end of a replay (a daemon an apply started).
struct Daemon {
  int pid = 0;
  double start = 0;  // seconds since the epoch
  std::string comm;
};

// What a replay of missing notifiers saw of the sandbox before (stage 1) and after (stage 2)
// refreshing the services: a process ("process", its pid, start and command line) or a
// listening socket ("listen", pid 0, "tcp 127.0.0.1:11211", "unix /run/x.sock").
struct Observation {
  int stage = 0;
  std::string kind;
  int pid = 0;
  double start = 0;
  std::string text;
  bool operator==(const Observation& o) const {
    return stage == o.stage && kind == o.kind && pid == o.pid && text == o.text;
  }
};

namespace status {

// The run entered a phase: "sandbox", "boot", "prep", "compile", "apply", or "reapplyK" for
// the K-th apply of --idempotence (ReapplyPhase).
struct Phase {
  std::string name;
  bool operator==(const Phase&) const = default;
};
// `puppet catalog find` ended (exit_code != 0: compilation failed).
struct Compiled {
  int exit_code = -1;
  double seconds = 0;
  bool operator==(const Compiled&) const = default;
};
// The traced apply ended; strace_end: exited, SIGINT, SIGKILL, died:<how> (no spaces).
struct Applied {
  int exit_code = -1;
  double seconds = 0;
  std::string strace_end;
  bool operator==(const Applied&) const = default;
};
// --idempotence: the K-th apply ended.
struct Reapplied {
  int index = 0;
  int exit_code = -1;
  double seconds = 0;
  bool operator==(const Reapplied&) const = default;
};
// A probed path's final state.
struct Probe {
  PathState state;
  bool operator==(const Probe& o) const { return state == o.state && state.mtime == o.state.mtime; }
};
// With probe_paths (without a refresh catalog): a process left running.
struct LeftRunning {
  Daemon daemon;
  bool operator==(const LeftRunning& o) const {
    return daemon.pid == o.daemon.pid && daemon.start == o.daemon.start &&
           daemon.comm == o.daemon.comm;
  }
};
// With a refresh catalog: one thing observed.
struct Observed {
  Observation observation;
  bool operator==(const Observed&) const = default;
};
// --init systemd: a service unit whose start condition systemd found unmet during the apply
// (its daemon never ran), with the condition systemctl names ("" when it names none).
struct Skipped {
  std::string unit;
  std::string condition;
  bool operator==(const Skipped&) const = default;
};
// A fact about the sandbox (bound inputs, prep, leftovers).
struct Note {
  std::string text;
  bool operator==(const Note&) const = default;
};
// A fact about the sandbox that may decide the result (no network: packages cannot be
// downloaded), shown without -v; also a note.
struct Warning {
  std::string text;
  bool operator==(const Warning&) const = default;
};
// A limit of the sandbox was hit (memory, tmpfs); also a note.
struct Limit {
  std::string text;
  bool operator==(const Limit&) const = default;
};
// The run could not go on.
struct Error {
  std::string text;
  bool operator==(const Error&) const = default;
};

std::string ReapplyPhase(int k);

}  // namespace status

using StatusMessage =
    std::variant<status::Phase, status::Compiled, status::Applied, status::Reapplied, status::Probe,
                 status::LeftRunning, status::Observed, status::Skipped, status::Note,
                 status::Warning, status::Limit, status::Error>;

// One line, without its newline: "KIND FIELDS..." (newlines in text become spaces; seconds
// with three decimals, a daemon's start with two, as the reader needs no more).
std::string EncodeStatusMessage(const StatusMessage& message);
// The message of one line (without its newline); an error names what is wrong with it.
absl::StatusOr<StatusMessage> DecodeStatusMessage(std::string_view line);

// The supervisor's end: writes each message as one line to `fd` (not owned). A reader that is
// gone is ignored: the executor kills the sandbox when it goes.
class StatusWriter {
 public:
  explicit StatusWriter(int fd) : fd_(fd) {}
  void Send(const StatusMessage& message) const;

 private:
  int fd_;
};

// The executor's end: bytes as they come off the pipe in, whole messages out.
class StatusReader {
 public:
  void Append(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole line's message, false when no whole line is buffered.
  bool Next(absl::StatusOr<StatusMessage>* message);

 private:
  std::string buffer_;
  size_t start_ = 0;
};

}  // namespace fsmove::exec
