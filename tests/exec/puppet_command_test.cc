#include "fsmove/exec/puppet_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

using ::testing::ElementsAre;

TEST(StraceArguments, FiltersTheGivenCallsInTheKernelLeavingReadlinkOut) {
  EXPECT_THAT(StraceArguments("strace", "/run/fsmove/trace.fifo", {"openat", "readlink", "stat64"}),
              ElementsAre("strace", "-D", "-f", "-s", "65535", "-I2", "--seccomp-bpf", "-e",
                          "trace=?openat,?stat64", "-o", "/run/fsmove/trace.fifo", "--"));
}

TEST(StraceArguments, NoListTracesEveryCall) {
  EXPECT_THAT(StraceArguments("/usr/bin/strace", "out", {}),
              ElementsAre("/usr/bin/strace", "-D", "-f", "-s", "65535", "-I2", "-o", "out", "--"));
}

TEST(StraceArguments, TheStringLimitIsStracesDashS) {
  EXPECT_THAT(StraceArguments("strace", "out", {}, 300),
              ElementsAre("strace", "-D", "-f", "-s", "300", "-I2", "-o", "out", "--"));
}

TEST(StraceArguments, TimestampsAreTimesDurationsAndDescriptorPaths) {
  EXPECT_THAT(StraceArguments("strace", "out", {"openat"}, 300, true),
              ElementsAre("strace", "-D", "-f", "-s", "300", "-I2", "-ttt", "-T", "-yy",
                          "--seccomp-bpf", "-e", "trace=?openat", "-o", "out", "--"));
}

TEST(CertName, IsLowerCase) {
  const std::string name = CertName();
  EXPECT_FALSE(name.empty());
  for (char c : name) EXPECT_FALSE(c >= 'A' && c <= 'Z') << name;
}

}  // namespace
}  // namespace fsmove::exec
