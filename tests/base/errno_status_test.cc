// errno as a Status: the message convention and abseil's codes.
#include "fsmove/base/errno_status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace fsmove::base {
namespace {

TEST(ErrnoStatusTest, SaysWhatFailedThenWhy) {
  const absl::Status st = ErrnoStatus("cannot open /x", ENOENT);
  EXPECT_EQ(st.message(), "cannot open /x: No such file or directory");
  EXPECT_TRUE(absl::IsNotFound(st));
}

TEST(ErrnoStatusTest, CodeFollowsTheErrno) {
  EXPECT_TRUE(absl::IsPermissionDenied(ErrnoStatus("open", EACCES)));
  EXPECT_TRUE(absl::IsAlreadyExists(ErrnoStatus("mkdir", EEXIST)));
  EXPECT_TRUE(absl::IsResourceExhausted(ErrnoStatus("write", ENOSPC)));
}

TEST(ErrnoStatusTest, ReadsErrnoWhenNotGiven) {
  errno = EISDIR;
  const absl::Status st = ErrnoStatus("read d");
  EXPECT_EQ(st.message(), "read d: Is a directory");
}

}  // namespace
}  // namespace fsmove::base
