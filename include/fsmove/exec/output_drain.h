// Puppet's output through a socket that the supervisor drains into a file only it can open.
// A file as Puppet's stdout can be reopened by module code through /proc/PID/fd/1 and
// truncated (`>`); a pipe can be reopened there too, for reading, and a reader there takes
// what Puppet writes. A socket cannot be opened through /proc at all (ENXIO), and what its
// writer's end reads is what the drain sends (nothing): module code can add lines to the log
// through a copy of the writer's end it holds, never read or remove a byte Puppet wrote.
// A pseudo-terminal's master is drained the same way (Adopt): what is written to its slave
// can be added to, never read back from the slave or taken away.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/statusor.h"

namespace fsmove::exec {

class OutputDrain {
 public:
  // Output goes to `out` (taken: closed with the drain; -1: dropped), written at its offset
  // (open it with O_APPEND to add to a file). At most `max_bytes` are kept; the rest is read
  // and dropped, so a writer never blocks on a full socket however much it writes.
  static absl::StatusOr<std::unique_ptr<OutputDrain>> Start(int out, uint64_t max_bytes);
  // The same drain from a descriptor that already exists (taken): a pseudo-terminal's master,
  // whose slave is a console in the sandbox. It has no writer's end; a read error (EIO once
  // no slave is open) ends it as EOF does. A console's line ends ("\r\n", and "\r\r\n"
  // where a program writes "\r\n" through the terminal's own translation) are kept as "\n".
  static absl::StatusOr<std::unique_ptr<OutputDrain>> AdoptConsole(int reader, int out,
                                                                   uint64_t max_bytes);
  ~OutputDrain();
  OutputDrain(const OutputDrain&) = delete;
  OutputDrain& operator=(const OutputDrain&) = delete;

  // The writer's end (close-on-exec: a spawned program's stdout and stderr are dup2'ed).
  int writer() const { return writer_; }
  // Once the program that writes has started: from then on, the socket ends when it and
  // everything that inherited its output have closed it.
  void CloseWriter();

  // Copies what has come, without waiting; false once every writer has closed (EOF).
  bool CopyAvailable();
  // Waits up to `timeout_ms` for output on any of `drains` still open, then copies it.
  static void PumpAll(std::span<OutputDrain* const> drains, int timeout_ms);

  // After the program ended: copies what is left, until every writer has closed or, when
  // processes that outlived it hold a copy of the writer's end, until `grace` has passed.
  void Finish(std::chrono::milliseconds grace);

  bool open() const { return reader_ >= 0 && !eof_; }
  uint64_t kept() const { return kept_; }
  uint64_t dropped() const { return dropped_; }

 private:
  OutputDrain(int reader, int writer, int out, uint64_t max_bytes)
      : reader_(reader), writer_(writer), out_(out), max_bytes_(max_bytes) {}
  void Keep(const char* data, size_t size);

  int reader_ = -1;
  int writer_ = -1;
  int out_ = -1;
  uint64_t max_bytes_ = 0;
  uint64_t kept_ = 0;
  uint64_t dropped_ = 0;
  bool eof_ = false;
  bool drop_carriage_returns_ = false;
};

}  // namespace fsmove::exec
