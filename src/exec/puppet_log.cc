// Summarising Puppet's log; see puppet_log.h.
#include "fsmove/exec/puppet_log.h"

#include "absl/container/flat_hash_set.h"
#include "fsmove/trace/puppet_markers.h"

namespace fsmove::exec {
namespace {

bool IsPropertyName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// "/Stage[main]/Main/Exec[x]/returns: change from ... failed: ..." -> ("Exec[x]", message).
// Titles may hold ": " and "/", so each ": " is tried in turn until the text before it is a
// resource path (optionally followed by "/property").
bool SplitResourceError(std::string_view s, std::string* ref, std::string* message) {
  if (!s.starts_with("/")) return false;
  for (size_t pos = s.find(": "); pos != std::string_view::npos; pos = s.find(": ", pos + 1)) {
    std::string_view path = s.substr(0, pos);
    if (path.back() != ']') {
      size_t slash = path.rfind('/');
      if (slash == std::string_view::npos || !IsPropertyName(path.substr(slash + 1))) continue;
      path = path.substr(0, slash);
      if (path.empty() || path.back() != ']') continue;
    }
    std::string r = trace::RefFromSource(path);
    if (r.empty() || r.front() == '/') continue;
    *ref = std::move(r);
    *message = std::string(s.substr(pos + 2));
    return true;
  }
  return false;
}

}  // namespace

std::string StripAnsi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && !((text[j] >= '@' && text[j] <= '~'))) ++j;
      i = j;  // skip the final letter too
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

PuppetLogSummary SummarisePuppetLog(std::string_view log, size_t max_errors) {
  PuppetLogSummary s;
  absl::flat_hash_set<std::string> seen;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string line = StripAnsi(log.substr(start, end - start));
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    std::string_view l = line;
    if (l.starts_with("Warning: ") && l.ends_with("Skipping because of failed dependencies")) {
      ++s.skipped;
      continue;
    }
    if (!l.starts_with("Error: ")) continue;
    l.remove_prefix(7);
    std::string ref, message;
    if (SplitResourceError(l, &ref, &message)) {
      if (seen.insert(ref).second) s.failed.push_back({ref, message});
    } else if (s.errors.size() < max_errors) {
      s.errors.emplace_back(l);
    }
  }
  return s;
}

}  // namespace fsmove::exec
