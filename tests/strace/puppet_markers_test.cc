// Tests for Puppet's evaltrace markers: the bytes write/writev wrote, begin/end message
// recognition with and without colour, and the trailing resource reference of a source path.
#include "fsmove/strace/puppet_markers.h"

#include <string>

#include "fsmove/strace/strace_line.h"
#include "gtest/gtest.h"

namespace fsmove::strace {
namespace {

// The argument text of a complete strace line (what the analyzer hands to WrittenBytes).
std::string ArgsOf(std::string_view line) {
  LineHead head = ParseLineHead(line);
  CallTail tail;
  EXPECT_TRUE(ParseCallTail(head.rest, &tail)) << line;
  return std::string(tail.args);
}

// ---------------------------------------------------------------------------------------------
// WrittenBytes
// ---------------------------------------------------------------------------------------------

TEST(MarkerWrittenBytesTest, Write) {  // real
  int fd = -1;
  std::string bytes;
  bool cut = true;
  ASSERT_TRUE(WrittenBytes(WrittenForm::kBuffer,
                           ArgsOf(R"x(201   write(1, "x86_64\n", 7)           = 7)x"), &fd, &bytes,
                           &cut));
  EXPECT_EQ(fd, 1);
  EXPECT_EQ(bytes, "x86_64\n");
  EXPECT_FALSE(cut);
}

TEST(MarkerWrittenBytesTest, WritevJoinsTheIovecs) {  // real
  int fd = -1;
  std::string bytes;
  bool cut = true;
  ASSERT_TRUE(WrittenBytes(
      WrittenForm::kIovecs,
      ArgsOf(
          R"x(190   writev(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/etc/fsmove-test]: Starting to evaluate the resource (5 of 8)\33[0m", iov_len=101}, {iov_base="\n", iov_len=1}], 2) = 102)x"),
      &fd, &bytes, &cut));
  EXPECT_EQ(fd, 1);
  EXPECT_EQ(bytes,
            "\x1b[0;32mInfo: /Stage[main]/Main/File[/etc/fsmove-test]: Starting to evaluate the "
            "resource (5 of 8)\x1b[0m\n");
  EXPECT_FALSE(cut);
}

TEST(MarkerWrittenBytesTest, TruncatedStringIsFlagged) {  // shape of anchors.md 1.3 under -s 300
  int fd = -1;
  std::string bytes;
  bool cut = false;
  ASSERT_TRUE(WrittenBytes(
      WrittenForm::kIovecs,
      R"x(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/tmp/xxxx"..., iov_len=371}, {iov_base="\n", iov_len=1}], 2)x",
      &fd, &bytes, &cut));
  EXPECT_EQ(bytes, "\x1b[0;32mInfo: /Stage[main]/Main/File[/tmp/xxxx\n");
  EXPECT_TRUE(cut);
  ASSERT_TRUE(WrittenBytes(WrittenForm::kBuffer, R"x(2, "Info: abc"..., 300)x", &fd, &bytes, &cut));
  EXPECT_EQ(fd, 2);
  EXPECT_EQ(bytes, "Info: abc");
  EXPECT_TRUE(cut);
}

TEST(MarkerWrittenBytesTest, AbbreviatedIovArrayIsTruncated) {
  int fd = -1;
  std::string bytes;
  bool cut = false;
  ASSERT_TRUE(WrittenBytes(WrittenForm::kIovecs, R"x(1, [{iov_base="ab", iov_len=2}, ...], 40)x",
                           &fd, &bytes, &cut));
  EXPECT_EQ(bytes, "ab");
  EXPECT_TRUE(cut);
}

TEST(MarkerWrittenBytesTest, DecoratedDescriptor) {
  int fd = -1;
  std::string bytes;
  bool cut = false;
  ASSERT_TRUE(
      WrittenBytes(WrittenForm::kBuffer, R"x(1</dev/pts/0>, "hi\n", 3)x", &fd, &bytes, &cut));
  EXPECT_EQ(fd, 1);
  EXPECT_EQ(bytes, "hi\n");
  ASSERT_TRUE(
      WrittenBytes(WrittenForm::kBuffer, R"x(5<pipe:[4242]>, "\303\251", 2)x", &fd, &bytes, &cut));
  EXPECT_EQ(fd, 5);
  EXPECT_EQ(bytes, "\xc3\xa9");
}

TEST(MarkerWrittenBytesTest, RealTimedDecoratedMarker) {  // real: recorded with -ttt -T -yy
  std::string args = ArgsOf(
      R"x(192   1795331082.778425 writev(1</work/main/traces/.analyzer-files-ttt.partial/puppet.log>, [{iov_base="\33[0;32mInfo: Stage[main]: Starting to evaluate the resource (1 of 20)\33[0m", iov_len=73}, {iov_base="\n", iov_len=1}], 2) = 74 <0.000014>)x");
  EXPECT_TRUE(MayHoldMarker(args));
  int fd = -1;
  std::string bytes;
  bool cut = true;
  ASSERT_TRUE(WrittenBytes(WrittenForm::kIovecs, args, &fd, &bytes, &cut));
  EXPECT_EQ(fd, 1);
  EXPECT_FALSE(cut);
  Marker m;
  EXPECT_EQ(ParseMarker(bytes, &m), MarkerKind::kBegin);
  EXPECT_EQ(m.ref, "Stage[main]");
}

TEST(MarkerWrittenBytesTest, OtherShapesAreRejected) {
  int fd = -1;
  std::string bytes;
  bool cut = false;
  EXPECT_FALSE(WrittenBytes(WrittenForm::kBuffer, "3", &fd, &bytes, &cut));
  EXPECT_FALSE(WrittenBytes(WrittenForm::kBuffer, "NULL, \"abc\", 3", &fd, &bytes, &cut));
  EXPECT_FALSE(WrittenBytes(WrittenForm::kBuffer, "1, 0x7ffe138d9860, 3", &fd, &bytes, &cut));
  EXPECT_FALSE(WrittenBytes(WrittenForm::kIovecs, "1, [{iov_base=0x7ffe, iov_len=3}], 1", &fd,
                            &bytes, &cut));
}

TEST(MarkerWrittenBytesTest, MayHoldMarkerOnRawText) {
  EXPECT_TRUE(MayHoldMarker(
      R"x(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/x]: Evaluated in 0.01 seconds\33[0m", iov_len=84}], 1)x"));
  EXPECT_FALSE(MayHoldMarker(R"x(1, "x86_64\n", 7)x"));
  // Only Puppet's stdout (or stderr) is read: the same text written elsewhere is not looked at.
  EXPECT_FALSE(MayHoldMarker(R"x(5, "\33[0;32mInfo: /Stage[main]/Main/File[/x]: Starting", 9)x"));
  EXPECT_FALSE(MayHoldMarker(R"x(12, "Info: x", 7)x"));
  EXPECT_TRUE(MayHoldMarker(R"x(1</dev/pts/0>, "\33[0;32mInfo: /File[/x]: Starting", 9)x"));
}

TEST(MarkerWrittenBytesTest, MayHoldMarkerReadsOnlyTheMessageStart) {
  // A marker is a whole message, its level first: text further in is not one (and a command's
  // long output on Puppet's stdout is not searched).
  EXPECT_FALSE(MayHoldMarker(R"x(1, "lscpu: Info: /Stage[main]: Starting to evaluate", 40)x"));
  EXPECT_TRUE(MayHoldMarker(R"x(1, "\x1b\x5b\x6dInfo: /Stage[main]: Starting", 9)x"));  // -xx
  EXPECT_TRUE(MayHoldMarker(R"x(2, "\33[0;36m\33[1mInfo: x", 9)x"));
  // Debug messages: only Puppet's own relationships.
  EXPECT_TRUE(MayHoldMarker(
      R"x(1, "\33[0;36mDebug: /Stage[main]/Main/File[/b]: Adding autorequire relationship with File[/a]\33[0m\n", 90)x"));
  EXPECT_FALSE(MayHoldMarker(R"x(1, "\33[0;36mDebug: Loading facts\33[0m\n", 30)x"));
}

TEST(MarkerWrittenBytesTest, AllHexStringsFromDashXx) {
  // strace -xx: "Info: /User[bob]: Evaluated in 0.01 seconds"
  std::string args =
      R"x(1, "\x49\x6e\x66\x6f\x3a\x20\x2f\x55\x73\x65\x72\x5b\x62\x6f\x62\x5d\x3a\x20\x45\x76\x61\x6c\x75\x61\x74\x65\x64\x20\x69\x6e\x20\x30\x2e\x30\x31\x20\x73\x65\x63\x6f\x6e\x64\x73", 43)x";
  EXPECT_TRUE(MayHoldMarker(args));
  int fd = -1;
  std::string bytes;
  bool cut = true;
  ASSERT_TRUE(WrittenBytes(WrittenForm::kBuffer, args, &fd, &bytes, &cut));
  EXPECT_EQ(bytes, "Info: /User[bob]: Evaluated in 0.01 seconds");
  Marker m;
  EXPECT_EQ(ParseMarker(bytes, &m), MarkerKind::kEnd);
  EXPECT_EQ(m.ref, "User[bob]");
}

// ---------------------------------------------------------------------------------------------
// ParseMarker
// ---------------------------------------------------------------------------------------------

TEST(MarkerParseTest, ColouredBegin) {  // real
  Marker m;
  EXPECT_EQ(
      ParseMarker("\x1b[0;32mInfo: /Stage[main]/Main/File[/etc/fsmove-test]: Starting to evaluate "
                  "the resource (5 of 8)\x1b[0m\n",
                  &m),
      MarkerKind::kBegin);
  EXPECT_EQ(m.kind, MarkerKind::kBegin);
  EXPECT_EQ(m.source, "/Stage[main]/Main/File[/etc/fsmove-test]");
  EXPECT_EQ(m.ref, "File[/etc/fsmove-test]");
  EXPECT_EQ(m.index, 5u);
  EXPECT_EQ(m.total, 8u);
}

TEST(MarkerParseTest, ColouredEnd) {  // real
  Marker m;
  EXPECT_EQ(
      ParseMarker("\x1b[0;32mInfo: /Stage[main]/Main/File[/etc/fsmove-test]: Evaluated in 0.01 "
                  "seconds\x1b[0m\n",
                  &m),
      MarkerKind::kEnd);
  EXPECT_EQ(m.kind, MarkerKind::kEnd);
  EXPECT_EQ(m.source, "/Stage[main]/Main/File[/etc/fsmove-test]");
  EXPECT_EQ(m.ref, "File[/etc/fsmove-test]");
}

TEST(MarkerParseTest, BeginWithoutOrWithBadCount) {
  Marker m;
  EXPECT_EQ(ParseMarker("Info: /Stage[main]/Main/Exec[run]: Starting to evaluate the resource", &m),
            MarkerKind::kBegin);
  EXPECT_EQ(m.index, 0u);
  EXPECT_EQ(m.total, 0u);
  EXPECT_EQ(ParseMarker("Info: /Stage[main]/Main/Exec[run]: Starting to evaluate the resource "
                        "(x of 99999999999999999999)",
                        &m),
            MarkerKind::kBegin);
  EXPECT_EQ(m.ref, "Exec[run]");
  EXPECT_EQ(m.index, 0u);
  EXPECT_EQ(m.total, 0u);
}

TEST(MarkerParseTest, PlainBeginAndEnd) {
  Marker m;
  EXPECT_EQ(
      ParseMarker(
          "Info: /Stage[main]/Main/Exec[run]: Starting to evaluate the resource (12 of 140)", &m),
      MarkerKind::kBegin);
  EXPECT_EQ(m.ref, "Exec[run]");
  EXPECT_EQ(m.index, 12u);
  EXPECT_EQ(m.total, 140u);
  EXPECT_EQ(ParseMarker("Info: /Stage[main]/Main/Exec[run]: Evaluated in 1.25 seconds\n", &m),
            MarkerKind::kEnd);
  EXPECT_EQ(m.source, "/Stage[main]/Main/Exec[run]");
  EXPECT_EQ(m.index, 0u);
}

TEST(MarkerParseTest, BeginWithoutCounter) {  // Puppet before 5
  Marker m;
  EXPECT_EQ(
      ParseMarker("Info: /Stage[main]/Main/Exec[echo (1 of 2)]: Starting to evaluate the resource",
                  &m),
      MarkerKind::kBegin);
  EXPECT_EQ(m.ref, "Exec[echo (1 of 2)]");
}

TEST(MarkerParseTest, TitleWithParenthesesAndCounter) {
  Marker m;
  EXPECT_EQ(
      ParseMarker(
          "Info: /Stage[main]/Main/Exec[a (b) c]: Starting to evaluate the resource (3 of 9)", &m),
      MarkerKind::kBegin);
  EXPECT_EQ(m.ref, "Exec[a (b) c]");
}

TEST(MarkerParseTest, WhitsClassesAndStages) {  // real
  Marker m;
  EXPECT_EQ(
      ParseMarker(
          "\x1b[0;32mInfo: Class[Settings]: Starting to evaluate the resource (2 of 8)\x1b[0m", &m),
      MarkerKind::kBegin);
  EXPECT_EQ(m.source, "Class[Settings]");
  EXPECT_EQ(m.ref, "Class[Settings]");
  EXPECT_EQ(ParseMarker("\x1b[0;32mInfo: Stage[main]: Evaluated in 0.00 seconds\x1b[0m", &m),
            MarkerKind::kEnd);
  EXPECT_EQ(m.ref, "Stage[main]");
}

TEST(MarkerParseTest, ScientificDuration) {
  Marker m;
  EXPECT_EQ(ParseMarker("Info: /User[bob]: Evaluated in 5.0e-05 seconds", &m), MarkerKind::kEnd);
  EXPECT_EQ(m.ref, "User[bob]");
}

TEST(MarkerParseTest, NonMarkersAreRejected) {
  Marker m;
  m.source = "untouched";
  EXPECT_EQ(ParseMarker("Info: Applying configuration version '1700000000'", &m),
            MarkerKind::kNone);
  EXPECT_EQ(
      ParseMarker("Debug: /Stage[main]/Main/File[/x]: Starting to evaluate the resource (1 of 2)",
                  &m),
      MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("\x1b[mNotice: /Stage[main]/Main/File[/x]/ensure: created\x1b[0m", &m),
            MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("Info: /Stage[main]/Main/File[/x]: Evaluated in soon seconds", &m),
            MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("Info: : Starting to evaluate the resource (1 of 2)", &m),
            MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("", &m), MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("x86_64\n", &m), MarkerKind::kNone);
  EXPECT_EQ(m.source, "untouched");
  EXPECT_EQ(m.kind, MarkerKind::kNone);
}

// Found by strace_line_fuzzer (UBSan: pointer overflow in ParseMarker): in "Evaluated in
// seconds" the text's " seconds" suffix overlaps ": Evaluated in ", the duration's view
// was cut by more than its size, and the digit check then read far past the message (a
// crash without sanitizers, for any process printing that to its stdout).
TEST(MarkerParseTest, EvaluatedInWithoutADurationIsNoMarker) {
  Marker m;
  EXPECT_EQ(ParseMarker("Info: : Evaluated in seconds", &m), MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("Info: /Stage[main]/Main/Exec[x]: Evaluated in seconds", &m),
            MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("Info: /Stage[main]/Main/Exec[x]: Evaluated in  seconds", &m),
            MarkerKind::kNone);
  EXPECT_EQ(ParseMarker("Info: /Stage[main]/Main/Exec[x]: Evaluated in 0 seconds", &m),
            MarkerKind::kEnd);
}

TEST(MarkerParseTest, TruncatedMarkerIsNotAMarker) {
  Marker m;
  EXPECT_EQ(ParseMarker("\x1b[0;32mInfo: /Stage[main]/Main/File[/tmp/xxxx\n", &m),
            MarkerKind::kNone);
}

TEST(MarkerParseTest, EscapedNonAsciiTitleThroughTheWholePath) {
  std::string line =
      R"x(190   writev(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/tmp/caf\303\251 \"q\" [1]: x]: Starting to evaluate the resource (7 of 9)\33[0m", iov_len=99}, {iov_base="\n", iov_len=1}], 2) = 100)x";
  int fd = -1;
  std::string bytes;
  bool cut = false;
  ASSERT_TRUE(WrittenBytes(WrittenForm::kIovecs, ArgsOf(line), &fd, &bytes, &cut));
  Marker m;
  ASSERT_EQ(ParseMarker(bytes, &m), MarkerKind::kBegin);
  EXPECT_EQ(m.source, "/Stage[main]/Main/File[/tmp/caf\xc3\xa9 \"q\" [1]: x]");
  EXPECT_EQ(m.ref, "File[/tmp/caf\xc3\xa9 \"q\" [1]: x]");
}

TEST(MarkerParseTest, RealOddTitlesThroughTheWholePath) {  // real
  struct Case {
    const char* line;
    const char* ref;
  } cases[] = {
      {R"x(192   writev(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/srv/fsmove/files/we[ir]d \"quoted\" 'name' \303\251.txt]: Starting to evaluate the resource (15 of 20)\33[0m", iov_len=135}, {iov_base="\n", iov_len=1}], 2) = 136)x",
       "File[/srv/fsmove/files/we[ir]d \"quoted\" 'name' \xc3\xa9.txt]"},
      {R"x(192   writev(1, [{iov_base="\33[0;32mInfo: /Stage[main]/Main/Notify[a title with\na newline]: Starting to evaluate the resource (16 of 20)\33[0m", iov_len=111}, {iov_base="\n", iov_len=1}], 2) = 112)x",
       "Notify[a title with\na newline]"},
  };
  for (const Case& c : cases) {
    int fd = -1;
    std::string bytes;
    bool cut = true;
    ASSERT_TRUE(WrittenBytes(WrittenForm::kIovecs, ArgsOf(c.line), &fd, &bytes, &cut)) << c.line;
    EXPECT_FALSE(cut);
    Marker m;
    EXPECT_EQ(ParseMarker(bytes, &m), MarkerKind::kBegin) << c.line;
    EXPECT_EQ(m.ref, c.ref);
    EXPECT_EQ(m.source, std::string("/Stage[main]/Main/") + c.ref);
  }
  // The Notice Puppet prints for the Notify is no marker.
  int fd = -1;
  std::string bytes;
  bool cut = true;
  ASSERT_TRUE(WrittenBytes(
      WrittenForm::kIovecs,
      ArgsOf(
          R"x(192   writev(1, [{iov_base="\33[mNotice: a title with\na newline\33[0m", iov_len=37}, {iov_base="\n", iov_len=1}], 2) = 38)x"),
      &fd, &bytes, &cut));
  Marker m;
  EXPECT_EQ(ParseMarker(bytes, &m), MarkerKind::kNone);
}

TEST(MarkerParseTest, DebugMessageOnUnfinishedWriteIsNoMarker) {  // real
  LineHead head = ParseLineHead(
      R"x(192   writev(1, [{iov_base="\33[0;36mDebug: Facter: Executing command: lspci\33[0m", iov_len=50}, {iov_base="\n", iov_len=1}], 2 <unfinished ...>)x");
  ASSERT_EQ(head.kind, LineKind::kUnfinished);
  EXPECT_FALSE(MayHoldMarker(head.rest));
  int fd = -1;
  std::string bytes;
  bool cut = true;
  ASSERT_TRUE(WrittenBytes(WrittenForm::kIovecs, head.rest, &fd, &bytes, &cut));
  EXPECT_EQ(bytes, "\x1b[0;36mDebug: Facter: Executing command: lspci\x1b[0m\n");
  Marker m;
  EXPECT_EQ(ParseMarker(bytes, &m), MarkerKind::kNone);
}

// ---------------------------------------------------------------------------------------------
// RefFromSource
// ---------------------------------------------------------------------------------------------

TEST(MarkerRefFromSourceTest, SimpleResource) {
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/File[/tmp/x]"), "File[/tmp/x]");
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/Package[nginx]"), "Package[nginx]");
}

TEST(MarkerRefFromSourceTest, TitleWithSpacesSlashesAndColons) {
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/Exec[/bin/echo a: b/c d]"),
            "Exec[/bin/echo a: b/c d]");
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/Exec[echo 'it''s' \"q\"]"),
            "Exec[echo 'it''s' \"q\"]");
}

TEST(MarkerRefFromSourceTest, TitleWithBrackets) {
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/File[/srv/Data[1]]"), "File[/srv/Data[1]]");
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/File[/tmp/Foo[1]/Bar[x]]"),
            "File[/tmp/Foo[1]/Bar[x]]");
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/Exec[run /Notify[x]]"), "Exec[run /Notify[x]]");
}

TEST(MarkerRefFromSourceTest, UnbalancedTitleFallsBackToTheRightmostReference) {
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/File[/tmp/x[y]"), "File[/tmp/x[y]");
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/Exec[a]b]"), "Exec[a]b]");
}

TEST(MarkerRefFromSourceTest, NonAsciiTitle) {
  EXPECT_EQ(RefFromSource("/Stage[main]/Main/File[/tmp/caf\xc3\xa9]"), "File[/tmp/caf\xc3\xa9]");
}

TEST(MarkerRefFromSourceTest, NestedDefinedTypes) {
  EXPECT_EQ(RefFromSource("/Stage[main]/App/App::Inst[one]/File[/x]"), "File[/x]");
  EXPECT_EQ(RefFromSource("/Stage[main]/App/App::Inst[one]"), "App::Inst[one]");
  EXPECT_EQ(RefFromSource(
                "/Stage[main]/Apt/Apt::Source[deb]/Apt::Setting[list-deb]/File[/etc/apt/x.list]"),
            "File[/etc/apt/x.list]");
  EXPECT_EQ(RefFromSource("/Stage[main]/Apt/Apt::Source[deb]/Apt::Setting[list-deb]"),
            "Apt::Setting[list-deb]");
}

TEST(MarkerRefFromSourceTest, WhitsAndParentlessReferences) {
  EXPECT_EQ(RefFromSource("Class[App]"), "Class[App]");
  EXPECT_EQ(RefFromSource("/User[bob]"), "User[bob]");
  EXPECT_EQ(RefFromSource("Stage[main]"), "Stage[main]");
  EXPECT_EQ(RefFromSource("/Stage[main]/Whit[Admissible_class[App]]"),
            "Whit[Admissible_class[App]]");
}

TEST(MarkerRefFromSourceTest, SourceWithoutReferenceIsUnchanged) {
  EXPECT_EQ(RefFromSource("/Stage[main]/Main"), "/Stage[main]/Main");
  EXPECT_EQ(RefFromSource("Puppet"), "Puppet");
  EXPECT_EQ(RefFromSource(""), "");
  EXPECT_EQ(RefFromSource("/x/[abc]"), "/x/[abc]");
  EXPECT_EQ(RefFromSource("/lower[abc]"), "/lower[abc]");
}

// ---------------------------------------------------------------------------------------------
// Cut colour resets and Puppet's autorelation debug messages
// ---------------------------------------------------------------------------------------------

TEST(MarkerParseTest, BeginWhoseColourResetWasCutStillCounts) {  // shape seen under -s 300
  Marker m;
  for (std::string_view tail : {"\x1b[0", "\x1b[", "\x1b"}) {
    std::string text =
        "\x1b[0;32mInfo: /Stage[main]/Main/File[/tmp/x]: Starting to evaluate the "
        "resource (5 of 15)";
    text += tail;
    ASSERT_EQ(ParseMarker(text, &m), MarkerKind::kBegin) << text;
    EXPECT_EQ(m.ref, "File[/tmp/x]");
    EXPECT_EQ(m.index, 5u);
  }
}

TEST(AutoRelationParseTest, RealAutorequireOfAModuleType) {  // real, corpus auditd
  std::string args = ArgsOf(
      R"x(76    writev(1, [{iov_base="\33[0;36mDebug: /Stage[main]/Auditd/Fm_prepend[/etc/audit/auditd.conf]: Adding autorequire relationship with File[/etc/audit/auditd.conf]\33[0m", iov_len=139}, {iov_base="\n", iov_len=1}], 2) = 140)x");
  EXPECT_TRUE(MayHoldMarker(args));
  int fd = -1;
  std::string bytes;
  bool cut = true;
  ASSERT_TRUE(WrittenBytes(WrittenForm::kIovecs, args, &fd, &bytes, &cut));
  Marker m;
  EXPECT_EQ(ParseMarker(bytes, &m), MarkerKind::kNone);
  AutoRelationMessage r;
  ASSERT_TRUE(ParseAutoRelation(bytes, &r));
  EXPECT_EQ(r.ref, "Fm_prepend[/etc/audit/auditd.conf]");
  EXPECT_EQ(r.other, "File[/etc/audit/auditd.conf]");
  EXPECT_TRUE(r.other_first);
  EXPECT_FALSE(r.refresh);
}

TEST(AutoRelationParseTest, KindsAndDirections) {
  AutoRelationMessage r;
  ASSERT_TRUE(ParseAutoRelation(
      "Debug: /Stage[main]/Main/Openldap::Server::Dbindex[uid index]/Openldap_dbindex[uid "
      "index]: Adding autorequire relationship with Openldap_database[dc=example,dc=com]",
      &r));
  EXPECT_EQ(r.ref, "Openldap_dbindex[uid index]");
  EXPECT_EQ(r.other, "Openldap_database[dc=example,dc=com]");
  ASSERT_TRUE(
      ParseAutoRelation("Debug: /File[/a]: Adding autobefore relationship with Exec[b]", &r));
  EXPECT_FALSE(r.other_first);
  EXPECT_FALSE(r.refresh);
  ASSERT_TRUE(
      ParseAutoRelation("Debug: /File[/a]: Adding autonotify relationship with Service[b]", &r));
  EXPECT_FALSE(r.other_first);
  EXPECT_TRUE(r.refresh);
  ASSERT_TRUE(
      ParseAutoRelation("Debug: /Service[a]: Adding autosubscribe relationship with File[/b]", &r));
  EXPECT_TRUE(r.other_first);
  EXPECT_TRUE(r.refresh);
}

TEST(AutoRelationParseTest, OtherMessagesAreRejected) {
  AutoRelationMessage r;
  EXPECT_FALSE(
      ParseAutoRelation("Info: /File[/a]: Adding autorequire relationship with File[/]", &r));
  EXPECT_FALSE(ParseAutoRelation("Debug: /File[/a]: Adding autofoo relationship with File[/]", &r));
  EXPECT_FALSE(
      ParseAutoRelation("Debug: /File[/a]: Adding autorequire relationship with nothing", &r));
  EXPECT_FALSE(ParseAutoRelation("Debug: Adding autorequire relationship with File[/]", &r));
  EXPECT_FALSE(ParseAutoRelation("Debug: Facter: Executing command: lspci", &r));
}

TEST(PuppetProblemTest, FailedAndSkippedResources) {  // shapes of the recorded traces
  PuppetProblem p;
  EXPECT_EQ(ParseProblem("\33[1;31mError: /Stage[main]/Main/Exec[use config]/returns: change from "
                         "'notrun' to ['0'] failed: 'cat x' returned 1 instead of one of [0]\33[0m",
                         &p),
            ProblemKind::kResourceFailed);
  EXPECT_EQ(p.ref, "Exec[use config]");
  EXPECT_EQ(p.message,
            "change from 'notrun' to ['0'] failed: 'cat x' returned 1 instead of one of [0]");
  // A provider that does not work here: the resource fails before Puppet evaluates it.
  EXPECT_EQ(ParseProblem("\33[1;31mError: /Service[auditd]: Provider redhat is not functional on "
                         "this host\33[0m\n",
                         &p),
            ProblemKind::kResourceFailed);
  EXPECT_EQ(p.ref, "Service[auditd]");
  EXPECT_EQ(ParseProblem("\33[mWarning: /Stage[main]/Main/File[/etc/a: b]: Skipping because of "
                         "failed dependencies\33[0m",
                         &p),
            ProblemKind::kResourceSkipped);
  EXPECT_EQ(p.ref, "File[/etc/a: b]");
  // A message of several lines (an exec's output): the first names the resource.
  EXPECT_EQ(ParseProblem("Error: /Stage[main]/Main/Exec[x]/returns: boom\nsecond line", &p),
            ProblemKind::kResourceFailed);
  EXPECT_EQ(p.message, "boom");
}

TEST(PuppetProblemTest, TheApplyItselfAndWhatIsNoProblem) {
  PuppetProblem p;
  EXPECT_EQ(ParseProblem("Error: Found 1 dependency cycle:\n(File[/a] => Exec[b] => File[/a])", &p),
            ProblemKind::kApplyFailed);
  EXPECT_EQ(p.message, "Found 1 dependency cycle:");
  EXPECT_EQ(ParseProblem("Error: Failed to apply catalog: Could not find dependency", &p),
            ProblemKind::kApplyFailed);
  // Errors that name no resource, sentences that end in one, other warnings, other levels.
  EXPECT_EQ(ParseProblem("Error: Could not prefetch cron provider 'crontab': boom", &p),
            ProblemKind::kNone);
  EXPECT_EQ(ParseProblem("Error: Could not start Service[x]: Execution of 'start' returned 1", &p),
            ProblemKind::kNone);
  EXPECT_EQ(ParseProblem("Warning: /Stage[main]/Main/File[/a]: something else", &p),
            ProblemKind::kNone);
  EXPECT_EQ(ParseProblem("Notice: /Stage[main]/Main/File[/a]/ensure: created", &p),
            ProblemKind::kNone);
  // The cheap test lets errors and skip warnings through, and no other warning.
  EXPECT_TRUE(
      MayHoldMarker(R"x(2, [{iov_base="\33[1;31mError: /Service[a]: x\33[0m", iov_len=9}], 1)x"));
  EXPECT_TRUE(MayHoldMarker(
      R"x(2, "\33[mWarning: /File[/a]: Skipping because of failed dependencies\33[0m\n", 70)x"));
  EXPECT_FALSE(MayHoldMarker(R"x(2, "\33[mWarning: /File[/a]: deprecated\33[0m\n", 40)x"));
}

}  // namespace
}  // namespace fsmove::strace
