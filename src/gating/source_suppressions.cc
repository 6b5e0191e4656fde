// `# fsmove:ignore:RULE reason` comments read from a manifest; see source_suppressions.h.
#include "fsmove/gating/source_suppressions.h"

#include <algorithm>

#include "fmt/format.h"
#include "fsmove/base/blanks.h"
#include "fsmove/checker/checker.h"

namespace fsmove::gating {
namespace {

constexpr std::string_view kIgnore = "fsmove:ignore:";
constexpr std::string_view kEndIgnore = "fsmove:endignore";

using base::TrimBlanks;

// The next whitespace-separated word of `*s`, which is left after it.
std::string_view NextWord(std::string_view* s) {
  *s = TrimBlanks(*s);
  size_t end = s->find_first_of(" \t");
  if (end == std::string_view::npos) end = s->size();
  std::string_view word = s->substr(0, end);
  s->remove_prefix(end);
  return word;
}

bool KnownRule(std::string_view id) {
  for (checker::FaultKind k :
       {checker::FaultKind::kMissingOrdering, checker::FaultKind::kMissingNotifier}) {
    if (checker::FaultRuleId(k) == id) return true;
  }
  return false;
}

}  // namespace

bool SourceSuppression::Covers(std::string_view f, int l, std::string_view rule) const {
  return f == file && l >= first_line && l <= last_line && first_line > 0 &&
         std::find(rules.begin(), rules.end(), rule) != rules.end();
}

std::string SourceSuppression::Directive() const {
  std::string text = "#";
  for (const std::string& r : rules) text += fmt::format(" {}{}", kIgnore, r);
  return text;
}

void ReadSourceSuppressions(std::string_view file, std::string_view path,
                            const std::vector<SourceComment>& comments,
                            const std::vector<int>& code_lines, SourceSuppressions* out) {
  ++out->files;
  std::vector<SourceSuppression> read;
  std::vector<size_t> open;  // own-line comments not yet closed, innermost last
  for (const SourceComment& c : comments) {
    std::string_view text = TrimBlanks(c.text);
    if (!text.starts_with("fsmove:")) continue;
    const std::string where = fmt::format("{}:{}", path, c.line);
    if (text.starts_with(kEndIgnore)) {
      if (open.empty()) {
        out->warnings.push_back(fmt::format("{}: `# {}` closes no `# {}RULE` comment above it",
                                            where, kEndIgnore, kIgnore));
        continue;
      }
      SourceSuppression& s = read[open.back()];
      open.pop_back();
      s.block = true;
      s.first_line = s.line + 1;
      s.last_line = c.line - 1;
      continue;
    }
    if (!text.starts_with(kIgnore)) {
      out->warnings.push_back(fmt::format(
          "{}: not an fsmove directive (`# {}RULE reason` or `# {}`)", where, kIgnore, kEndIgnore));
      continue;
    }
    SourceSuppression s;
    s.file = std::string(file);
    s.path = std::string(path);
    s.line = c.line;
    std::string_view rest = text;
    while (TrimBlanks(rest).starts_with(kIgnore)) {
      std::string_view id = NextWord(&rest).substr(kIgnore.size());
      if (KnownRule(id)) {
        s.rules.emplace_back(id);
      } else {
        out->warnings.push_back(
            fmt::format("{}: `{}{}` names no rule: fsmove's findings are {} and {}", where, kIgnore,
                        id, checker::FaultRuleId(checker::FaultKind::kMissingOrdering),
                        checker::FaultRuleId(checker::FaultKind::kMissingNotifier)));
      }
    }
    s.reason = std::string(TrimBlanks(rest));
    if (c.after_code) {
      s.first_line = s.last_line = c.line;
    } else {
      open.push_back(read.size());
    }
    read.push_back(std::move(s));
  }
  // An own-line comment no endignore closed stands above the declaration it is for.
  for (size_t i : open) {
    SourceSuppression& s = read[i];
    auto next = std::upper_bound(code_lines.begin(), code_lines.end(), s.line);
    if (next != code_lines.end()) s.first_line = s.last_line = *next;
  }
  for (SourceSuppression& s : read) {
    if (!s.rules.empty()) out->comments.push_back(std::move(s));
  }
}

}  // namespace fsmove::gating
