// JSON text output that never throws on the raw bytes paths and titles may hold
// (invalid UTF-8 is replaced, not rejected).
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace fsmove::report {

inline std::string DumpJson(const nlohmann::json& j, int indent = 2) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace fsmove::report
