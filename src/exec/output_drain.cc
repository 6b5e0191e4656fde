// Draining Puppet's output from a socket into a file; see output_drain.h.
#include "fsmove/exec/output_drain.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "fsmove/base/errno_status.h"

namespace fsmove::exec {

namespace {

// What one CopyAvailable reads at most, so that a writer that never pauses cannot keep the
// supervisor from reaping and timing what it waits for.
constexpr size_t kMaxBytesPerCopy = size_t{8} << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<OutputDrain>> OutputDrain::Start(int out, uint64_t max_bytes) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    const int err = errno;
    if (out >= 0) close(out);
    return base::ErrnoStatus("socketpair", err);
  }
  // One way only: what the writer's end reads is what the drain sends, which is nothing.
  shutdown(ends[0], SHUT_WR);
  shutdown(ends[1], SHUT_RD);
  fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK);
  return std::unique_ptr<OutputDrain>(new OutputDrain(ends[0], ends[1], out, max_bytes));
}

absl::StatusOr<std::unique_ptr<OutputDrain>> OutputDrain::AdoptConsole(int reader, int out,
                                                                       uint64_t max_bytes) {
  const int flags = fcntl(reader, F_GETFL);
  if (flags < 0 || fcntl(reader, F_SETFL, flags | O_NONBLOCK) != 0) {
    const int err = errno;
    close(reader);
    if (out >= 0) close(out);
    return base::ErrnoStatus("fcntl(O_NONBLOCK)", err);
  }
  std::unique_ptr<OutputDrain> drain(new OutputDrain(reader, -1, out, max_bytes));
  drain->drop_carriage_returns_ = true;
  return drain;
}

OutputDrain::~OutputDrain() {
  CloseWriter();
  if (reader_ >= 0) close(reader_);
  if (out_ >= 0) close(out_);
}

void OutputDrain::CloseWriter() {
  if (writer_ >= 0) close(writer_);
  writer_ = -1;
}

void OutputDrain::Keep(const char* data, size_t size) {
  const uint64_t room = kept_ < max_bytes_ ? max_bytes_ - kept_ : 0;
  const size_t keep = static_cast<size_t>(std::min<uint64_t>(room, size));
  size_t put = 0;
  while (out_ >= 0 && put < keep) {
    const ssize_t n = write(out_, data + put, keep - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the file system is full: what does not fit is dropped
    put += static_cast<size_t>(n);
  }
  kept_ += put;
  dropped_ += size - put;
}

bool OutputDrain::CopyAvailable() {
  if (!open()) return false;
  char buf[1 << 16];
  for (size_t copied = 0; copied < kMaxBytesPerCopy;) {
    const ssize_t got = read(reader_, buf, sizeof buf);  // non-blocking (Start, AdoptConsole)
    if (got > 0) {
      size_t size = static_cast<size_t>(got);
      if (drop_carriage_returns_)
        size = static_cast<size_t>(std::remove(buf, buf + size, '\r') - buf);
      Keep(buf, size);
      copied += static_cast<size_t>(got);
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    eof_ = true;  // 0: every writer closed; another error ends the drain the same way
    return false;
  }
  return true;
}

void OutputDrain::PumpAll(std::span<OutputDrain* const> drains, int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<OutputDrain*> polled;
  for (OutputDrain* d : drains) {
    if (d == nullptr || !d->open()) continue;
    fds.push_back(pollfd{d->reader_, POLLIN, 0});
    polled.push_back(d);
  }
  if (fds.empty()) {
    if (timeout_ms > 0) poll(nullptr, 0, timeout_ms);
    return;
  }
  if (poll(fds.data(), fds.size(), timeout_ms) <= 0) return;
  for (size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents != 0) polled[i]->CopyAvailable();
  }
}

void OutputDrain::Finish(std::chrono::milliseconds grace) {
  using Clock = std::chrono::steady_clock;
  CloseWriter();
  const auto until = Clock::now() + grace;
  OutputDrain* self = this;
  while (CopyAvailable()) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (left <= 0) break;
    PumpAll(std::span<OutputDrain* const>(&self, 1), static_cast<int>(std::min<int64_t>(left, 50)));
  }
}

}  // namespace fsmove::exec
