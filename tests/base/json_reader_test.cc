// JSON with located errors: syntax at SOURCE:LINE:COLUMN, content at a JSON pointer, one
// convention for every document fsmove reads.
#include "fsmove/base/json_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fsmove::base {
namespace {

std::string ParseError(std::string_view text, const JsonParseOptions& options = {}) {
  absl::StatusOr<nlohmann::json> j = ParseJson(text, "d.json", options);
  return j.ok() ? "ok" : std::string(j.status().message());
}

TEST(JsonReaderTest, ParsesADocument) {
  absl::StatusOr<nlohmann::json> j = ParseJson(R"({"a": [1, "x"]})", "d.json");
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)["a"][1], "x");
}

TEST(JsonReaderTest, SyntaxErrorsHaveLineAndColumn) {
  EXPECT_EQ(ParseError("{\n  \"a\": 1,\n  \"b\" 2\n}"),
            "d.json:3:7: not valid JSON: syntax error while parsing object separator - "
            "unexpected number literal; expected ':'");
  // Truncated: the position is the end of the text.
  EXPECT_EQ(ParseError("{\"a\": ["),
            "d.json:1:8: not valid JSON: syntax error while parsing value - unexpected "
            "end of input; expected '[', '{', or a literal");
}

TEST(JsonReaderTest, ANumberTooLargeIsFoundInTheText) {
  // nlohmann throws this one without a position.
  EXPECT_EQ(ParseError("{\"s\": \"1e400\",\n \"n\": 1e400}"),
            "d.json:2:7: not valid JSON: number overflow");
}

TEST(JsonReaderTest, RefusesDeepNestingBeforeParsing) {
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  EXPECT_EQ(ParseError(deep), "d.json:1:65: JSON nested deeper than 64 levels");
  JsonParseOptions options;
  options.max_depth = 65;
  EXPECT_EQ(ParseError(deep, options), "ok");
  // Brackets inside strings do not count.
  EXPECT_EQ(ParseError("[\"" + std::string(100, '[') + "\"]"), "ok");
}

TEST(JsonReaderTest, RefusesARepeatedKey) {
  EXPECT_EQ(ParseError("{\"resources\": [1],\n \"resources\": []}"),
            "d.json:2:2: a key repeated in one object (JSON keeps only the last value)");
}

TEST(JsonReaderTest, StartSkipsAPreambleButPositionsCountFromTheTop) {
  const std::string text = "Notice: Compiled catalog\n{\"a\": tru}";
  JsonParseOptions options;
  options.start = text.find('{');
  EXPECT_EQ(ParseError(text, options),
            "d.json:2:10: not valid JSON: syntax error while parsing value - invalid literal");
}

// A document read by mistake (a link to a private file, a token pasted in) must not reach a
// log: errors give the place and nlohmann's description, never the text they stopped at.
TEST(JsonReaderTest, ErrorsNeverQuoteTheInput) {
  const std::vector<std::string> secrets = {
      "SECRET-hunter2",           "{\"k\": SECRET-hunter2}",
      "{\"k\": \"SECRET-hunter2", "{\"SECRET-hunter2\": 1, \"SECRET-hunter2\": 2}",
      "[1e4000000000SECRET]",     "{\"k\": 1e999} SECRET-hunter2",
      "{\"k\": \"\\uSECRET\"}",   "{\"k\": tSECRET-hunter2'; expected ']'}",
      "{\"k\": -SECRET}"};
  for (const std::string& text : secrets) {
    const std::string error = ParseError(text);
    EXPECT_THAT(error, ::testing::StartsWith("d.json:")) << text;
    EXPECT_THAT(error, ::testing::Not(::testing::HasSubstr("SECRET"))) << error;
    EXPECT_THAT(error, ::testing::Not(::testing::HasSubstr("hunter2"))) << error;
  }
  // What follows the quoted text is kept when it is nlohmann's own name of a token.
  EXPECT_EQ(ParseError("{\"a\" 1}"),
            "d.json:1:6: not valid JSON: syntax error while parsing object separator - "
            "unexpected number literal; expected ':'");
}

TEST(JsonReaderTest, ACallbackCanDropElementsAsTheyComplete) {
  int seen = 0;
  JsonParseOptions options;
  options.callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if (depth == 2 && event == nlohmann::json::parse_event_t::object_end) {
      ++seen;
      return false;  // taken, not kept
    }
    return true;
  };
  absl::StatusOr<nlohmann::json> j =
      ParseJson(R"({"items": [{"a": 1}, {"a": 2}, {"a": 3}]})", "d.json", options);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(seen, 3);
  EXPECT_TRUE((*j)["items"].empty());
}

TEST(JsonReaderTest, ContentErrorsNameAPointer) {
  EXPECT_EQ(JsonError("d.json", "", "not a catalog").message(), "d.json: /: not a catalog");
  EXPECT_EQ(JsonTypeError("d.json", "/a/0", "a string", nlohmann::json::array()).message(),
            "d.json: /a/0: expected a string, got an array");
  EXPECT_EQ(JsonTypeError("d.json", "/n", "an object", nlohmann::json(3)).message(),
            "d.json: /n: expected an object, got a number");
  EXPECT_EQ(JsonTypeError("d.json", "/n", "a string", nullptr).message(),
            "d.json: /n: expected a string, got null");
}

TEST(JsonReaderTest, PointerTokensAreEscaped) {
  EXPECT_EQ(JsonPointer("", "a/b~c"), "/a~1b~0c");
  EXPECT_EQ(JsonPointer("/resources", std::size_t{3}), "/resources/3");
}

TEST(JsonReaderTest, TextPositionCountsLinesAndColumns) {
  EXPECT_EQ(TextPosition("ab\ncd", 0), "1:1");
  EXPECT_EQ(TextPosition("ab\ncd", 4), "2:2");
  EXPECT_EQ(TextPosition("ab", 99), "1:3");
}

}  // namespace
}  // namespace fsmove::base
