// strace's output as the executor hands it to its caller: the bytes of the trace FIFO as they
// come, while Puppet runs, ending once the run is over. The caller (the analysis) reads it;
// the executor knows nothing of what the bytes mean.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "fsmove/exec/trace_copy.h"

namespace fsmove::exec {

// The trace FIFO in the work directory, opened at both ends: the executor holds a writer
// until the run is over, so the reader neither blocks on open nor sees end-of-file before
// strace has opened it.
struct TraceFifo {
  int read_fd = -1;   // blocking, close-on-exec, a 1 MB pipe where permitted
  int write_fd = -1;  // close-on-exec
  // mkfifo `path` (0600) and open both ends.
  static absl::StatusOr<TraceFifo> Create(const std::string& path);
};

// Reads the trace from a descriptor (owned); once the run is over (`run_over` set) it waits at
// most `grace` for the last bytes, so that a writer that never closes cannot hang the
// analysis. Every byte read also goes to `copy` when given (--save-trace).
class TraceStream {
 public:
  TraceStream(int fd, const std::atomic<bool>* run_over, std::chrono::seconds grace,
              TraceCopy* copy = nullptr)
      : fd_(fd), run_over_(run_over), grace_(grace), copy_(copy) {}
  ~TraceStream();
  TraceStream(const TraceStream&) = delete;
  TraceStream& operator=(const TraceStream&) = delete;

  // Up to n bytes; 0 at the end of the trace.
  absl::StatusOr<size_t> Read(char* buf, size_t n);
  // Reads and drops the rest of the trace (a reader that stopped early must not leave strace
  // blocked on a full pipe).
  void Drain();
  // Time spent in Read waiting for strace's output (and reading it, which is cheap): the
  // caller's own time is the rest.
  double waited_seconds() const { return std::chrono::duration<double>(waited_).count(); }

 private:
  using Clock = std::chrono::steady_clock;
  int fd_;
  const std::atomic<bool>* run_over_;
  std::chrono::seconds grace_;
  TraceCopy* copy_;
  bool stop_seen_ = false;
  bool last_read_short_ = false;
  Clock::time_point stop_at_;
  Clock::duration waited_{};
};

}  // namespace fsmove::exec
