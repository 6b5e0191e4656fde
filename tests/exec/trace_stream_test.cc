#include "fsmove/exec/trace_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

std::string ReadAll(TraceStream& stream) {
  std::string out;
  char buf[7];  // small reads: the stream must hand back every byte in order
  for (;;) {
    absl::StatusOr<size_t> got = stream.Read(buf, sizeof buf);
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok() || *got == 0) return out;
    out.append(buf, *got);
  }
}

TEST(TraceStream, ReadsAPipeToItsEnd) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::atomic<bool> over{false};
  TraceStream stream(p[0], &over, std::chrono::seconds(10));
  std::thread writer([&] {
    for (int i = 0; i < 100; ++i) {
      std::string line = "1234 openat(AT_FDCWD, \"/etc/x\", O_RDONLY) = 3\n";
      ASSERT_EQ(write(p[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
    }
    close(p[1]);
  });
  const std::string got = ReadAll(stream);
  writer.join();
  EXPECT_EQ(got.size(),
            100 * std::string("1234 openat(AT_FDCWD, \"/etc/x\", O_RDONLY) = 3\n").size());
}

// A writer that never closes (a daemon holding strace's output open) cannot hang the reader:
// once the run is over, it waits `grace` and ends.
TEST(TraceStream, EndsAfterTheGraceWhenTheRunIsOverAndTheWriterStaysOpen) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::atomic<bool> over{false};
  TraceStream stream(p[0], &over, std::chrono::seconds(0));
  ASSERT_EQ(write(p[1], "last\n", 5), 5);
  over.store(true);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadAll(stream), "last\n");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_GT(stream.waited_seconds(), 0.0);
  close(p[1]);
}

TEST(TraceStream, CopiesWhatItReadsAndDrainsTheRest) {
  const std::string dir = ::testing::TempDir() + "/trace_stream_test";
  std::filesystem::create_directories(dir);
  const std::string fifo_path = dir + "/trace.fifo";
  std::filesystem::remove(fifo_path);
  absl::StatusOr<TraceFifo> fifo = TraceFifo::Create(fifo_path);
  ASSERT_TRUE(fifo.ok()) << fifo.status();
  auto copy = TraceCopy::Create(dir + "/copy.txt");
  ASSERT_TRUE(copy.ok()) << copy.status();
  std::atomic<bool> over{false};
  {
    TraceStream stream(fifo->read_fd, &over, std::chrono::seconds(0), copy->get());
    // strace opens the FIFO by name and writes; the executor's own writer keeps it open.
    int strace = open(fifo_path.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(strace, 0);
    ASSERT_EQ(write(strace, "a\nb\nc\n", 6), 6);
    close(strace);
    char first[2];
    absl::StatusOr<size_t> got = stream.Read(first, sizeof first);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(std::string(first, *got), "a\n");
    close(fifo->write_fd);  // the run is over
    over.store(true);
    stream.Drain();  // the caller stopped early: the rest still goes to the copy
  }
  ASSERT_TRUE((*copy)->Close().ok());
  std::FILE* f = std::fopen((dir + "/copy.txt").c_str(), "r");
  ASSERT_NE(f, nullptr);
  char buf[16] = {};
  const size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  EXPECT_EQ(std::string(buf, n), "a\nb\nc\n");
}

TEST(TraceFifo, FailsWhereNoFifoCanBeMade) {
  absl::StatusOr<TraceFifo> fifo = TraceFifo::Create("/nonexistent-dir/trace.fifo");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(std::string(fifo.status().message()).find("mkfifo /nonexistent-dir/trace.fifo"),
            std::string::npos);
}

}  // namespace
}  // namespace fsmove::exec
