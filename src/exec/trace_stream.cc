// The trace FIFO and its reader; see trace_stream.h.
#include "fsmove/exec/trace_stream.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/exec/process.h"

namespace fsmove::exec {

absl::StatusOr<TraceFifo> TraceFifo::Create(const std::string& path) {
  // Writable by the sandbox's root (another host uid), which reaches it only through a bind
  // mount of this one file: the work directory keeps everyone else out.
  if (mkfifo(path.c_str(), 0600) != 0 || chmod(path.c_str(), 0622) != 0)
    return base::ErrnoStatus(fmt::format("mkfifo {}", path));
  TraceFifo fifo;
  fifo.read_fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fifo.read_fd < 0) return base::ErrnoStatus(fmt::format("open {}", path));
  fifo.write_fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fifo.write_fd < 0) {
    absl::Status st = base::ErrnoStatus(fmt::format("open {}", path));
    close(fifo.read_fd);
    return st;
  }
  fcntl(fifo.read_fd, F_SETFL, fcntl(fifo.read_fd, F_GETFL) & ~O_NONBLOCK);
  fcntl(fifo.read_fd, F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups; best effort
  return fifo;
}

TraceStream::~TraceStream() { close(fd_); }

absl::StatusOr<size_t> TraceStream::Read(char* buf, size_t n) {
  // strace writes line by line; waking for each line would bounce between CPUs hundreds of
  // thousands of times. After a short read, let the (1 MB) pipe fill for a while.
  struct Waited {  // the time until data came counts as waiting for Puppet, not analysis
    Clock::duration* total;
    Clock::time_point start;
    ~Waited() { *total += Clock::now() - start; }
  } waited{&waited_, Clock::now()};
  if (last_read_short_) std::this_thread::sleep_for(std::chrono::milliseconds(3));
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int r = poll(&p, 1, 200);
    if (r < 0 && errno != EINTR) return base::ErrnoStatus("poll on the trace FIFO");
    if (r > 0) {
      ssize_t got = read(fd_, buf, n);
      if (got >= 0) {
        last_read_short_ = static_cast<size_t>(got) < n / 4;
        if (got > 0 && copy_ != nullptr) {
          if (absl::Status st = copy_->Write(buf, static_cast<size_t>(got)); !st.ok()) return st;
        }
        return static_cast<size_t>(got);
      }
      if (errno != EINTR && errno != EAGAIN) return base::ErrnoStatus("read failed");
      continue;
    }
    if (run_over_->load()) {
      if (!stop_seen_) {
        stop_seen_ = true;
        stop_at_ = Clock::now();
      } else if (Clock::now() - stop_at_ > grace_) {
        return 0;
      }
    }
  }
}

void TraceStream::Drain() {
  char buf[1 << 16];
  for (;;) {
    absl::StatusOr<size_t> got = Read(buf, sizeof buf);
    if (got.ok() && *got == 0) return;
    if (!got.ok()) {
      if (copy_ == nullptr) return;
      copy_ = nullptr;  // the copy failed: keep draining without it
    }
  }
}

}  // namespace fsmove::exec
