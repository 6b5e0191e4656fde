// Text from the sandbox never reaches a terminal or a report's viewer as instructions: control
// characters, C1 and bidirectional controls and invalid UTF-8 come out as visible escapes.
#include "fsmove/base/terminal_text.h"

#include <gtest/gtest.h>

#include <string>

#include "fsmove/base/json_output.h"
#include "nlohmann/json.hpp"

namespace fsmove::base {
namespace {

TEST(TerminalTextTest, C0ControlsAndDelAreEscaped) {
  EXPECT_EQ(TerminalSafe("Exec[\x1b]0;x\x07]"), "Exec[\\e]0;x\\x07]");
  EXPECT_EQ(TerminalSafe("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
  EXPECT_EQ(TerminalSafe("x\x1b[2Jy"), "x\\e[2Jy");
  EXPECT_EQ(TerminalSafe(std::string("nul\0!", 5)), "nul\\x00!");
  EXPECT_EQ(TerminalSafe("\x01\x1f\x08"), "\\x01\\x1f\\x08");
}

TEST(TerminalTextTest, C1ControlsAreEscaped) {
  EXPECT_EQ(TerminalSafe("csi \xc2\x9b"
                         "31m"),
            "csi \\u009b31m");
  EXPECT_EQ(TerminalSafe("\xc2\x80\xc2\x85\xc2\x9f"), "\\u0080\\u0085\\u009f");
}

TEST(TerminalTextTest, BidiControlsAndLineSeparatorsAreEscaped) {
  // U+202E RIGHT-TO-LEFT OVERRIDE, U+2067 RIGHT-TO-LEFT ISOLATE (Trojan Source).
  EXPECT_EQ(TerminalSafe("evil\xe2\x80\xae"
                         "txt.exe"),
            "evil\\u202etxt.exe");
  EXPECT_EQ(TerminalSafe("\xe2\x81\xa7x\xe2\x81\xa9"), "\\u2067x\\u2069");
  const std::pair<const char*, const char*> kAll[] = {
      {"\xd8\x9c", "\\u061c"},     {"\xe2\x80\x8e", "\\u200e"}, {"\xe2\x80\x8f", "\\u200f"},
      {"\xe2\x80\xaa", "\\u202a"}, {"\xe2\x80\xab", "\\u202b"}, {"\xe2\x80\xac", "\\u202c"},
      {"\xe2\x80\xad", "\\u202d"}, {"\xe2\x80\xae", "\\u202e"}, {"\xe2\x81\xa6", "\\u2066"},
      {"\xe2\x81\xa7", "\\u2067"}, {"\xe2\x81\xa8", "\\u2068"}, {"\xe2\x81\xa9", "\\u2069"},
      {"\xe2\x80\xa8", "\\u2028"}, {"\xe2\x80\xa9", "\\u2029"}};
  for (const auto& [raw, escaped] : kAll) {
    EXPECT_EQ(TerminalSafe(raw), escaped) << escaped;
    EXPECT_FALSE(IsTerminalSafe(raw)) << escaped;
  }
  // Neighbours of the ranges are ordinary text.
  for (const char* kept : {"\xe2\x80\xa7", "\xe2\x80\xaf", "\xe2\x81\xa5", "\xe2\x81\xaa",
                           "\xd8\x9b", "\xe2\x80\x8d"}) {
    EXPECT_EQ(TerminalSafe(kept), kept);
  }
}

TEST(TerminalTextTest, PrintableTextAndUtf8AreKept) {
  EXPECT_EQ(TerminalSafe("File[/etc/üñí [x]]"), "File[/etc/üñí [x]]");
  EXPECT_EQ(TerminalSafe("\xc2\xa0"), "\xc2\xa0");  // no-break space, not a C1 control
  EXPECT_EQ(TerminalSafe("日本語 \xf0\x9f\x98\x80 עברית"), "日本語 \xf0\x9f\x98\x80 עברית");
  EXPECT_EQ(TerminalSafe("C:\\temp \\e"), "C:\\temp \\e");  // backslashes as they are
  EXPECT_EQ(TerminalSafe(""), "");
  EXPECT_TRUE(IsTerminalSafe("File[/etc/üñí]"));
  EXPECT_TRUE(IsTerminalSafe(""));
}

TEST(TerminalTextTest, InvalidUtf8IsEscapedByteByByte) {
  EXPECT_EQ(TerminalSafe("a\xff"
                         "b"),
            "a\\xffb");
  EXPECT_EQ(TerminalSafe("\x9b"
                         "2J"),
            "\\x9b2J");                               // a raw C1 byte (8-bit CSI)
  EXPECT_EQ(TerminalSafe("\xe2\x80"), "\\xe2\\x80");  // cut short at the end
  EXPECT_EQ(TerminalSafe("\xe2\x80x"), "\\xe2\\x80x");
  EXPECT_EQ(TerminalSafe("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(TerminalSafe("\xe0\x80\xae"), "\\xe0\\x80\\xae");           // overlong '.'
  EXPECT_EQ(TerminalSafe("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(TerminalSafe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(TerminalSafe("\xf8\x88\x80\x80\x80"), "\\xf8\\x88\\x80\\x80\\x80");
  // An overlong spelling of U+202E is not U+202E, and is escaped all the same.
  EXPECT_EQ(TerminalSafe("\xf0\x82\x80\xae"), "\\xf0\\x82\\x80\\xae");
  EXPECT_FALSE(IsTerminalSafe("\xff"));
}

TEST(TerminalTextTest, DecodesUtf8Strictly) {
  EXPECT_EQ(DecodeUtf8("A", 0).code_point, U'A');
  EXPECT_EQ(DecodeUtf8("\xe2\x80\xae", 0).code_point, char32_t{0x202E});
  EXPECT_EQ(DecodeUtf8("\xe2\x80\xae", 0).length, 3u);
  EXPECT_EQ(DecodeUtf8("\xf0\x9f\x98\x80", 0).code_point, char32_t{0x1F600});
  EXPECT_EQ(DecodeUtf8("\xf4\x8f\xbf\xbf", 0).length, 4u);  // U+10FFFF
  EXPECT_EQ(DecodeUtf8("x\xc2", 1).length, 0u);
  EXPECT_EQ(DecodeUtf8("\x80", 0).length, 0u);
  EXPECT_EQ(DecodeUtf8("\xc1\xbf", 0).length, 0u);
}

TEST(TerminalTextTest, EscapingIsIdempotent) {
  const std::string once = TerminalSafe("a\x1b[2J\n\xe2\x80\xae\xff\xc2\x85");
  EXPECT_TRUE(IsTerminalSafe(once));
  EXPECT_EQ(TerminalSafe(once), once);
}

TEST(TerminalTextTest, LinesKeepTheirBreaksOnly) {
  EXPECT_EQ(TerminalSafeLines("one\ntwo\x1b[2J\t\xe2\x80\xae\n"), "one\ntwo\\e[2J\\t\\u202e\n");
}

TEST(TerminalTextTest, FormatControlsSpelledForJsonAndXml) {
  const std::string text = "a\xe2\x80\xae\xc2\x85\xe2\x80\xa8 ü\x1b\xff";
  EXPECT_EQ(EscapeFormatControls(text, JsonEscape), "a\\u202e\\u0085\\u2028 ü\x1b\xff");
  EXPECT_EQ(EscapeFormatControls(text, XmlCharRef), "a&#x202E;&#x0085;&#x2028; ü\x1b\xff");
}

TEST(TerminalTextTest, DumpedJsonHasNoRawControls) {
  // nlohmann escapes C0 but leaves U+202E and C1 raw with ensure_ascii off.
  const nlohmann::json j = {{"title",
                             "x\x1b[2J\n\xe2\x80\xae"
                             "evil\xc2\x9b\xff"}};
  ASSERT_NE(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).find("\xe2\x80\xae"),
            std::string::npos);
  const std::string dumped = DumpJson(j, -1);
  EXPECT_EQ(dumped, "{\"title\":\"x\\u001b[2J\\n\\u202eevil\\u009b\xef\xbf\xbd\"}");
  EXPECT_EQ(nlohmann::json::parse(dumped)["title"],
            "x\x1b[2J\n\xe2\x80\xae"
            "evil\xc2\x9b\xef\xbf\xbd");  // the same string to a JSON reader
  const nlohmann::ordered_json o = {{"k", "\xe2\x81\xa7"}};
  EXPECT_EQ(DumpJson(o, -1), "{\"k\":\"\\u2067\"}");
}

}  // namespace
}  // namespace fsmove::base
