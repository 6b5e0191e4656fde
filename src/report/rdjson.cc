// reviewdog's Diagnostic Format for the findings; see rdjson.h. Field meanings follow
// reviewdog's proto/rdf (the JSON schema in tests/data), suggestion ranges its GitHub
// reporter: line-wise (no columns), start and end lines inclusive, equal to the comment's.
#include "fsmove/report/rdjson.h"

#include <fstream>

#include "fmt/format.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/report/markdown_text.h"
#include "fsmove/report/sarif.h"

namespace fsmove::report {
namespace {

using Json = nlohmann::json;

std::string WithoutFinalNewline(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return std::string(text);
}

// Line `line` of the original file `relative` as the diff shows it (a context or removed line
// of a hunk), or nullopt.
std::optional<std::string> OldLineFromDiff(std::string_view diff, std::string_view relative,
                                           int line) {
  bool in_file = false;
  int old_line = 0;
  size_t pos = 0;
  while (pos < diff.size()) {
    size_t end = diff.find('\n', pos);
    if (end == std::string_view::npos) end = diff.size();
    std::string_view l = diff.substr(pos, end - pos);
    pos = end + 1;
    if (l.starts_with("--- ")) {
      std::string_view path = l.substr(4);
      if (size_t tab = path.find('\t'); tab != std::string_view::npos) path = path.substr(0, tab);
      if (path.starts_with("a/")) path.remove_prefix(2);
      in_file = path == relative;
      old_line = 0;
    } else if (l.starts_with("+++ ")) {
      continue;
    } else if (l.starts_with("@@ -")) {
      old_line = std::atoi(std::string(l.substr(4)).c_str());
    } else if (in_file && old_line > 0 && !l.empty() && (l[0] == ' ' || l[0] == '-')) {
      if (old_line == line) return std::string(l.substr(1));
      ++old_line;
    }
  }
  return std::nullopt;
}

std::optional<std::string> LineFromFile(const std::string& file, int line) {
  std::ifstream in(file);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (n == line) return text;
  }
  return std::nullopt;
}

Json LineRange(int start, int end) {
  return {{"start", {{"line", start}}}, {"end", {{"line", end}}}};
}

std::string_view Severity(std::string_view level) {
  return level == "error" ? "ERROR" : level == "warning" ? "WARNING" : "INFO";
}

Json Location(const std::string& file, std::optional<int> line, const SourceRoot& root) {
  Json loc = {{"path", root.Display(file)}};
  if (line && *line >= 1) loc["range"] = {{"start", {{"line", *line}}}};
  return loc;
}

std::string Message(const checker::Finding& f, const catalog::Catalog& cat, bool suggested) {
  const std::string src = MarkdownCode(cat.resource(f.source).ref);
  const std::string dst = MarkdownCode(cat.resource(f.target).ref);
  const bool mor = f.kind == checker::FaultKind::kMissingOrdering;
  std::string text =
      mor ? fmt::format("{} must be applied after {}: nothing orders them.", dst, src)
          : fmt::format("{} must be notified by {}: nothing refreshes it.", dst, src);
  if (!f.evidence.empty()) {
    const checker::PathEvidence& e = f.evidence.front();
    text += fmt::format(" {} writes {} ({} at trace line {}), {} then {} it ({} at trace line {})",
                        src, MarkdownCode(e.path), fstrace::SyscallName(e.source.syscall),
                        e.source.line, dst,
                        e.target.effect == fstrace::Effect::kProduced   ? "writes"
                        : e.target.effect == fstrace::Effect::kExpunged ? "removes"
                                                                        : "reads",
                        fstrace::SyscallName(e.target.syscall), e.target.line);
    if (f.paths.size() > 1) text += fmt::format(" and {} more path(s)", f.paths.size() - 1);
    text += ".";
  }
  if (f.confirmation.confirmed) text += " Confirmed by a replay with the opposite order.";
  if (suggested) {
    text += f.patch->verdict == checker::FixVerdict::kVerified
                ? " The suggested change was verified: with it, the finding is gone."
                : " Suggested change (not verified by a replay).";
  } else {
    text += " Fix: " + MarkdownTextWithCode(f.fix) + ".";
  }
  return text;
}

std::string OriginalOutput(const checker::Finding& f, const catalog::Catalog& cat) {
  std::string out = FindingHeadline(f, cat);
  for (const checker::PathEvidence& e : f.evidence) {
    out += "\n  " + EvidenceText(e, cat.resource(f.source), cat.resource(f.target));
  }
  out += "\n  fix: " + f.fix;
  return out;
}

Json Suggestion(const LineSuggestion& s) {
  return {{"range", LineRange(s.start_line, s.end_line)}, {"text", s.text}};
}

// The finding's diagnostics: its own (with the suggestion of its edit in the primary file),
// then one per other edit of its patch.
void AddFinding(const checker::Finding& f, const catalog::Catalog& cat, const SourceRoot& root,
                Json* diagnostics) {
  const catalog::Resource& primary = PrimaryDeclaration(f, cat);
  const catalog::Resource& src = cat.resource(f.source_declaration);
  const std::string rule(checker::FaultRuleId(f.kind));
  const std::string severity(Severity(FindingLevel(f)));
  const Json code = {{"value", rule}, {"url", RuleHelpUri(rule)}};
  std::vector<LineSuggestion> suggestions;
  if (f.patch && f.patch->verdict != checker::FixVerdict::kFailed) {
    for (const checker::FixEdit& e : f.patch->edits) {
      if (auto s = SuggestionForEdit(e, *f.patch)) suggestions.push_back(std::move(*s));
    }
  }
  auto own = std::find_if(suggestions.begin(), suggestions.end(), [&](const LineSuggestion& s) {
    return !primary.file.empty() && s.file == primary.file;
  });
  const bool suggested = own != suggestions.end();
  Json d = {{"message", Message(f, cat, suggested || !suggestions.empty())},
            {"severity", severity},
            {"code", code},
            {"original_output", OriginalOutput(f, cat)}};
  if (!primary.file.empty()) d["location"] = Location(primary.file, primary.line, root);
  if (suggested) {
    // reviewdog comments on the suggestion's lines (they must be the comment's).
    d["location"]["range"] = LineRange(own->start_line, own->end_line);
    d["suggestions"] = Json::array({Suggestion(*own)});
  }
  if (!src.file.empty() && &src != &primary) {
    d["related_locations"] = Json::array(
        {{{"message", MarkdownCode(src.ref) + (f.kind == checker::FaultKind::kMissingOrdering
                                                   ? " must be applied first"
                                                   : " must notify")},
          {"location", Location(src.file, src.line, root)}}});
  }
  diagnostics->push_back(std::move(d));
  for (auto s = suggestions.begin(); s != suggestions.end(); ++s) {
    if (s == own) continue;
    Json part = {
        {"message", "Part of the fix for: " + MarkdownText(FindingHeadline(f, cat)) + " (" +
                        MarkdownText(f.patch->description) + ")."},
        {"severity", severity},
        {"code", code},
        {"location",
         {{"path", root.Display(s->file)}, {"range", LineRange(s->start_line, s->end_line)}}},
        {"suggestions", Json::array({Suggestion(*s)})}};
    diagnostics->push_back(std::move(part));
  }
}

}  // namespace

std::optional<LineSuggestion> SuggestionForEdit(const checker::FixEdit& edit,
                                                const checker::FixPatch& patch) {
  if (edit.line < 1 || edit.end_line < edit.line) return std::nullopt;
  LineSuggestion s;
  s.file = edit.file;
  if (edit.end_line > edit.line) {
    s.start_line = edit.line;
    s.end_line = edit.end_line - 1;
    s.text = WithoutFinalNewline(edit.text);
    return s;
  }
  // An insertion: replace the line before (or the first line) with itself and the new lines.
  const int anchor = edit.line > 1 ? edit.line - 1 : 1;
  std::optional<std::string> relative = SourceRoot::FromDirectory(patch.root).Relative(edit.file);
  std::optional<std::string> text;
  if (relative) text = OldLineFromDiff(patch.diff, *relative, anchor);
  if (!text) text = LineFromFile(edit.file, anchor);
  if (!text) return std::nullopt;
  s.start_line = s.end_line = anchor;
  const std::string inserted = WithoutFinalNewline(edit.text);
  s.text = edit.line > 1 ? *text + "\n" + inserted : inserted + "\n" + *text;
  return s;
}

nlohmann::json FindingsToRdjson(const FindingsContext& c, const SourceRoot& root) {
  const catalog::Catalog& cat = *c.catalog;
  Json diagnostics = Json::array();
  for (size_t i = 0; i < c.result->findings.size(); ++i) {
    if (c.IsSuppressed(i) || c.IsHidden(i)) continue;
    AddFinding(c.result->findings[i], cat, root, &diagnostics);
  }
  for (const NotIdempotent& n : c.not_idempotent()) {
    Json d = {{"message", MarkdownCode(n.resource) + " is not idempotent: it " +
                              NotIdempotentBehaviour(n) +
                              ". Fix: " + MarkdownTextWithCode(NotIdempotentFix(n, cat)) + "."},
              {"severity", "ERROR"},
              {"code", {{"value", "not-idempotent"}, {"url", RuleHelpUri("not-idempotent")}}}};
    const catalog::Resource* r = NotIdempotentResource(n, cat);
    if (r != nullptr && !r->file.empty()) d["location"] = Location(r->file, r->line, root);
    diagnostics.push_back(std::move(d));
  }
  return {{"source", {{"name", "fsmove"}, {"url", std::string(ToolInformationUri())}}},
          {"severity", "ERROR"},
          {"diagnostics", diagnostics}};
}

}  // namespace fsmove::report
