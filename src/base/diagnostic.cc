// What fsmove tells its user; see diagnostic.h.
#include "fsmove/base/diagnostic.h"

#include <utility>

namespace fsmove::base {

Diagnostic Error(std::string text) { return {Diagnostic::Severity::kError, std::move(text)}; }
Diagnostic Warning(std::string text) { return {Diagnostic::Severity::kWarning, std::move(text)}; }
Diagnostic Note(std::string text) { return {Diagnostic::Severity::kNote, std::move(text)}; }
Diagnostic Info(std::string text) { return {Diagnostic::Severity::kInfo, std::move(text)}; }

std::string Format(const Diagnostic& d) {
  switch (d.severity) {
    case Diagnostic::Severity::kError:
      return "fsmove: error: " + d.text;
    case Diagnostic::Severity::kWarning:
      return "fsmove: warning: " + d.text;
    case Diagnostic::Severity::kNote:
      return "fsmove: note: " + d.text;
    case Diagnostic::Severity::kInfo:
      return "fsmove: " + d.text;
    case Diagnostic::Severity::kPlain:
      break;
  }
  return d.text;
}

}  // namespace fsmove::base
