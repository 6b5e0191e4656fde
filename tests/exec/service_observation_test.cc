// What a replay of missing notifiers observes: /proc/net's tables read into listening
// sockets, command lines, and what a restart changed.
#include "fsmove/exec/service_observation.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace fsmove::exec {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Lines as the kernel prints them (6.x), trimmed after the inode.
constexpr const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n"
    "   0: 0100007F:2BCB 00000000:0000 0A 00000000:00000000 00:00000000 00000000   100        0 "
    "31337 1 0000000000000000 100 0 0 10 0\n"
    "   1: 0100007F:2BCB 0100007F:C350 01 00000000:00000000 00:00000000 00000000   100        0 "
    "31338 1 0000000000000000 20 4 30 10 -1\n";
constexpr const char* kTcp6 =
    "  sl  local_address                         remote_address                        st\n"
    "   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 2222 1\n"
    "   1: 00000000000000000000000001000000:0277 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 2223 1\n";
constexpr const char* kUdp =
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
    "  100: 00000000:00A1 00000000:0000 07 00000000:00000000 00:00000000 00000000   110 0 555\n"
    "  101: 0100007F:0000 00000000:0000 07 00000000:00000000 00:00000000 00000000   110 0 556\n";
constexpr const char* kUnix =
    "Num       RefCount Protocol Flags    Type St Inode Path\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 20001 /run/slapd/ldapi\n"
    "0000000000000000: 00000002 00000000 00000000 0001 03 20002 /run/systemd/notify\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 20003 @/org/fsmove/abstract\n"
    "0000000000000000: 00000003 00000000 00000000 0001 03 20004\n";

TEST(ListeningSockets, ListeningTcpBoundUdpAcceptingUnix) {
  EXPECT_THAT(
      ListeningSockets(kTcp, kTcp6, kUdp, "", kUnix),
      ElementsAre("tcp 127.0.0.1:11211", "tcp6 [::1]:631", "tcp6 [::]:22", "udp 0.0.0.0:161",
                  "unix /run/slapd/ldapi", "unix @/org/fsmove/abstract"));
  EXPECT_THAT(ListeningSockets("", "", "", "", ""), IsEmpty());
  // Garbage is skipped, never a crash.
  EXPECT_THAT(ListeningSockets("x\n0: zz:zz 0 0A\n0: 0100007F 0 0A\n", "h\n0: 12:0016 0 0A\n", "",
                               "", "h\nshort line\n"),
              IsEmpty());
}

TEST(CommandLine, NulsBecomeSpaces) {
  EXPECT_EQ(CommandLine(std::string_view("/usr/bin/memcached\0-m\0"
                                         "64\0",
                                         25)),
            "/usr/bin/memcached -m 64");
  EXPECT_EQ(CommandLine(""), "");
}

Observation Process(int stage, int pid, std::string text) {
  return Observation{stage, "process", pid, 100.0 + pid, std::move(text)};
}

// The files a process holds that are no longer at their name: from /proc/PID/fd's links and
// /proc/PID/maps's lines; sockets, pipes, memfds and devices are none.
TEST(ReplacedFile, FdLinksAndMapsLinesOfDeletedFiles) {
  EXPECT_EQ(ReplacedFile("/etc/app/table.json (deleted)"), "/etc/app/table.json");
  EXPECT_EQ(ReplacedFile("7f2a1c000000-7f2a1c021000 r-xp 00000000 00:2e 1234   "
                         "/usr/local/bin/portd (deleted)"),
            "/usr/local/bin/portd");
  EXPECT_EQ(ReplacedFile("/etc/a\nb (deleted)"), "/etc/a b");
  EXPECT_EQ(ReplacedFile("/etc/app/table.json"), std::nullopt);
  EXPECT_EQ(ReplacedFile("socket:[12345]"), std::nullopt);
  EXPECT_EQ(ReplacedFile("/memfd:jit (deleted)"), std::nullopt);
  EXPECT_EQ(ReplacedFile("/dev/shm/x (deleted)"), std::nullopt);
  EXPECT_EQ(
      ReplacedFile("7f2a1c000000-7f2a1c021000 rw-s 00000000 00:01 99 /SYSV00000000 (deleted)"),
      std::nullopt);
}

// This process's own held files, as a replay sees a daemon's: a file opened and mapped, then
// unlinked, is replaced; one merely named "... (deleted)" (module code can make one to forge a
// stale daemon) is not, held open or mapped.
TEST(ObserveHeldFiles, OnlyFilesWithNoNameLeftAreReplaced) {
  char dir_template[] = "/tmp/held-files-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string gone = dir + "/table.json";
  const std::string forged_name = dir + "/live (deleted)";
  auto hold = [](const std::string& path) {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, "{}", 2), 2);
    void* map = mmap(nullptr, 2, PROT_READ, MAP_SHARED, fd, 0);
    EXPECT_NE(map, MAP_FAILED);
    return std::make_pair(fd, map);
  };
  auto [gone_fd, gone_map] = hold(gone);
  auto [forged_fd, forged_map] = hold(forged_name);
  ASSERT_EQ(unlink(gone.c_str()), 0);

  const HeldFiles held = ObserveHeldFiles("/proc", getpid());
  EXPECT_THAT(held.replaced, Contains(gone));
  EXPECT_THAT(held.replaced, Not(Contains(dir + "/live")));

  // Only mapped (the fds closed): the maps lines alone tell them apart.
  close(gone_fd);
  close(forged_fd);
  const HeldFiles mapped = ObserveHeldFiles("/proc", getpid());
  EXPECT_THAT(mapped.replaced, Contains(gone));
  EXPECT_THAT(mapped.replaced, Not(Contains(dir + "/live")));

  munmap(gone_map, 2);
  munmap(forged_map, 2);
  EXPECT_THAT(ObserveHeldFiles("/proc", getpid()).replaced, Not(Contains(gone)));
  unlink(forged_name.c_str());
  rmdir(dir.c_str());
}

// A file held open for writing, from its link and fdinfo: where a daemon's output goes.
TEST(WrittenFile, OnlyLiveFilesOfTheTreeOpenForWriting) {
  EXPECT_EQ(WrittenFile("/var/log/logd/requests.log", "pos:\t12\nflags:\t02102001\nmnt_id:\t30\n"),
            "/var/log/logd/requests.log");
  EXPECT_EQ(WrittenFile("/var/lib/app/data.db", "pos:\t0\nflags:\t0100002\n"),
            "/var/lib/app/data.db");
  // Read only, replaced, temporary, a device, not a path.
  EXPECT_EQ(WrittenFile("/etc/app.conf", "pos:\t0\nflags:\t0100000\n"), std::nullopt);
  EXPECT_EQ(WrittenFile("/var/log/app.log (deleted)", "flags:\t02102001\n"), std::nullopt);
  EXPECT_EQ(WrittenFile("/run/app/app.pid", "flags:\t0100001\n"), std::nullopt);
  EXPECT_EQ(WrittenFile("/tmp/app.log", "flags:\t0100001\n"), std::nullopt);
  EXPECT_EQ(WrittenFile("/dev/null", "flags:\t0100001\n"), std::nullopt);
  EXPECT_EQ(WrittenFile("pipe:[1234]", "flags:\t01\n"), std::nullopt);
  // No or malformed flags: nothing is assumed.
  EXPECT_EQ(WrittenFile("/var/log/app.log", "pos:\t0\n"), std::nullopt);
  EXPECT_EQ(WrittenFile("/var/log/app.log", "flags:\t09\n"), std::nullopt);
  EXPECT_EQ(WrittenFile("/var/log/a\nb.log", "flags:\t01\n"), "/var/log/a b.log");
}

// This process's own file opened for appending, outside a temporary directory, is written;
// one opened for reading is not.
TEST(ObserveHeldFiles, FilesOpenForWriting) {
  char name[] = "held-written-XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  const std::string path = std::filesystem::absolute(name).string();
  const int reader = open(name, O_RDONLY | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  EXPECT_THAT(ObserveHeldFiles("/proc", getpid()).written, Contains(path));
  close(fd);
  EXPECT_THAT(ObserveHeldFiles("/proc", getpid()).written, Not(Contains(path)));
  close(reader);
  unlink(name);
}

// What a restart changed in the files written: only one that came counts, and only one a
// started process writes (not a process that ran throughout).
TEST(CompareRestart, AFileTheRestartedDaemonWrites) {
  RestartComparison r = CompareRestart({Process(1, 5, "journald"),
                                        {1, "writes", 5, 105, "/var/log/journal/system.journal"},
                                        Process(1, 40, "logd"),
                                        {1, "writes", 40, 140, "/var/log/logd/logd.log"},
                                        Process(2, 5, "journald"),
                                        {2, "writes", 5, 105, "/var/log/journal/system.journal"},
                                        {2, "writes", 5, 105, "/var/log/journal/user.journal"},
                                        Process(2, 60, "logd"),
                                        {2, "writes", 60, 160, "/var/log/logd/requests.log"},
                                        {2, "writes", 60, 160, "/var/log/logd/requests.log"}});
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_THAT(r.differences[0],
              HasSubstr("pid 60 writes /var/log/logd/requests.log, which no process it stopped "
                        "had open"));
  // The same files, or one fewer (a daemon that has run longer opens more): nothing.
  r = CompareRestart({Process(1, 40, "logd"),
                      {1, "writes", 40, 140, "/var/log/logd/logd.log"},
                      {1, "writes", 40, 140, "/var/lib/logd/state"},
                      Process(2, 60, "logd"),
                      {2, "writes", 60, 160, "/var/log/logd/logd.log"}});
  EXPECT_THAT(r.differences, IsEmpty());
}

TEST(CompareRestart, StoppedStartedAndWhatChanged) {
  // cron runs throughout; the daemon's two workers come back as one: not a difference.
  RestartComparison r = CompareRestart(
      {Process(1, 5, "/usr/sbin/cron -f"), Process(1, 40, "/usr/sbin/appd -c /etc/app.conf"),
       Process(1, 41, "appd: worker"), Process(1, 42, "appd: worker"),
       Process(2, 5, "/usr/sbin/cron -f"), Process(2, 60, "/usr/sbin/appd -c /etc/app.conf"),
       Process(2, 61, "appd: worker")});
  EXPECT_EQ(r.stopped.size(), 3u);
  EXPECT_EQ(r.started.size(), 2u);
  EXPECT_THAT(r.differences, IsEmpty());
  // A command line that changed, a socket that moved.
  r = CompareRestart({Process(1, 40, "appd -m 64"),
                      {1, "listen", 0, 0, "tcp 0.0.0.0:80"},
                      Process(2, 60, "appd -m 32"),
                      {2, "listen", 0, 0, "tcp 127.0.0.1:80"}});
  ASSERT_EQ(r.differences.size(), 3u);
  EXPECT_THAT(r.differences[0], HasSubstr("`appd -m 64` became `appd -m 32`"));
  EXPECT_THAT(r.differences[1], HasSubstr("nothing listens on tcp 0.0.0.0:80 any more"));
  EXPECT_THAT(r.differences[2], HasSubstr("listens on tcp 127.0.0.1:80 that did not"));
  // Nothing restarted: no process stopped, nothing to compare.
  r = CompareRestart({Process(1, 40, "appd"), Process(2, 40, "appd")});
  EXPECT_THAT(r.stopped, IsEmpty());
  EXPECT_THAT(r.differences, IsEmpty());
}

}  // namespace
}  // namespace fsmove::exec
