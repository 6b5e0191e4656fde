// ProgramHistory (include/fsmove/analysis/program_history.h): which program made an access, and
// which ran that one, from the trace's forks and execs.
#include "fsmove/analysis/program_history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace fsmove::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ProgramHistoryTest, AnAccessIsMadeByTheProgramThatRanBeforeIt) {
  ProgramHistory h;
  h.Exec(10, "/usr/bin/apt-get", 1);
  h.Born(11, 10, 5);
  h.Exec(11, "/usr/lib/apt/methods/gpgv", 6);
  h.Born(12, 11, 8);
  h.Exec(12, "/usr/bin/apt-key", 9);
  // apt-key's own execve (line 9) is its caller's access; what follows is apt-key's.
  EXPECT_THAT(h.ProgramsAbove(12, 9), ElementsAre("/usr/lib/apt/methods/gpgv", "/usr/bin/apt-get"));
  EXPECT_THAT(h.ProgramsAbove(12, 10),
              ElementsAre("/usr/bin/apt-key", "/usr/lib/apt/methods/gpgv", "/usr/bin/apt-get"));
  // A child that has not exec'd runs its parent's program.
  h.Born(13, 12, 20);
  EXPECT_THAT(h.ProgramsAbove(13, 21),
              ElementsAre("/usr/bin/apt-key", "/usr/lib/apt/methods/gpgv", "/usr/bin/apt-get"));
  EXPECT_THAT(h.ProgramsAbove(13, 21, 1), ElementsAre("/usr/bin/apt-key"));
  // Before the process's first exec: the parent's program at its birth.
  EXPECT_THAT(h.ProgramsAbove(11, 5), ElementsAre("/usr/bin/apt-get"));
  EXPECT_EQ(h.programs(), 3u);
}

TEST(ProgramHistoryTest, AReusedPidStartsANewLife) {
  ProgramHistory h;
  h.Exec(1, "/usr/bin/puppet", 1);
  h.Born(50, 1, 2);
  h.Exec(50, "/usr/bin/cron", 3);
  h.Born(50, 1, 40);  // the first 50 exited; the kernel gave its pid to a new child
  EXPECT_THAT(h.ProgramsAbove(50, 30), ElementsAre("/usr/bin/cron", "/usr/bin/puppet"));
  EXPECT_THAT(h.ProgramsAbove(50, 41), ElementsAre("/usr/bin/puppet"));
}

// A malformed trace whose processes are each other's parents ends all the same.
TEST(ProgramHistoryTest, ACycleOfParentsEnds) {
  ProgramHistory h;
  h.Born(20, 21, 1);
  h.Born(21, 20, 1);
  h.Exec(20, "/bin/sh", 2);
  EXPECT_THAT(h.ProgramsAbove(21, 5), IsEmpty());  // sh ran after both were born
}

// A pid reused without end, a process that execs without end: the oldest are forgotten (and
// are then unknown), the newest kept.
TEST(ProgramHistoryTest, WhatItHoldsIsBounded) {
  ProgramHistory h;
  h.Exec(1, "/usr/bin/puppet", 1);
  uint64_t line = 2;
  for (int i = 0; i < 10000; ++i) h.Born(9, 1, line++);
  EXPECT_THAT(h.ProgramsAbove(9, line), ElementsAre("/usr/bin/puppet"));
  EXPECT_THAT(h.ProgramsAbove(9, 3), IsEmpty());  // that life is forgotten
  for (int i = 0; i < 10000; ++i) h.Exec(9, "/bin/true", line++);
  h.Exec(9, "/bin/sh", line++);
  EXPECT_THAT(h.ProgramsAbove(9, line, 2), ElementsAre("/bin/sh", "/bin/true"));
  for (int i = 0; i < 70000; ++i) h.Exec(10, "/x/" + std::to_string(i), line++);
  EXPECT_EQ(h.programs(), 65536u);
}

TEST(ProgramHistoryTest, WhatTheTraceDidNotShowIsUnknown) {
  ProgramHistory h;
  EXPECT_THAT(h.ProgramsAbove(7, 100), IsEmpty());
  h.Born(8, 7, 3);  // its parent never exec'd in the trace
  EXPECT_THAT(h.ProgramsAbove(8, 10), IsEmpty());
  h.Exec(8, "", 4);  // an execve whose path strace could not read
  EXPECT_THAT(h.ProgramsAbove(8, 10), IsEmpty());
}

}  // namespace
}  // namespace fsmove::analysis
