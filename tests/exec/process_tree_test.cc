// The processes of /proc, and KillDescendants ending a tree (a child and its child).
#include "fsmove/exec/process_tree.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

TEST(ProcessTreeTest, ListsThisProcessWithItsParent) {
  const auto all = ListProcesses("/proc");
  auto self =
      std::find_if(all.begin(), all.end(), [](const ProcEntry& p) { return p.pid == getpid(); });
  ASSERT_NE(self, all.end());
  EXPECT_EQ(self->ppid, getppid());
  EXPECT_FALSE(self->comm.empty());
  EXPECT_GT(self->start_ticks, 0u);
  EXPECT_TRUE(ListProcesses("/nonexistent-proc").empty());
}

TEST(ProcessTreeTest, KillDescendantsEndsChildrenAndGrandchildren) {
  // In a helper that is a subreaper, as the supervisor is: the orphaned grandchild comes back.
  pid_t helper = fork();
  if (helper == 0) {
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int ready[2];
    if (pipe(ready) != 0) _exit(10);
    pid_t child = fork();
    if (child == 0) {
      if (fork() == 0) {
        (void)!write(ready[1], "g", 1);
        pause();
        _exit(0);
      }
      pause();
      _exit(0);
    }
    char byte;
    if (read(ready[0], &byte, 1) != 1) _exit(11);
    KillDescendants(child);
    int killed = 0;
    for (int st = 0; waitpid(-1, &st, 0) > 0;) {
      killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
    }
    _exit(killed == 2 ? 0 : 12);
  }
  int st = 0;
  waitpid(helper, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
}

}  // namespace
}  // namespace fsmove::exec
