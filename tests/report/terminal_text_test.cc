// Control characters from titles, paths and messages never reach the terminal raw.
#include "fsmove/report/terminal_text.h"

#include <gtest/gtest.h>

namespace fsmove::report {
namespace {

TEST(TerminalTextTest, ControlCharactersAreEscaped) {
  EXPECT_EQ(TerminalSafe("Exec[\x1b]0;x\x07]"), "Exec[\\e]0;x\\x07]");
  EXPECT_EQ(TerminalSafe("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
  EXPECT_EQ(TerminalSafe("csi \xc2\x9b"
                         "31m"),
            "csi \\u009b31m");
}

TEST(TerminalTextTest, PrintableTextAndUtf8AreKept) {
  EXPECT_EQ(TerminalSafe("File[/etc/üñí [x]]"), "File[/etc/üñí [x]]");
  EXPECT_EQ(TerminalSafe("\xc2\xa0"), "\xc2\xa0");  // no-break space, not a C1 control
  EXPECT_EQ(TerminalSafe(""), "");
}

}  // namespace
}  // namespace fsmove::report
