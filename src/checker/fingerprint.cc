// Finding fingerprints; see fingerprint.h.
#include "fsmove/checker/fingerprint.h"

#include <algorithm>

#include "fmt/format.h"
#include "fsmove/base/sha256.h"

namespace fsmove::checker {
namespace {

void AppendField(std::string& out, std::string_view field) {
  fmt::format_to(std::back_inserter(out), "{}:", field.size());
  out.append(field);
}

}  // namespace

std::string FindingFingerprint(FaultKind kind, std::string_view source_ref,
                               std::string_view target_ref, std::vector<std::string> paths) {
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::string text =
      fmt::format("fsmove-finding/v{}\n{}\n", kFingerprintVersion, FaultRuleId(kind));
  AppendField(text, source_ref);
  AppendField(text, target_ref);
  for (const std::string& p : paths) AppendField(text, p);
  return base::Sha256Hex(text).substr(0, 32);
}

}  // namespace fsmove::checker
