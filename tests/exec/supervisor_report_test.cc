// What the supervisor's messages leave in the run's report (supervisor_watch.h).
#include "fsmove/base/progress_line.h"
#include "fsmove/exec/supervisor_watch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

using ::testing::ElementsAre;

TEST(SupervisorReportTest, ANoteEachPhaseSaysAgainIsKeptOnceALimitHitInEach) {
  // The compile and the apply each enter a sandbox of their own, with its own network.
  SupervisorReport report;
  base::ProgressLine quiet(false);
  const std::string net = "network: private namespace, outbound through slirp4netns";
  for (const StatusMessage& m :
       {StatusMessage(status::Phase{"compile"}), StatusMessage(status::Note{net}),
        StatusMessage(status::Warning{"no network"}), StatusMessage(status::Phase{"apply"}),
        StatusMessage(status::Note{net}), StatusMessage(status::Warning{"no network"}),
        StatusMessage(status::Limit{"pids limit hit"}),
        StatusMessage(status::Limit{"pids limit hit"}),
        StatusMessage(status::Note{"apply note"})}) {
    report.Take(m, quiet, -1);
  }
  EXPECT_THAT(report.notes, ElementsAre(net, "no network", "pids limit hit", "apply note"));
  EXPECT_THAT(report.warnings, ElementsAre("no network"));
  // A limit hit in both phases is in the run's limits_hit twice: one per phase.
  EXPECT_THAT(report.limits, ElementsAre("pids limit hit", "pids limit hit"));
  EXPECT_EQ(report.phase, "apply");
}

}  // namespace
}  // namespace fsmove::exec
