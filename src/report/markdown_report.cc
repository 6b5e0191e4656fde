// The findings as a Markdown pull-request comment; see markdown_report.h.
#include "fsmove/report/markdown_report.h"

#include <sstream>

#include "fmt/format.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/report/markdown_text.h"
#include "fsmove/report/sarif.h"

namespace fsmove::report {
namespace {

std::string Plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "`Exec[use]` (`manifests/init.pp:12`)", or the reference alone without a manifest.
std::string Declared(const catalog::Resource& r, const SourceRoot& root) {
  std::string s = MarkdownCode(r.ref);
  if (r.file.empty()) return s;
  std::string where = root.Display(r.file);
  if (r.line) where += ":" + std::to_string(*r.line);
  return s + " (" + MarkdownCode(where) + ")";
}

// The call, without "failed": AccessVerb says that, as in the other reports.
std::string Call(const analysis::Access& a) {
  return fmt::format("{}, trace line {}", MarkdownCode(fstrace::SyscallName(a.syscall)), a.line);
}

// The path and who produced it, then who consumed it: two lines (a hard break between), in
// the text report's words (AccessVerb).
std::string Evidence(const checker::Finding& f, const catalog::Catalog& cat) {
  if (f.evidence.empty()) return "";
  const checker::PathEvidence& e = f.evidence.front();
  std::string s =
      fmt::format("**Evidence:** {} was {} by {} ({}),\\\nthen {} by {} ({})", MarkdownCode(e.path),
                  AccessVerb(e.source), MarkdownCode(cat.resource(f.source).ref), Call(e.source),
                  AccessVerb(e.target), MarkdownCode(cat.resource(f.target).ref), Call(e.target));
  if (f.paths.size() > 1)
    s += fmt::format("; {} more", Plural(f.paths.size() - 1, "path", "paths"));
  return s + ".\n";
}

std::string Picture(const checker::Finding& f, const catalog::Catalog& cat,
                    const graph::NeighbourhoodFinder& finder, const MarkdownOptions& o) {
  const catalog::ResourceId focus[] = {f.source, f.target};
  graph::Neighbourhood n = finder.Around(focus, o.picture);
  n.missing = graph::MissingEdge{
      f.source, f.target, f.kind == checker::FaultKind::kMissingOrdering ? "require" : "notify"};
  std::ostringstream mermaid;
  graph::WriteNeighbourhoodMermaid(n, cat, mermaid);
  std::string s = MarkdownFence(mermaid.str(), "mermaid");
  s += fmt::format("<sub>{}", graph::MermaidLegend());
  if (n.left_out > 0) {
    s += fmt::format(" {} not drawn (`fsmove graph --around` draws more).",
                     Plural(n.left_out, "more related resource", "more related resources"));
  }
  s += "</sub>\n";
  return s;
}

std::string FirstLines(std::string_view text, size_t max_lines, size_t* cut) {
  size_t pos = 0;
  for (size_t n = 0; n < max_lines && pos < text.size(); ++n) {
    size_t nl = text.find('\n', pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  *cut = 0;
  for (size_t i = pos; i < text.size(); ++i) *cut += text[i] == '\n';
  if (pos < text.size() && text.back() != '\n') ++*cut;
  return std::string(text.substr(0, pos));
}

std::string FixSection(const checker::Finding& f, const MarkdownOptions& o) {
  const bool offered =
      f.patch && !f.patch->diff.empty() && f.patch->verdict != checker::FixVerdict::kFailed;
  if (!offered) {
    std::string s = "**Fix:** " + MarkdownTextWithCode(f.fix) + ".\n";
    if (f.patch && f.patch->verdict == checker::FixVerdict::kFailed) {
      s += "A patch was made but not offered: " + MarkdownText(f.patch->reason) + ".\n";
    }
    return s;
  }
  std::string s = "**Suggested change**";
  s += f.patch->verdict == checker::FixVerdict::kVerified
           ? " (verified: with it applied in a fresh sandbox the catalog compiles and the finding "
             "is gone):"
           : " (not verified by a replay):";
  if (!f.patch->description.empty()) s += " " + MarkdownText(f.patch->description);
  s += "\n\n";
  size_t cut = 0;
  s += MarkdownFence(FirstLines(f.patch->diff, o.max_diff_lines, &cut), "diff");
  if (cut > 0)
    s += fmt::format("<sub>{} more lines: `--fix-diff FILE` writes it all.</sub>\n", cut);
  return s;
}

std::string FindingSection(size_t number, const checker::Finding& f, const catalog::Catalog& cat,
                           const graph::NeighbourhoodFinder& finder, const MarkdownOptions& o) {
  const bool mor = f.kind == checker::FaultKind::kMissingOrdering;
  const checker::Confirmation& conf = f.confirmation;
  std::string s =
      fmt::format("### {}. {} ([{}]({})){}\n\n", number,
                  mor ? "Missing ordering relationship" : "Missing notifier",
                  checker::FaultKindName(f.kind), RuleHelpUri(checker::FaultRuleId(f.kind)),
                  conf.confirmed                              ? ", confirmed"
                  : f.confidence == checker::Confidence::kLow ? ", low confidence"
                                                              : "");
  // A line never starts with a code span (a long backtick run there reads as a fence).
  s += mor ? "Nothing makes Puppet apply " : "Nothing makes ";
  s += Declared(cat.resource(f.source_declaration), o.source_root);
  if (f.source != f.source_declaration) s += ", for " + MarkdownCode(cat.resource(f.source).ref);
  s += mor ? " before " : " notify ";
  s += Declared(cat.resource(f.target_declaration), o.source_root);
  if (f.target != f.target_declaration) s += ", for " + MarkdownCode(cat.resource(f.target).ref);
  s += ".";
  if (f.write_write) s += " Both write the same path: the last writer wins by chance.";
  if (f.applied_in_reverse) s += " This run applied them in the wrong order.";
  if (!f.instances.empty()) {
    s += " The same code declares " +
         Plural(f.instances.size(), "more instance", "more instances") + " of this pair.";
  }
  s += "\n\n" + Evidence(f, cat) + "\n";
  if (conf.attempted) {
    s += conf.confirmed      ? "**Confirmed:** a replay forcing "
         : conf.inconclusive ? "**Replay inconclusive:** forcing "
                             : "**Not confirmed:** a replay forcing ";
    s += MarkdownCode(conf.forced);
    if (conf.confirmed && !conf.differences.empty()) {
      std::string first = conf.differences.front();
      s += " did otherwise: " + MarkdownText(first.substr(0, first.find('\n')));
    } else if (!conf.confirmed) {
      s += ": " + MarkdownText(conf.reason);
    }
    s += ".\n\n";
  }
  s += Picture(f, cat, finder, o) + "\n" + FixSection(f, o) + "\n";
  return s;
}

std::string FindingLine(const checker::Finding& f, const catalog::Catalog& cat,
                        const SourceRoot& root) {
  return fmt::format("- {} {} → {}\n", checker::FaultKindName(f.kind),
                     Declared(cat.resource(f.source_declaration), root),
                     Declared(cat.resource(f.target_declaration), root));
}

std::string NotIdempotentSection(size_t number, const NotIdempotent& n, const catalog::Catalog& cat,
                                 const SourceRoot& root) {
  const catalog::Resource* r = NotIdempotentResource(n, cat);
  std::string s =
      fmt::format("### {}. Not idempotent ([NI]({}))\n\n", number, RuleHelpUri("not-idempotent"));
  s += "Resource " + (r != nullptr ? Declared(*r, root) : MarkdownCode(n.resource)) + " " +
       MarkdownText(NotIdempotentBehaviour(n)) + ".";
  if (!n.second.empty()) {
    s += " Second apply: " + MarkdownCode(n.second.front().substr(0, n.second.front().find('\n'))) +
         ".";
  }
  return s + "\n\n**Fix:** " + MarkdownTextWithCode(NotIdempotentFix(n, cat)) + ".\n\n";
}

}  // namespace

void WriteFindingsMarkdown(std::ostream& out, const FindingsContext& c, const MarkdownOptions& o) {
  const catalog::Catalog& cat = *c.catalog;
  const checker::CheckResult& r = *c.result;
  std::vector<size_t> shown;
  size_t mor = 0, mn = 0, hidden = 0;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    if (c.IsSuppressed(i)) continue;
    if (c.IsHidden(i)) {
      ++hidden;
      continue;
    }
    (r.findings[i].kind == checker::FaultKind::kMissingOrdering ? mor : mn)++;
    shown.push_back(i);
  }
  const size_t ni = c.not_idempotent().size();
  const size_t total = shown.size() + ni;
  std::string doc(kMarkdownMarker);
  doc += total == 0 ? "## fsmove: no findings\n\n"
                    : fmt::format("## fsmove: {}\n\n", Plural(total, "finding", "findings"));
  std::vector<std::string> counts;
  if (mor > 0)
    counts.push_back(
        Plural(mor, "missing ordering relationship", "missing ordering relationships"));
  if (mn > 0) counts.push_back(Plural(mn, "missing notifier", "missing notifiers"));
  if (ni > 0) counts.push_back(Plural(ni, "resource not idempotent", "resources not idempotent"));
  if (c.suppressions != nullptr && c.suppressions->suppressed() > 0) {
    counts.push_back(fmt::format("{} suppressed", c.suppressions->suppressed()));
  }
  if (hidden > 0)
    counts.push_back(fmt::format("{} of low confidence hidden (`--all` shows them)", hidden));
  if (counts.empty()) counts.push_back("no missing ordering relationships or notifiers");
  std::string summary;
  for (size_t i = 0; i < counts.size(); ++i) summary += (i ? ", " : "") + counts[i];
  // fsmove check names what it applied; analyze, the recorded trace and catalog.
  doc += c.run != nullptr
             ? fmt::format("{} in the Puppet run of {}.\n\n", summary, MarkdownCode(c.run->target))
             : fmt::format("{} in {} (catalog {}).\n\n", summary, MarkdownCode(c.trace_name),
                           MarkdownCode(cat.source_name()));
  if (c.completeness != nullptr && !c.completeness->complete()) {
    doc += "> **Incomplete check:** " + MarkdownText(c.completeness->Headline()) +
           ". The findings cover only what ran.\n\n";
  }

  graph::NeighbourhoodFinder finder(*c.graph);
  std::string rest;
  size_t number = 0;
  for (size_t i : shown) {
    const checker::Finding& f = r.findings[i];
    ++number;
    std::string section;
    if (number <= o.max_detailed) section = FindingSection(number, f, cat, finder, o);
    if (section.empty() || doc.size() + section.size() > o.max_chars) {
      rest += FindingLine(f, cat, o.source_root);
    } else {
      doc += section;
    }
  }
  for (const NotIdempotent& n : c.not_idempotent()) {
    doc += NotIdempotentSection(++number, n, cat, o.source_root);
  }
  if (!rest.empty()) doc += "### More findings\n\n" + rest + "\n";
  if (!c.trace_kept && total > 0) {
    doc +=
        "Trace lines refer to this run's trace, which was not kept (`--save-trace FILE` keeps "
        "it).\n\n";
  }
  doc += fmt::format(
      "<sub>fsmove {} · what these findings mean: [the rules]({}) · [the method]({})</sub>\n",
      FSMOVE_VERSION, RuleHelpUri("README"), ToolInformationUri());
  out << doc;
}

}  // namespace fsmove::report
