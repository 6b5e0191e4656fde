#include "fsmove/base/progress_line.h"

#include <string>

#include "gtest/gtest.h"

namespace fsmove::base {
namespace {

TEST(ProgressLine, RewritesOneLineInPlaceAndErasesIt) {
  testing::internal::CaptureStderr();
  {
    ProgressLine line(true);
    line.Show("compiling the catalog...");
    line.Show("resource 1 of 2: File[/x]");
  }  // erased when it goes
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "\r\x1b[Kcompiling the catalog...\r\x1b[Kresource 1 of 2: File[/x]\r\x1b[K");
}

TEST(ProgressLine, CutsLongTextAndPrintsNothingWhenDisabled) {
  testing::internal::CaptureStderr();
  {
    ProgressLine cut(true, 10);
    cut.Show("0123456789abc");
    cut.Clear();
    cut.Clear();  // nothing shown: nothing to erase
    ProgressLine off(false);
    off.Show("hidden");
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "\r\x1b[K0123456...\r\x1b[K");
}

}  // namespace
}  // namespace fsmove::base
