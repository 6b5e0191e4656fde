// Small user-written JSON files (the project configuration, baselines): read them whole and
// report every problem as "FILE:LINE:COLUMN: ..." for syntax or "FILE: /json/pointer: ..."
// for content, the way the catalog loader does, so a user can go straight to the mistake.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace fsmove::check {

// The file's bytes; `what` names the document in errors ("cannot open baseline: ...").
absl::StatusOr<std::string> ReadDocument(const std::string& path, std::string_view what);

// Parses `text`, refusing documents nested deeper than `max_depth` (before nlohmann's
// recursive copies could exhaust the stack).
absl::StatusOr<nlohmann::json> ParseDocument(std::string_view text, std::string_view source_name,
                                             int max_depth = 64);

// "source: /pointer: sentence" as an InvalidArgument status.
absl::Status DocumentError(std::string_view source_name, std::string_view pointer,
                           std::string_view sentence);

// "object", "array", "string", ... for "expected X, got Y".
std::string_view JsonKindName(const nlohmann::json& value);

// RFC 6901 escaping of one reference token ("~" -> "~0", "/" -> "~1").
std::string PointerToken(std::string_view key);

}  // namespace fsmove::check
