// Descriptor tables: descriptors at the top of the range (dup2(3, 1048575)) behave as the
// kernel's do through forks, close_range and execve, and keep the inodes they name alive.
#include "fsmove/analysis/process_table.h"

#include <gtest/gtest.h>

namespace fsmove::analysis {
namespace {

class ProcessTableTest : public ::testing::Test {
 protected:
  InodeTable inodes_;
  ProcessTable procs_{&inodes_};
  InodeId file_ = inodes_.LookupOrCreate(inodes_.root(), "file");
};

TEST_F(ProcessTableTest, HighDescriptorsThroughForks) {
  constexpr int kTop = ProcessTable::kMaxFd - 1;
  Process& parent = procs_.CreateFresh(100, inodes_.root(), inodes_.root());
  procs_.SetFd(parent, 3, file_, false);
  procs_.SetFd(parent, kTop, file_, /*cloexec=*/false);
  procs_.SetFd(parent, 5000, file_, /*cloexec=*/true);
  // 300 children alive at once, each with its own copy.
  for (int i = 0; i < 300; ++i) {
    Process& child = procs_.CreateChild(*procs_.Find(100), 1000 + i, false, false, false);
    ASSERT_NE(procs_.Fd(child, kTop), nullptr);
    EXPECT_EQ(procs_.Fd(child, kTop)->inode, file_);
  }
  EXPECT_EQ(procs_.Fd(*procs_.Find(100), kTop - 1), nullptr);
  // A child closes its copy: the parent's stays.
  procs_.CloseFd(*procs_.Find(1000), kTop);
  EXPECT_EQ(procs_.Fd(*procs_.Find(1000), kTop), nullptr);
  EXPECT_NE(procs_.Fd(*procs_.Find(100), kTop), nullptr);
  // execve drops only close-on-exec descriptors, high ones included.
  Process& exec = *procs_.Find(1001);
  procs_.PrepareExec(exec);
  EXPECT_EQ(procs_.Fd(exec, 5000), nullptr);
  EXPECT_NE(procs_.Fd(exec, kTop), nullptr);
  EXPECT_NE(procs_.Fd(exec, 3), nullptr);
  // close_range over the top, and marking close-on-exec.
  Process& ranged = *procs_.Find(1002);
  procs_.CloseRange(ranged, 4000, ~0u >> 1, /*only_mark_cloexec=*/true);
  EXPECT_TRUE(procs_.Fd(ranged, kTop)->cloexec);
  EXPECT_FALSE(procs_.Fd(ranged, 3)->cloexec);
  procs_.CloseRange(ranged, 3, ~0u >> 1, /*only_mark_cloexec=*/false);
  EXPECT_EQ(procs_.Fd(ranged, kTop), nullptr);
  EXPECT_EQ(procs_.Fd(ranged, 5000), nullptr);
  EXPECT_EQ(procs_.Fd(ranged, 3), nullptr);
  EXPECT_NE(procs_.Fd(*procs_.Find(100), 5000), nullptr);
}

TEST_F(ProcessTableTest, DescriptorsKeepTheirInodeAlive) {
  Process& p = procs_.CreateFresh(1, inodes_.root(), inodes_.root());
  procs_.SetFd(p, 700000, file_, false);
  Process& child = procs_.CreateChild(p, 2, false, false, false);
  const size_t live = inodes_.live_inodes();
  EXPECT_EQ(inodes_.Unbind(inodes_.root(), "file"), file_);
  EXPECT_EQ(inodes_.live_inodes(), live);  // still open in both tables
  procs_.CloseFd(child, 700000);
  EXPECT_EQ(inodes_.live_inodes(), live);  // still open in the parent's
  procs_.Remove(1);
  EXPECT_EQ(inodes_.live_inodes(), live - 1);
}

TEST_F(ProcessTableTest, SharedTablesSeeEachOthersDescriptors) {
  Process& p = procs_.CreateFresh(1, inodes_.root(), inodes_.root());
  Process& thread = procs_.CreateChild(p, 2, /*share_fds=*/true, true, /*thread=*/true);
  procs_.SetFd(thread, 900000, file_, false);
  EXPECT_NE(procs_.Fd(*procs_.Find(1), 900000), nullptr);
  procs_.CloseFd(*procs_.Find(1), 900000);
  EXPECT_EQ(procs_.Fd(*procs_.Find(2), 900000), nullptr);
}

}  // namespace
}  // namespace fsmove::analysis
