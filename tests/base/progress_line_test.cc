#include "fsmove/base/progress_line.h"

#include <string>

#include "gtest/gtest.h"

namespace fsmove::base {
namespace {

TEST(ProgressLine, RewritesOneLineInPlaceAndErasesIt) {
  ::testing::internal::CaptureStderr();
  {
    ProgressLine line(true);
    line.Show("compiling the catalog...");
    line.Show("resource 1 of 2: File[/x]");
  }  // erased when it goes
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "\r\x1b[Kcompiling the catalog...\r\x1b[Kresource 1 of 2: File[/x]\r\x1b[K");
}

TEST(ProgressLine, CutsLongTextAndPrintsNothingWhenDisabled) {
  ::testing::internal::CaptureStderr();
  {
    ProgressLine cut(true, 10);
    cut.Show("0123456789abc");
    cut.Clear();
    cut.Clear();  // nothing shown: nothing to erase
    ProgressLine off(false);
    off.Show("hidden");
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "\r\x1b[K0123456...\r\x1b[K");
}

// A resource title from the sandbox cannot clear the screen, draw on it, or start a line the
// next rewrite would not erase.
TEST(ProgressLine, EscapesControlAndBidiCharacters) {
  ::testing::internal::CaptureStderr();
  {
    ProgressLine line(true);
    line.Show(
        "resource 1 of 2: Notify[x\x1b[2J\x1b[32mNo missing\n\xe2\x80\xae"
        "evil]");
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "\r\x1b[Kresource 1 of 2: Notify[x\\e[2J\\e[32mNo missing\\n\\u202eevil]\r\x1b[K");
}

TEST(ProgressLine, CutsAtACharacterBoundary) {
  ::testing::internal::CaptureStderr();
  {
    ProgressLine cut(true, 8);
    cut.Show("ab\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc");  // "abüüüü": the cut falls inside a ü
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "\r\x1b[Kab\xc3\xbc...\r\x1b[K");
}

}  // namespace
}  // namespace fsmove::base
