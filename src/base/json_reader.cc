// Parsing JSON with located errors; see json_reader.h. No error quotes the input (a file read
// by mistake may hold a secret): a syntax error gives the place and nlohmann's description
// without the text it stopped at, a repeated key is not named.
#include "fsmove/base/json_reader.h"

#include <algorithm>
#include <optional>

#include "fmt/format.h"
#include "fsmove/base/json_keys.h"

namespace fsmove::base {
namespace {

using Json = nlohmann::json;

// What nlohmann names a token by in "; expected ..." (lexer::token_type_name): the only text
// after the input's own bytes that is kept.
constexpr std::string_view kTokenNames[] = {"<uninitialized>",
                                            "true literal",
                                            "false literal",
                                            "null literal",
                                            "string literal",
                                            "number literal",
                                            "'['",
                                            "'{'",
                                            "']'",
                                            "'}'",
                                            "':'",
                                            "','",
                                            "<parse error>",
                                            "end of input",
                                            "'[', '{', or a literal",
                                            "unknown token"};

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix, whose position is relative to the part we handed it, and without the
// input it quotes ("invalid literal; last read: 'SECRET'", "number overflow parsing
// '1e400'"): a document read by mistake (a link to a private file, a token pasted into a
// configuration) must not end up in a log. The position says where to look.
std::string ParseErrorSentence(std::string_view what) {
  std::string_view sentence = what;
  if (const std::size_t column = what.find("column "); column != std::string_view::npos) {
    if (const std::size_t colon = what.find(": ", column); colon != std::string_view::npos) {
      sentence = what.substr(colon + 2);
    }
  } else if (const std::size_t bracket = what.find("] "); bracket != std::string_view::npos) {
    sentence = what.substr(bracket + 2);
  }
  std::string expected;
  if (const std::size_t at = sentence.rfind("; expected "); at != std::string_view::npos) {
    const std::string_view name = sentence.substr(at + 11);
    for (std::string_view known : kTokenNames) {
      if (name == known) expected = fmt::format("; expected {}", name);
    }
  }
  for (std::string_view quoting : {"; last read: ", " parsing '"}) {
    if (const std::size_t at = sentence.find(quoting); at != std::string_view::npos) {
      return fmt::format("{}{}", sentence.substr(0, at), expected);
    }
  }
  return std::string(sentence);
}

absl::Status LocatedError(std::string_view text, std::string_view source_name, std::size_t offset,
                          std::string_view sentence) {
  return absl::InvalidArgumentError(
      fmt::format("{}:{}: {}", source_name, TextPosition(text, offset), sentence));
}

// Calls `visit(i, c)` for every byte outside string literals, from `start`; stops early when
// it returns false.
template <typename Visit>
void ForEachStructuralByte(std::string_view text, std::size_t start, Visit visit) {
  bool in_string = false;
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (!visit(i, c)) {
      return;
    }
  }
}

// nlohmann parses iteratively but copies and compares recursively: the offset of the first
// bracket nested deeper than `max_depth`, if any.
std::optional<std::size_t> TooDeep(std::string_view text, std::size_t start, int max_depth) {
  std::optional<std::size_t> at;
  int depth = 0;
  ForEachStructuralByte(text, start, [&](std::size_t i, char c) {
    if (c == '{' || c == '[') {
      if (++depth > max_depth) at = i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
    return !at;
  });
  return at;
}

// The first number token equal to `token` (outside strings), or npos: a number too large for
// a double (out_of_range.406: "number overflow parsing '1e400'") is thrown without a position.
std::size_t FindNumberToken(std::string_view text, std::size_t start, std::string_view token) {
  auto is_number_char = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  std::size_t found = std::string_view::npos;
  if (token.empty()) return found;
  ForEachStructuralByte(text, start, [&](std::size_t i, char) {
    if (text.compare(i, token.size(), token) == 0 && (i == 0 || !is_number_char(text[i - 1])) &&
        (i + token.size() == text.size() || !is_number_char(text[i + token.size()]))) {
      found = i;
    }
    return found == std::string_view::npos;
  });
  return found;
}

absl::Status InvalidNumber(std::string_view text, std::string_view source_name, std::size_t start,
                           const Json::exception& error) {
  const std::string_view what = error.what();
  const std::string sentence = ParseErrorSentence(what);
  constexpr std::string_view kParsing = "parsing '";
  if (const std::size_t quote = what.find(kParsing); quote != std::string_view::npos) {
    std::string_view token = what.substr(quote + kParsing.size());
    token = token.substr(0, token.find('\''));
    if (const std::size_t at = FindNumberToken(text, start, token); at != std::string_view::npos) {
      return LocatedError(text, source_name, at, fmt::format("not valid JSON: {}", sentence));
    }
  }
  return absl::InvalidArgumentError(fmt::format("{}: not valid JSON: {}", source_name, sentence));
}

}  // namespace

absl::StatusOr<Json> ParseJson(std::string_view text, std::string_view source_name,
                               const JsonParseOptions& options) {
  const std::size_t start = std::min(options.start, text.size());
  if (std::optional<std::size_t> at = TooDeep(text, start, options.max_depth)) {
    return LocatedError(text, source_name, *at,
                        fmt::format("JSON nested deeper than {} levels", options.max_depth));
  }
  Json root;
  try {
    root = Json::parse(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                       options.callback);
  } catch (const Json::parse_error& error) {
    // error.byte counts from 1 within the parsed part; past-the-end for truncated input.
    const std::size_t offset = start + (error.byte > 0 ? error.byte - 1 : 0);
    return LocatedError(text, source_name, offset,
                        fmt::format("not valid JSON: {}", ParseErrorSentence(error.what())));
  } catch (const Json::exception& error) {
    return InvalidNumber(text, source_name, start, error);
  }
  // nlohmann keeps the last value of a repeated key: a trailing `"resources": []` would
  // silently erase a catalog.
  if (std::optional<DuplicateKey> dup = FindDuplicateKey(text, start)) {
    return LocatedError(text, source_name, dup->offset,
                        "a key repeated in one object (JSON keeps only the last value)");
  }
  return root;
}

absl::Status JsonError(std::string_view source_name, std::string_view pointer,
                       std::string_view sentence) {
  return absl::InvalidArgumentError(
      fmt::format("{}: {}: {}", source_name, pointer.empty() ? "/" : pointer, sentence));
}

absl::Status JsonTypeError(std::string_view source_name, std::string_view pointer,
                           std::string_view expected, const Json& value) {
  return JsonError(source_name, pointer,
                   fmt::format("expected {}, got {}", expected, JsonKindName(value)));
}

std::string_view JsonKindName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::binary:
      return "binary data";
    case Json::value_t::discarded:
      return "nothing";
  }
  return "nothing";
}

std::string JsonPointer(std::string_view base, std::string_view token) {
  std::string pointer(base);
  pointer.reserve(base.size() + 1 + token.size());
  pointer += '/';
  for (const char c : token) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer += c;
    }
  }
  return pointer;
}

std::string JsonPointer(std::string_view base, std::size_t index) {
  return fmt::format("{}/{}", base, index);
}

std::string TextPosition(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("{}:{}", line, offset - line_start + 1);
}

}  // namespace fsmove::base
