// Reading small JSON documents with located errors; see json_document.h.
#include "fsmove/catalog/input_file.h"
#include "fsmove/catalog/json_keys.h"
#include "fsmove/check/json_document.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fmt/format.h"

namespace fsmove::check {
namespace {

// "line:column" of a byte offset.
std::string Position(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("{}:{}", line, offset - line_start + 1);
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix (we print the position ourselves).
std::string_view ParseErrorSentence(std::string_view what) {
  size_t column = what.find("column ");
  if (column != std::string_view::npos) {
    size_t colon = what.find(": ", column);
    if (colon != std::string_view::npos) return what.substr(colon + 2);
  }
  size_t bracket = what.find("] ");
  return bracket == std::string_view::npos ? what : what.substr(bracket + 2);
}

}  // namespace

absl::StatusOr<std::string> ReadDocument(const std::string& path, std::string_view what) {
  return catalog::ReadInputFile(path, what, catalog::kMaxDocumentBytes);
}

absl::StatusOr<nlohmann::json> ParseDocument(std::string_view text, std::string_view source_name,
                                             int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) {
        return absl::InvalidArgumentError(fmt::format("{}:{}: JSON nested deeper than {} levels",
                                                      source_name, Position(text, i), max_depth));
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  try {
    nlohmann::json j = nlohmann::json::parse(text.begin(), text.end());
    if (std::optional<catalog::DuplicateKey> dup = catalog::FindDuplicateKey(text)) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: key \"{}\" repeated in one object (JSON keeps only the last value)",
                      source_name, Position(text, dup->offset), dup->key));
    }
    return j;
  } catch (const nlohmann::json::parse_error& error) {
    size_t offset = error.byte > 0 ? error.byte - 1 : 0;
    return absl::InvalidArgumentError(fmt::format("{}:{}: not valid JSON: {}", source_name,
                                                  Position(text, offset),
                                                  ParseErrorSentence(error.what())));
  }
}

absl::Status DocumentError(std::string_view source_name, std::string_view pointer,
                           std::string_view sentence) {
  return absl::InvalidArgumentError(
      fmt::format("{}: {}: {}", source_name, pointer.empty() ? "/" : pointer, sentence));
}

std::string_view JsonKindName(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::binary:
      return "binary data";
    case nlohmann::json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

std::string PointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace fsmove::check
