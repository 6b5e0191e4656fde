// JSON text output (reports, scan results, baselines) that never throws on the raw bytes paths
// and titles may hold (invalid UTF-8 is replaced, not rejected), with the controls a viewer
// would obey escaped: nlohmann escapes C0 controls, but with ensure_ascii off leaves C1 and
// bidirectional controls (U+202E) raw; here they are "\u202e" (EscapeFormatControls).
#pragma once

#include <string>

#include "fsmove/base/terminal_text.h"
#include "nlohmann/json.hpp"

namespace fsmove::base {

template <typename Json>
std::string DumpJson(const Json& j, int indent = 2) {
  // Outside its strings, dumped JSON is ASCII: every code point replaced is inside a string.
  return EscapeFormatControls(j.dump(indent, ' ', false, Json::error_handler_t::replace),
                              JsonEscape);
}

}  // namespace fsmove::base
