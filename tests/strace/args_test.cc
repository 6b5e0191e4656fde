// Tests for stage 2 of the strace parser: argument splitting (ArgList), string decoding to raw
// bytes, integers, flag sets and struct/array access.
#include "fsmove/strace/args.h"

#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::strace {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Items(const ArgList& list) {
  std::vector<std::string> out;
  for (size_t i = 0; i < list.size(); ++i) out.emplace_back(list[i]);
  return out;
}

std::vector<std::string> Items(const absl::InlinedVector<std::string_view, 4>& items) {
  return std::vector<std::string>(items.begin(), items.end());
}

// ---------------------------------------------------------------------------------------------
// ArgList
// ---------------------------------------------------------------------------------------------

TEST(ArgsListTest, SplitsTopLevelCommasAndTrims) {
  ArgList list(R"x(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC)x");
  EXPECT_THAT(Items(list), ElementsAre("AT_FDCWD", "\"/etc/ld.so.cache\"", "O_RDONLY|O_CLOEXEC"));
}

TEST(ArgsListTest, EmptyAndBlankArgumentText) {
  EXPECT_EQ(ArgList("").size(), 0u);
  EXPECT_EQ(ArgList("   ").size(), 0u);
  ArgList one("3");
  EXPECT_THAT(Items(one), ElementsAre("3"));
}

TEST(ArgsListTest, OutOfRangeIndexIsEmpty) {
  ArgList list("1, 2");
  EXPECT_EQ(list[1], "2");
  EXPECT_EQ(list[2], "");
  EXPECT_EQ(list[100], "");
}

TEST(ArgsListTest, CommasInsideStringsDoNotSplit) {
  ArgList list(R"x(AT_FDCWD, "/tmp/a, b\", c", O_RDONLY)x");
  EXPECT_THAT(Items(list), ElementsAre("AT_FDCWD", R"x("/tmp/a, b\", c")x", "O_RDONLY"));
}

TEST(ArgsListTest, NestedStructsAndArraysStayWhole) {  // real
  ArgList list(R"x(3, "", {st_mode=S_IFREG|0644, st_size=47343, ...}, AT_EMPTY_PATH)x");
  EXPECT_THAT(Items(list), ElementsAre("3", "\"\"", "{st_mode=S_IFREG|0644, st_size=47343, ...}",
                                       "AT_EMPTY_PATH"));
  ArgList wv(R"x(1, [{iov_base="a, b", iov_len=4}, {iov_base="\n", iov_len=1}], 2)x");
  EXPECT_THAT(
      Items(wv),
      ElementsAre("1", R"x([{iov_base="a, b", iov_len=4}, {iov_base="\n", iov_len=1}])x", "2"));
}

TEST(ArgsListTest, TrailingEmptyArgumentIsKept) {
  ArgList list("3,");
  EXPECT_THAT(Items(list), ElementsAre("3", ""));
}

TEST(ArgsListTest, DecorationWithCommaInPath) {
  ArgList list(R"x(3</tmp/a, b>, "x", 5)x");
  EXPECT_THAT(Items(list), ElementsAre("3</tmp/a, b>", "\"x\"", "5"));
  ArgList at(R"x(AT_FDCWD</srv/a,b>, "x", O_RDONLY)x");
  EXPECT_THAT(Items(at), ElementsAre("AT_FDCWD</srv/a,b>", "\"x\"", "O_RDONLY"));
}

TEST(ArgsListTest, VerboseAtFdcwdDecorationWithCommaInPath) {
  ArgList list(R"x(-100 /* AT_FDCWD */</srv/a, b>, "x", 0x80000 /* O_RDONLY|O_CLOEXEC */)x");
  EXPECT_THAT(Items(list), ElementsAre("-100 /* AT_FDCWD */</srv/a, b>", "\"x\"",
                                       "0x80000 /* O_RDONLY|O_CLOEXEC */"));
}

TEST(ArgsListTest, RealDecoratedPathsWithCommasAndParentheses) {  // real -yy -X verbose
  ArgList list(
      R"x(-100 /* AT_FDCWD */</tmp/sx/a (b), c\74d\76e Ex>, "./out, x", 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0666)x");
  ASSERT_EQ(list.size(), 4u);
  EXPECT_EQ(list[0], R"x(-100 /* AT_FDCWD */</tmp/sx/a (b), c\74d\76e Ex>)x");
  EXPECT_EQ(list[1], "\"./out, x\"");
  EXPECT_EQ(list[3], "0666");
  int64_t dirfd = 0;
  ASSERT_TRUE(ParseInt(list[0], &dirfd));
  EXPECT_EQ(dirfd, -100);
  ArgList dup(R"x(4</tmp/sx/a (b), c\74d\76e Ex/out, x>, 1)x");
  EXPECT_THAT(Items(dup), ElementsAre(R"x(4</tmp/sx/a (b), c\74d\76e Ex/out, x>)x", "1"));
  ArgList dev("2</dev/null<char 1:3>>, \"x, y\", 4");
  EXPECT_THAT(Items(dev), ElementsAre("2</dev/null<char 1:3>>", "\"x, y\"", "4"));
}

TEST(ArgsListTest, SocketDecorationWithArrow) {
  ArgList list("3<TCP:[1.2.3.4:22->5.6.7.8:99]>, {sa_family=AF_INET, sin_port=htons(22)}, 16");
  EXPECT_THAT(Items(list), ElementsAre("3<TCP:[1.2.3.4:22->5.6.7.8:99]>",
                                       "{sa_family=AF_INET, sin_port=htons(22)}", "16"));
}

TEST(ArgsListTest, NamedArguments) {  // real
  ArgList list(
      "child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, "
      "child_tidptr=0x7fdbad4b5a10");
  EXPECT_EQ(list.Named("flags"), "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
  EXPECT_EQ(list.Named("child_stack"), "NULL");
  EXPECT_EQ(list.Named("child"), "");  // a prefix of a name is not the name
  EXPECT_EQ(list.Named("tidptr"), "");
  EXPECT_EQ(list.Named("missing"), "");
}

// ---------------------------------------------------------------------------------------------
// DecodeString
// ---------------------------------------------------------------------------------------------

// The threaded reader's first stage keeps a split list as offsets; the second stage's list
// made from them is the one SplitUntilClose made, views and all.
TEST(ArgsListTest, SavedSplitRestoresTheSameList) {
  for (std::string_view rest : {
           std::string_view("AT_FDCWD, \"/etc/a,b\", O_RDONLY|O_CLOEXEC) = 3"),
           std::string_view("3</srv/x (1)>, {st_mode=S_IFREG|0644, ...}, 0) = 0"),
           std::string_view(") = 0"),
           std::string_view(" , ) = 0"),
           std::string_view("1, 2, 3, 4, 5, 6, 7, 8) = 0"),
           std::string_view("\"/never closed"),
       }) {
    ArgList split;
    const size_t close = split.SplitUntilClose(rest);
    std::vector<uint32_t> saved = {7};  // after what an earlier line kept
    split.SaveTo(rest, close, &saved);
    ArgList restored;
    EXPECT_EQ(restored.RestoreFrom(rest, saved.data() + 1), close) << rest;
    ASSERT_EQ(restored.size(), split.size()) << rest;
    for (size_t i = 0; i < split.size(); ++i) {
      EXPECT_EQ(restored[i].data(), split[i].data()) << rest;
      EXPECT_EQ(restored[i].size(), split[i].size()) << rest;
    }
  }
}

TEST(ArgsDecodeStringTest, PlainString) {
  std::string out;
  bool cut = true;
  ASSERT_TRUE(DecodeString("\"/etc/passwd\"", &out, &cut));
  EXPECT_EQ(out, "/etc/passwd");
  EXPECT_FALSE(cut);
  ASSERT_TRUE(DecodeString("\"\"", &out));
  EXPECT_EQ(out, "");
}

TEST(ArgsDecodeStringTest, CEscapes) {
  std::string out;
  ASSERT_TRUE(DecodeString(R"x("a\nb\tc\rd\ve\ff\ag\bh")x", &out));
  EXPECT_EQ(out, "a\nb\tc\rd\ve\ff\ag\bh");
}

TEST(ArgsDecodeStringTest, QuoteAndBackslashEscapes) {
  std::string out;
  ASSERT_TRUE(DecodeString(R"x("we ird\n\"name\"\\x")x", &out));
  EXPECT_EQ(out, "we ird\n\"name\"\\x");
}

TEST(ArgsDecodeStringTest, OctalEscapesAreRawBytes) {
  std::string out;
  ASSERT_TRUE(DecodeString(R"x("caf\303\251.txt")x", &out));
  EXPECT_EQ(out, "caf\xc3\xa9.txt");
  ASSERT_TRUE(DecodeString(R"x("\33[0;32mInfo")x", &out));
  EXPECT_EQ(out, "\x1b[0;32mInfo");
  ASSERT_TRUE(DecodeString(R"x("\377\0")x", &out));
  EXPECT_EQ(out, std::string("\xff\0", 2));
}

TEST(ArgsDecodeStringTest, OctalEscapeFollowedByDigit) {
  // strace writes three octal digits when a digit follows: "\0001" is NUL then '1'.
  std::string out;
  ASSERT_TRUE(DecodeString(R"x("\0001\0112")x", &out));
  EXPECT_EQ(out, std::string("\0"
                             "1\t2",
                             4));
}

TEST(ArgsDecodeStringTest, HexEscapes) {
  std::string out;
  ASSERT_TRUE(DecodeString(R"x("\x2f\x65\x74\x63")x", &out));  // -xx
  EXPECT_EQ(out, "/etc");
  ASSERT_TRUE(DecodeString(R"x("/tmp/\xc3\xa9\xFF")x", &out));  // -x
  EXPECT_EQ(out, "/tmp/\xc3\xa9\xff");
}

TEST(ArgsDecodeStringTest, PrefixStopsAtTheCapTheQuoteOrTheText) {
  char out[8];
  std::string_view (*view)(const char*, size_t) = [](const char* p, size_t n) {
    return std::string_view(p, n);
  };
  EXPECT_EQ(view(out, DecodeStringPrefix(R"x("\33[0;32mInfo: x")x", out, 8)), "\x1b[0;32mI");
  EXPECT_EQ(view(out, DecodeStringPrefix(R"x("\x49\x6e\x66\x6f")x", out, 8)), "Info");
  EXPECT_EQ(view(out, DecodeStringPrefix(R"x("ab"...)x", out, 8)), "ab");
  EXPECT_EQ(view(out, DecodeStringPrefix(R"x("a\)x", out, 8)), "a");  // a cut escape
  EXPECT_EQ(DecodeStringPrefix("0x7ffe", out, 8), 0u);
  // Decodes as DecodeString does, escape for escape.
  std::string whole;
  const std::string_view token = R"x("\0001\t\\\"\303\251\x2fz")x";
  ASSERT_TRUE(DecodeString(token, &whole));
  char all[16];
  EXPECT_EQ(view(all, DecodeStringPrefix(token, all, sizeof all)), whole);
  EXPECT_EQ(view(out, DecodeStringPrefix(token, out, 8)), whole.substr(0, 8));
}

TEST(ArgsDecodeStringTest, TruncatedStringIsFlagged) {  // shape from strace(1)
  std::string out;
  bool cut = false;
  ASSERT_TRUE(DecodeString(R"x("root::0:0:System Administrator:/"...)x", &out, &cut));
  EXPECT_EQ(out, "root::0:0:System Administrator:/");
  EXPECT_TRUE(cut);
  ASSERT_TRUE(DecodeString(R"x("abc")x", &out, &cut));
  EXPECT_FALSE(cut);
}

TEST(ArgsDecodeStringTest, NotAStringIsRejected) {
  std::string out = "stale";
  bool cut = true;
  EXPECT_FALSE(DecodeString("NULL", &out, &cut));
  EXPECT_EQ(out, "");
  EXPECT_FALSE(cut);
  EXPECT_FALSE(DecodeString("0x7ffe138d9860", &out));
  EXPECT_FALSE(DecodeString("", &out));
}

TEST(ArgsDecodeStringTest, UnterminatedStringIsRejected) {
  std::string out;
  EXPECT_FALSE(DecodeString("\"/usr/lib/ruby", &out));
  EXPECT_FALSE(DecodeString("\"ends in backslash\\", &out));
  EXPECT_FALSE(DecodeString("\"escaped quote\\\"", &out));
}

// ---------------------------------------------------------------------------------------------
// ParseInt
// ---------------------------------------------------------------------------------------------

TEST(ArgsParseIntTest, DecimalNegativeHexOctal) {
  int64_t v = 0;
  ASSERT_TRUE(ParseInt("1023", &v));
  EXPECT_EQ(v, 1023);
  ASSERT_TRUE(ParseInt("-1", &v));
  EXPECT_EQ(v, -1);
  ASSERT_TRUE(ParseInt("0x7ffe138d9860", &v));
  EXPECT_EQ(v, 0x7ffe138d9860);
  ASSERT_TRUE(ParseInt("0755", &v));
  EXPECT_EQ(v, 0755);
  ASSERT_TRUE(ParseInt("0", &v));
  EXPECT_EQ(v, 0);
  ASSERT_TRUE(ParseInt("  42 ", &v));
  EXPECT_EQ(v, 42);
}

TEST(ArgsParseIntTest, AtFdcwdForms) {
  int64_t v = 0;
  ASSERT_TRUE(ParseInt("AT_FDCWD", &v));
  EXPECT_EQ(v, -100);
  v = 0;
  ASSERT_TRUE(ParseInt("AT_FDCWD</tmp/exp>", &v));
  EXPECT_EQ(v, -100);
  v = 0;
  ASSERT_TRUE(ParseInt("-100 /* AT_FDCWD */", &v));
  EXPECT_EQ(v, -100);
  v = 0;
  ASSERT_TRUE(ParseInt("-100 /* AT_FDCWD */</tmp/exp>", &v));
  EXPECT_EQ(v, -100);
}

TEST(ArgsParseIntTest, DecoratedDescriptor) {
  int64_t v = 0;
  ASSERT_TRUE(ParseInt("3</etc/ld.so.cache>", &v));
  EXPECT_EQ(v, 3);
  ASSERT_TRUE(ParseInt("12<TCP:[1.2.3.4:22->5.6.7.8:99]>", &v));
  EXPECT_EQ(v, 12);
}

// Found by strace_line_fuzzer: the negation of 9223372036854775808 overflowed (undefined
// behaviour, caught by UBSan) for the argument `-9223372036854775808` of a writev line.
TEST(ArgsParseIntTest, Int64MinimumIsNotAnOverflow) {
  int64_t v = 0;
  ASSERT_TRUE(ParseInt("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  ASSERT_TRUE(ParseInt("-0x8000000000000000", &v));
  EXPECT_EQ(v, INT64_MIN);
  ASSERT_TRUE(ParseInt("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(ParseInt("0xffffffffffffffff", &v));
  EXPECT_EQ(v, -1);
  ArgList args("1, -9223372036854775808mI199");  // the fuzzer's argument, minimised
  ASSERT_TRUE(ParseInt(args[1], &v));
  EXPECT_EQ(v, INT64_MIN);
}

TEST(ArgsParseIntTest, NonNumbersAreRejected) {
  int64_t v = 77;
  EXPECT_FALSE(ParseInt("NULL", &v));
  EXPECT_FALSE(ParseInt("", &v));
  EXPECT_FALSE(ParseInt("-", &v));
  EXPECT_FALSE(ParseInt("\"3\"", &v));
  EXPECT_FALSE(ParseInt("O_RDONLY", &v));
  EXPECT_EQ(v, 77);
}

// ---------------------------------------------------------------------------------------------
// ParseFlags
// ---------------------------------------------------------------------------------------------

constexpr FlagName kOpenFlags[] = {
    {"O_RDONLY", 0},  {"O_WRONLY", 01},   {"O_RDWR", 02},      {"O_CREAT", 0100},
    {"O_EXCL", 0200}, {"O_TRUNC", 01000}, {"O_APPEND", 02000}, {"O_CLOEXEC", 02000000},
};

TEST(ArgsParseFlagsTest, Symbolic) {
  EXPECT_EQ(ParseFlags("O_WRONLY|O_CREAT|O_TRUNC", kOpenFlags), 01101u);
  EXPECT_EQ(ParseFlags("O_RDONLY|O_CLOEXEC", kOpenFlags), 02000000u);
  EXPECT_EQ(ParseFlags("O_RDONLY", kOpenFlags), 0u);
}

TEST(ArgsParseFlagsTest, UnknownNamesAreIgnored) {
  EXPECT_EQ(ParseFlags("O_WRONLY|O_NOFOLLOW|O_DIRECTORY", kOpenFlags), 01u);
  EXPECT_EQ(ParseFlags("O_CREATX", kOpenFlags), 0u);  // whole words only
}

TEST(ArgsParseFlagsTest, SymbolicWithNumericRemainder) {
  EXPECT_EQ(ParseFlags("O_WRONLY|0x400000", kOpenFlags), 0x400001u);
}

TEST(ArgsParseFlagsTest, RawNumeric) {
  EXPECT_EQ(ParseFlags("0x241", kOpenFlags), 0x241u);
  EXPECT_EQ(ParseFlags("01101", kOpenFlags), 01101u);
  EXPECT_EQ(ParseFlags("577", kOpenFlags), 577u);
}

TEST(ArgsParseFlagsTest, VerboseNumericAndSymbolic) {
  EXPECT_EQ(ParseFlags("0x241 /* O_WRONLY|O_CREAT|O_TRUNC */", kOpenFlags), 0x241u);
  EXPECT_EQ(ParseFlags("0x80000 /* O_RDONLY|O_CLOEXEC */", kOpenFlags), 0x80000u);
}

TEST(ArgsParseFlagsTest, CloneFlagsWithSignal) {  // real
  constexpr FlagName kClone[] = {
      {"CLONE_VM", 0x100}, {"CLONE_FS", 0x200}, {"CLONE_FILES", 0x400}, {"CLONE_THREAD", 0x10000}};
  EXPECT_EQ(ParseFlags("CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD", kClone), 0u);
  EXPECT_EQ(
      ParseFlags("CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM", kClone),
      0x10700u);
  EXPECT_EQ(ParseFlags("", kClone), 0u);
}

// ---------------------------------------------------------------------------------------------
// StructField and ArrayItems
// ---------------------------------------------------------------------------------------------

TEST(ArgsStructFieldTest, FieldsOfAStruct) {
  std::string_view st = "{st_mode=S_IFREG|0644, st_size=47343, ...}";
  EXPECT_EQ(StructField(st, "st_mode"), "S_IFREG|0644");
  EXPECT_EQ(StructField(st, "st_size"), "47343");
  EXPECT_EQ(StructField(st, "mode"), "");
  EXPECT_EQ(StructField(st, "st_ino"), "");
}

TEST(ArgsStructFieldTest, NotAStruct) {
  EXPECT_EQ(StructField("NULL", "flags"), "");
  EXPECT_EQ(StructField("{", "flags"), "");
  EXPECT_EQ(StructField("", "flags"), "");
  EXPECT_EQ(StructField("flags=1", "flags"), "");
}

TEST(ArgsStructFieldTest, NestedValues) {
  std::string_view st = "{sa_family=AF_INET, sin_port=htons(22), sin_addr=inet_addr(\"1.2.3.4\")}";
  EXPECT_EQ(StructField(st, "sin_port"), "htons(22)");
  EXPECT_EQ(StructField(st, "sin_addr"), "inet_addr(\"1.2.3.4\")");
  EXPECT_EQ(StructField("{a={b=1, c=2}, d=[1, 2]}", "d"), "[1, 2]");
  EXPECT_EQ(StructField("{a={b=1, c=2}, d=[1, 2]}", "a"), "{b=1, c=2}");
}

TEST(ArgsStructFieldTest, Clone3StructWithOutputPart) {  // real: the resumed clone3 argument 0
  std::string_view arg0 =
      "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|"
      "CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7fa07fc53990, "
      "parent_tid=0x7fa07fc53990, "
      "exit_signal=0, stack=0x7fa07fa53000, stack_size=0x1fff80, tls=0x7fa07fc536c0} => "
      "{parent_tid=[196]}";
  EXPECT_EQ(StructField(arg0, "flags"),
            "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|"
            "CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID");
  EXPECT_EQ(StructField(arg0, "tls"), "0x7fa07fc536c0");
  EXPECT_EQ(StructField(arg0, "parent_tid"), "0x7fa07fc53990");  // the input struct's field
  const std::string text = std::string(arg0) + ", 88";
  ArgList args(text);
  EXPECT_EQ(args.size(), 2u);
  EXPECT_EQ(args[1], "88");
}

TEST(ArgsStructFieldTest, StringValueWithBraces) {
  EXPECT_EQ(StructField(R"x({iov_base="a}b", iov_len=3})x", "iov_base"), R"x("a}b")x");
  EXPECT_EQ(StructField(R"x({iov_base="a}b", iov_len=3})x", "iov_len"), "3");
}

TEST(ArgsArrayItemsTest, IovArray) {  // real
  std::string_view arr =
      R"x([{iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/etc/fsmove-test]: Evaluated in 0.01 seconds\33[0m", iov_len=84}, {iov_base="\n", iov_len=1}])x";
  auto items = ArrayItems(arr);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(
      items[0],
      R"x({iov_base="\33[0;32mInfo: /Stage[main]/Main/File[/etc/fsmove-test]: Evaluated in 0.01 seconds\33[0m", iov_len=84})x");
  EXPECT_EQ(items[1], R"x({iov_base="\n", iov_len=1})x");
}

TEST(ArgsArrayItemsTest, SimpleAndEmptyArrays) {
  EXPECT_THAT(Items(ArrayItems("[4, 5]")), ElementsAre("4", "5"));
  EXPECT_THAT(Items(ArrayItems("[]")), ElementsAre());
  EXPECT_THAT(Items(ArrayItems(R"x(["sh", "-c", "a, b"])x")),
              ElementsAre("\"sh\"", "\"-c\"", "\"a, b\""));
  EXPECT_THAT(Items(ArrayItems(R"x(["/usr/lib/bin"..., "sock.py"])x")),
              ElementsAre("\"/usr/lib/bin\"...", "\"sock.py\""));
}

TEST(ArgsArrayItemsTest, NotAnArray) {
  EXPECT_THAT(Items(ArrayItems("NULL")), ElementsAre());
  EXPECT_THAT(Items(ArrayItems("[")), ElementsAre());
  EXPECT_THAT(Items(ArrayItems("{a=1}")), ElementsAre());
}

TEST(ArgsArrayItemsTest, ArrayFollowedByOutputPart) {
  EXPECT_THAT(Items(ArrayItems("[1, 2] => [3]")), ElementsAre("1", "2"));
  EXPECT_THAT(Items(ArrayItems(R"x(["a]", "b"])x")), ElementsAre("\"a]\"", "\"b\""));
}

}  // namespace
}  // namespace fsmove::strace
