// Whole-line edits and unified diffs; see unified_diff.h.
#include "fsmove/fix/unified_diff.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace fsmove::fix {
namespace {

std::string Join(const std::vector<std::string_view>& lines, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) out.append(lines[i]);
  return out;
}

// The line (1-based) holding byte `pos`; lines.size() + 1 past the last line's ending.
size_t LineIndex(const std::vector<size_t>& starts, size_t text_size, bool ends_in_newline,
                 size_t pos) {
  if (pos >= text_size && (ends_in_newline || text_size == 0)) return starts.size() + 1;
  return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), pos) - starts.begin());
}

struct Region {
  size_t first = 0;  // lines [first, last), 1-based
  size_t last = 0;
  std::vector<TextReplacement> replacements;
};

void AppendDiffLine(std::string& out, char prefix, std::string_view line) {
  out.push_back(prefix);
  out.append(line);
  if (line.empty() || line.back() != '\n') out.append("\n\\ No newline at end of file\n");
}

}  // namespace

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(at, end - at));
    at = end;
  }
  return lines;
}

std::vector<checker::FixEdit> LineEdits(const std::string& file, std::string_view text,
                                        const std::vector<TextReplacement>& replacements) {
  const std::vector<std::string_view> lines = SplitLines(text);
  std::vector<size_t> starts;
  starts.reserve(lines.size());
  for (std::string_view l : lines) starts.push_back(static_cast<size_t>(l.data() - text.data()));
  const bool nl_end = !text.empty() && text.back() == '\n';
  auto offset = [&](size_t line) { return line <= lines.size() ? starts[line - 1] : text.size(); };
  std::vector<Region> regions;
  for (const TextReplacement& r : replacements) {
    Region g;
    g.first = LineIndex(starts, text.size(), nl_end, r.begin);
    if (r.end == r.begin && offset(g.first) == r.begin) {
      g.last = g.first;  // an insertion before line `first`
    } else {
      const size_t end_pos = r.end > r.begin ? r.end - 1 : r.begin;
      g.last = std::max(g.first, LineIndex(starts, text.size(), nl_end, end_pos)) + 1;
      g.last = std::min(g.last, lines.size() + 1);
    }
    g.replacements.push_back(r);
    if (!regions.empty() && g.first <= regions.back().last) {
      regions.back().last = std::max(regions.back().last, g.last);
      regions.back().replacements.push_back(r);
    } else {
      regions.push_back(std::move(g));
    }
  }
  std::vector<checker::FixEdit> edits;
  for (Region& g : regions) {
    const size_t base = offset(g.first);
    std::string_view old_slice = text.substr(base, offset(g.last) - base);
    for (TextReplacement& r : g.replacements) {
      r.begin -= base;
      r.end -= base;
    }
    const std::string updated = ApplyReplacements(old_slice, g.replacements);
    const std::vector<std::string_view> a = SplitLines(old_slice);
    const std::vector<std::string_view> b = SplitLines(updated);
    size_t head = 0, tail = 0;
    while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
    while (tail < a.size() - head && tail < b.size() - head &&
           a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
      ++tail;
    }
    if (head == a.size() && head == b.size()) continue;
    checker::FixEdit e;
    e.file = file;
    e.line = static_cast<int>(g.first + head);
    e.end_line = static_cast<int>(g.first + a.size() - tail);
    e.old_text = Join(a, head, a.size() - tail);
    e.text = Join(b, head, b.size() - tail);
    edits.push_back(std::move(e));
  }
  return edits;
}

std::string ApplyEdits(std::string_view text, const std::vector<checker::FixEdit>& edits) {
  const std::vector<std::string_view> lines = SplitLines(text);
  std::string out;
  size_t next = 1;  // the next line of `text` to copy
  for (const checker::FixEdit& e : edits) {
    for (; next < static_cast<size_t>(e.line) && next <= lines.size(); ++next) {
      out.append(lines[next - 1]);
    }
    out.append(e.text);
    next = static_cast<size_t>(e.end_line);
  }
  for (; next <= lines.size(); ++next) out.append(lines[next - 1]);
  return out;
}

std::string UnifiedDiff(std::string_view relative_path, std::string_view text,
                        const std::vector<checker::FixEdit>& edits, int context) {
  if (edits.empty()) return "";
  const std::vector<std::string_view> lines = SplitLines(text);
  const size_t n = lines.size();
  const size_t ctx = static_cast<size_t>(std::max(context, 0));
  const std::string path(relative_path);
  std::string out = absl::StrCat("--- a/", path, "\n+++ b/", path, "\n");
  long delta = 0;  // lines added minus removed by the hunks before
  for (size_t i = 0; i < edits.size();) {
    size_t j = i + 1;
    while (j < edits.size() && static_cast<size_t>(edits[j].line) <=
                                   static_cast<size_t>(edits[j - 1].end_line) + 2 * ctx) {
      ++j;
    }
    const size_t first = static_cast<size_t>(edits[i].line);
    const size_t old_start = first > ctx ? first - ctx : 1;
    const size_t old_end = std::min(n + 1, static_cast<size_t>(edits[j - 1].end_line) + ctx);
    std::string body;
    long hunk_delta = 0;
    size_t cursor = old_start;
    for (size_t k = i; k < j; ++k) {
      const checker::FixEdit& e = edits[k];
      for (; cursor < static_cast<size_t>(e.line); ++cursor)
        AppendDiffLine(body, ' ', lines[cursor - 1]);
      for (size_t l = e.line; l < static_cast<size_t>(e.end_line); ++l) {
        AppendDiffLine(body, '-', lines[l - 1]);
      }
      const std::vector<std::string_view> added = SplitLines(e.text);
      for (std::string_view l : added) AppendDiffLine(body, '+', l);
      hunk_delta += static_cast<long>(added.size()) - (e.end_line - e.line);
      cursor = static_cast<size_t>(e.end_line);
    }
    for (; cursor < old_end; ++cursor) AppendDiffLine(body, ' ', lines[cursor - 1]);
    const long old_count = static_cast<long>(old_end - old_start);
    const long new_count = old_count + hunk_delta;
    const long new_start = static_cast<long>(old_start) + delta;
    absl::StrAppendFormat(
        &out, "@@ -%d,%d +%d,%d @@\n",
        old_count == 0 ? static_cast<long>(old_start) - 1 : static_cast<long>(old_start), old_count,
        new_count == 0 ? new_start - 1 : new_start, new_count);
    out += body;
    delta += hunk_delta;
    i = j;
  }
  return out;
}

}  // namespace fsmove::fix
