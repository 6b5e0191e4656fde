// Text from the catalog, the trace or Puppet (titles, paths, messages) as it may be shown on
// a terminal: control characters (C0, DEL, and C1 as UTF-8) are escaped, so that a title
// such as Exec["\e]0;x\a"] cannot set the terminal's title and a newline in it cannot split
// a report line or a warning.
#pragma once

#include <string>
#include <string_view>

namespace fsmove::report {

// "\n" -> "\\n", "\t" -> "\\t", ESC -> "\\e", other controls -> "\\xNN", U+0080..U+009F ->
// "\\u0080"..; everything else (UTF-8 included) unchanged.
std::string TerminalSafe(std::string_view text);

}  // namespace fsmove::report
