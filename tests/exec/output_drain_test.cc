// Puppet's output through a socket drained into a file: what is written arrives, what is too
// much is dropped without blocking the writer, and the socket cannot be reopened through /proc.
#include "fsmove/exec/output_drain.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

class OutputDrainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("fsmove-drain-" + std::to_string(getpid()) + ".log");
  }
  void TearDown() override { fs::remove(path_); }
  int OpenOut(int flags = O_TRUNC) const {
    return open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  }
  std::string Text() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // A child that writes `bytes` bytes of 'x' (then "end\n") to the drain's writer and exits.
  static pid_t WriteInChild(const OutputDrain& drain, size_t bytes) {
    const pid_t pid = fork();
    if (pid == 0) {
      std::string chunk(4096, 'x');
      for (size_t left = bytes; left > 0;) {
        const size_t n = std::min(left, chunk.size());
        if (write(drain.writer(), chunk.data(), n) != static_cast<ssize_t>(n)) _exit(1);
        left -= n;
      }
      _exit(write(drain.writer(), "end\n", 4) == 4 ? 0 : 1);
    }
    return pid;
  }
  // Waits for `pid` while draining, as the supervisor does.
  static int WaitDraining(OutputDrain& drain, pid_t pid) {
    OutputDrain* d = &drain;
    for (;;) {
      int status = 0;
      const pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) return status;
      OutputDrain::PumpAll(std::span<OutputDrain* const>(&d, 1), 50);
    }
  }
  fs::path path_;
};

TEST_F(OutputDrainTest, WhatIsWrittenArrivesInTheFile) {
  auto drain = OutputDrain::Start(OpenOut(), 1 << 20);
  ASSERT_TRUE(drain.ok()) << drain.status();
  const pid_t pid = WriteInChild(**drain, 10000);
  (*drain)->CloseWriter();
  const int status = WaitDraining(**drain, pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  (*drain)->Finish(std::chrono::milliseconds(500));
  EXPECT_FALSE((*drain)->open());
  EXPECT_EQ((*drain)->kept(), 10004u);
  EXPECT_EQ((*drain)->dropped(), 0u);
  drain->reset();
  const std::string text = Text();
  EXPECT_EQ(text.size(), 10004u);
  EXPECT_TRUE(text.ends_with("xend\n"));
}

TEST_F(OutputDrainTest, AddsToAFileOpenedToAppend) {
  { std::ofstream(path_) << "before\n"; }
  auto drain = OutputDrain::Start(OpenOut(O_APPEND), 1 << 20);
  ASSERT_TRUE(drain.ok());
  const pid_t pid = WriteInChild(**drain, 0);
  (*drain)->CloseWriter();
  WaitDraining(**drain, pid);
  (*drain)->Finish(std::chrono::milliseconds(500));
  drain->reset();
  EXPECT_EQ(Text(), "before\nend\n");
}

// Far more than the socket holds, kept to 1000 bytes: the writer never blocks for good.
TEST_F(OutputDrainTest, BeyondTheLimitOutputIsReadAndDropped) {
  auto drain = OutputDrain::Start(OpenOut(), 1000);
  ASSERT_TRUE(drain.ok());
  const size_t bytes = size_t{8} << 20;
  const pid_t pid = WriteInChild(**drain, bytes);
  (*drain)->CloseWriter();
  const int status = WaitDraining(**drain, pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  (*drain)->Finish(std::chrono::milliseconds(500));
  EXPECT_EQ((*drain)->kept(), 1000u);
  EXPECT_EQ((*drain)->dropped(), bytes + 4 - 1000);
  drain->reset();
  EXPECT_EQ(Text(), std::string(1000, 'x'));
}

// A process that outlived the writer and holds a copy of its end: Finish keeps what came
// and returns after its grace instead of waiting for that process.
TEST_F(OutputDrainTest, FinishReturnsAfterItsGraceWhenACopyOfTheWriterStaysOpen) {
  auto drain = OutputDrain::Start(OpenOut(), 1 << 20);
  ASSERT_TRUE(drain.ok());
  const int held = dup((*drain)->writer());
  ASSERT_EQ(write(held, "line\n", 5), 5);
  const auto t0 = std::chrono::steady_clock::now();
  (*drain)->Finish(std::chrono::milliseconds(200));
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(150));
  EXPECT_LT(waited, std::chrono::seconds(5));
  EXPECT_TRUE((*drain)->open());
  EXPECT_EQ((*drain)->kept(), 5u);
  close(held);
  drain->reset();
  EXPECT_EQ(Text(), "line\n");
}

// What module code tries: reopen Puppet's stdout through /proc, to truncate it (O_TRUNC)
// or to read what Puppet writes. Neither opens; the writer's own end reads nothing.
TEST_F(OutputDrainTest, TheWritersEndCannotBeReopenedOrReadFrom) {
  auto drain = OutputDrain::Start(OpenOut(), 1 << 20);
  ASSERT_TRUE(drain.ok());
  const std::string link = "/proc/self/fd/" + std::to_string((*drain)->writer());
  for (int flags : {O_WRONLY | O_TRUNC, O_RDONLY, O_RDWR}) {
    errno = 0;
    const int fd = open(link.c_str(), flags | O_CLOEXEC);
    EXPECT_LT(fd, 0) << "flags " << flags;
    EXPECT_EQ(errno, ENXIO);
    if (fd >= 0) close(fd);
  }
  ASSERT_EQ(write((*drain)->writer(), "kept\n", 5), 5);
  char c;
  EXPECT_LE(read((*drain)->writer(), &c, 1), 0);
  (*drain)->Finish(std::chrono::milliseconds(500));
  drain->reset();
  EXPECT_EQ(Text(), "kept\n");
}

// systemd's console (systemd_boot.h): a pseudo-terminal's master drained into the file. What
// is written to the slave arrives with its line ends as "\n" (the terminal adds "\r" before
// each "\n"; systemd writes "\r\n" itself), and a reader of the slave gets none of it.
TEST_F(OutputDrainTest, AConsolesMasterIsDrainedAndItsSlaveReadsNothing) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  const char* name = ptsname(master);
  ASSERT_NE(name, nullptr);
  const int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  ASSERT_GE(slave, 0);
  auto drain = OutputDrain::AdoptConsole(master, OpenOut(), 1 << 20);
  ASSERT_TRUE(drain.ok());
  EXPECT_LT((*drain)->writer(), 0);
  ASSERT_EQ(write(slave, "systemd 252 running\r\n", 21), 21);
  ASSERT_EQ(write(slave, "Startup finished.\n", 18), 18);
  char c;
  errno = 0;
  EXPECT_LT(read(slave, &c, 1), 0);
  EXPECT_EQ(errno, EAGAIN);
  OutputDrain* d = drain->get();
  for (int i = 0; i < 20 && Text().size() < 38; ++i) {
    OutputDrain::PumpAll(std::span<OutputDrain* const>(&d, 1), 50);
  }
  EXPECT_EQ(Text(), "systemd 252 running\nStartup finished.\n");
  // The last slave closed: the drain ends as at EOF.
  close(slave);
  for (int i = 0; i < 20 && (*drain)->open(); ++i) {
    OutputDrain::PumpAll(std::span<OutputDrain* const>(&d, 1), 50);
  }
  EXPECT_FALSE((*drain)->open());
}

}  // namespace
}  // namespace fsmove::exec
