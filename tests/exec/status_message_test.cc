#include "fsmove/exec/status_message.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

using ::testing::HasSubstr;

StatusMessage RoundTrip(const StatusMessage& m) {
  const std::string line = EncodeStatusMessage(m);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  absl::StatusOr<StatusMessage> back = DecodeStatusMessage(line);
  EXPECT_TRUE(back.ok()) << back.status() << " for " << line;
  return back.ok() ? *back : StatusMessage{};
}

TEST(StatusMessage, EveryKindSurvivesARoundTrip) {
  PathState file;
  file.path = "/etc/motd";
  file.exists = true;
  file.type = "file";
  file.mode = 0644;
  file.sha256 = "ab12";
  file.size = 12;
  file.mtime = 1700000000.5;
  PathState unreadable;
  unreadable.path = "/gone";
  unreadable.error = "Permission denied";
  Daemon daemon{42, 1700000000.25, "my daemon"};
  const std::vector<StatusMessage> messages = {
      status::Phase{"compile"},
      status::Phase{status::ReapplyPhase(3)},
      status::Compiled{1, 2.5},
      status::Applied{137, 12.125, "died:SIGKILL"},
      status::Reapplied{2, 0, 3.75},
      status::Probe{file},
      status::Probe{unreadable},
      status::LeftRunning{daemon},
      status::Observed{{1, "process", 51, 1700000001.5, "/usr/bin/memcached -m 32 -p 11211"}},
      status::Observed{{2, "listen", 0, 0, "unix /run/slapd/ldapi"}},
      status::Skipped{"irqbalance.service", "ConditionVirtualization=!container was not met"},
      status::Skipped{"x.service", ""},
      status::Note{"bound /srv read-only into the sandbox"},
      status::Note{""},
      status::Warning{"the sandbox has no network: /dev/net/tun is not open to this user"},
      status::Limit{"the sandbox hit its memory limit (100 MiB)"},
      status::Error{"setting up the sandbox: mount: Operation not permitted"},
  };
  for (const StatusMessage& m : messages) EXPECT_EQ(RoundTrip(m), m) << EncodeStatusMessage(m);
}

TEST(StatusMessage, KeepsTheLineFormat) {
  EXPECT_EQ(EncodeStatusMessage(status::Phase{status::ReapplyPhase(2)}), "phase reapply2");
  EXPECT_EQ(EncodeStatusMessage(status::Compiled{0, 1.23456}), "compiled 0 1.235");
  EXPECT_EQ(EncodeStatusMessage(status::Applied{2, 4, "SIGINT"}), "applied 2 4.000 SIGINT");
  EXPECT_EQ(EncodeStatusMessage(status::LeftRunning{{7, 1.5, "sshd"}}), "daemon 7 1.50 sshd");
  EXPECT_EQ(EncodeStatusMessage(status::Observed{{2, "process", 9, 3.5, "/usr/sbin/sshd -D"}}),
            "observed 2 process 9 3.50 /usr/sbin/sshd -D");
  // A message never spans lines.
  EXPECT_EQ(EncodeStatusMessage(status::Note{"two\nlines"}), "note two lines");
}

TEST(StatusMessage, MalformedLinesAreErrorsThatSayWhy) {
  for (std::string_view line : {"",
                                "compiled",
                                "compiled x 1.0",
                                "compiled 0",
                                "compiled 0 1.0 extra",
                                "applied 0 1.0",
                                "applied zero 1.0 exited",
                                "reapplied 2 0",
                                "reapplied 2 0 soon",
                                "daemon 7",
                                "daemon x 1.0 comm",
                                "probe",
                                "probe {not json",
                                "probe [1,2]",
                                "probe {\"path\": \"/x\", \"mode\": \"rw\"}",
                                "phase",
                                "phase two words",
                                "hello world",
                                "skipped",
                                "skipped x.service",
                                "skipped  condition"}) {
    absl::StatusOr<StatusMessage> m = DecodeStatusMessage(line);
    EXPECT_FALSE(m.ok()) << "accepted: " << line;
    if (!m.ok()) {
      EXPECT_THAT(std::string(m.status().message()), HasSubstr("malformed status line"));
    }
  }
}

TEST(StatusReader, SplitsChunksIntoWholeLines) {
  StatusReader reader;
  absl::StatusOr<StatusMessage> m;
  reader.Append("phase com");
  EXPECT_FALSE(reader.Next(&m));
  reader.Append("pile\ncompiled 0 1.000\nnote a");
  ASSERT_TRUE(reader.Next(&m));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, StatusMessage(status::Phase{"compile"}));
  ASSERT_TRUE(reader.Next(&m));
  EXPECT_EQ(*m, StatusMessage(status::Compiled{0, 1.0}));
  EXPECT_FALSE(reader.Next(&m));
  reader.Append("nd b\nbogus\n");
  ASSERT_TRUE(reader.Next(&m));
  EXPECT_EQ(*m, StatusMessage(status::Note{"and b"}));
  ASSERT_TRUE(reader.Next(&m));
  EXPECT_FALSE(m.ok());
  EXPECT_FALSE(reader.Next(&m));
}

}  // namespace
}  // namespace fsmove::exec
