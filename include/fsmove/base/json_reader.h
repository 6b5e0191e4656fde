// Reading JSON a user can fix: syntax errors at "SOURCE:LINE:COLUMN", content errors at a JSON
// pointer ("SOURCE: /resources/3/title: ..."). Every JSON input fsmove reads whole (catalogs,
// configuration, baselines) goes through here, so all of them report mistakes the same way.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace fsmove::base {

struct JsonParseOptions {
  // Where the document starts in the text (after a preamble such as Puppet's "Notice: ..."
  // lines); positions in errors still count from the start of the whole text.
  std::size_t start = 0;
  // Deeper documents are refused before nlohmann's recursive copies could exhaust the stack.
  int max_depth = 64;
  // nlohmann's parser callback, called as values complete: returning false drops the value,
  // so a large array can be consumed element by element without ever being one DOM.
  nlohmann::json::parser_callback_t callback = nullptr;
};

// Parses `text` as one JSON document. Errors (InvalidArgument) name the place and never quote
// the input (a file read by mistake may hold a secret):
//   "SOURCE:LINE:COLUMN: not valid JSON: SENTENCE" (also for a number too large for a double)
//   "SOURCE:LINE:COLUMN: JSON nested deeper than N levels"
//   "SOURCE:LINE:COLUMN: a key repeated in one object (JSON keeps only the last value)"
absl::StatusOr<nlohmann::json> ParseJson(std::string_view text, std::string_view source_name,
                                         const JsonParseOptions& options = {});

// "SOURCE: /POINTER: SENTENCE" (the root's pointer written "/") as InvalidArgument.
absl::Status JsonError(std::string_view source_name, std::string_view pointer,
                       std::string_view sentence);

// "SOURCE: /POINTER: expected EXPECTED, got KIND" (KIND from JsonKindName).
absl::Status JsonTypeError(std::string_view source_name, std::string_view pointer,
                           std::string_view expected, const nlohmann::json& value);

// "an object", "an array", "a string", "a number", "a boolean", "null".
std::string_view JsonKindName(const nlohmann::json& value);

// `base` + "/" + `token`, the token escaped as RFC 6901 says ("~" -> "~0", "/" -> "~1").
std::string JsonPointer(std::string_view base, std::string_view token);
std::string JsonPointer(std::string_view base, std::size_t index);

// "LINE:COLUMN" (both from 1, the column in bytes) of a byte offset into `text`.
std::string TextPosition(std::string_view text, std::size_t offset);

}  // namespace fsmove::base
