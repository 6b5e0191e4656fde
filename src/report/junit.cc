// JUnit XML output; see junit.h.
#include "fsmove/report/junit.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "fmt/format.h"
#include "fsmove/base/terminal_text.h"

namespace fsmove::report {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at s[i] (1-4), or 0 when it is not one.
size_t Utf8Length(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](size_t k) { return k < s.size() && (b(k) & 0xC0) == 0x80; };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogates
    // U+FFFE and U+FFFF are not XML characters either.
    if (c == 0xEF && b(i + 1) == 0xBF && b(i + 2) >= 0xBE) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(i + 1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

struct Case {
  std::string classname;
  std::string name;
  int line = 0;
  std::vector<size_t> failing;     // findings, not suppressed
  std::vector<size_t> suppressed;  // findings, suppressed
  std::vector<const NotIdempotent*> not_idempotent;
};

std::string FindingBlock(const checker::Finding& f, const catalog::Catalog& cat,
                         const SourceRoot& root) {
  const catalog::Resource& src = cat.resource(f.source);
  const catalog::Resource& dst = cat.resource(f.target);
  auto where = [&](const catalog::Resource& r) {
    if (r.file.empty()) return std::string();
    return r.line ? fmt::format(" ({}:{})", root.Display(r.file), *r.line)
                  : fmt::format(" ({})", root.Display(r.file));
  };
  std::string text = fmt::format(
      "{} ({}): {}{} {} {}{}\n",
      f.kind == checker::FaultKind::kMissingOrdering ? "Missing ordering relationship"
                                                     : "Missing notifier",
      checker::FaultRuleId(f.kind), src.ref, where(src),
      f.kind == checker::FaultKind::kMissingOrdering ? "must be applied before" : "must notify",
      dst.ref, where(dst));
  if (f.write_write) text += "  both write the same path: the last writer wins by chance\n";
  if (f.applied_in_reverse) text += "  (this run applied them in the wrong order)\n";
  for (const checker::PathEvidence& e : f.evidence) {
    text += "  " + EvidenceText(e, src, dst) + "\n";
  }
  if (f.evidence_total > f.evidence.size()) {
    text += fmt::format("  ... and {} more\n", f.evidence_total - f.evidence.size());
  }
  text += fmt::format("  fix: {}\n  fingerprint: {}\n", f.fix, f.fingerprint);
  return text;
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default: {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) {
          out += kReplacement;  // not an XML 1.0 character (DEL is, but no one wants it)
          break;
        }
        size_t n = Utf8Length(text, i);
        if (n == 0) {
          out += kReplacement;
          ++i;
          continue;
        }
        // C1 and bidirectional controls as character references: a U+202E in a title
        // cannot reverse what a viewer of the XML shows.
        if (const base::Utf8Char u = base::DecodeUtf8(text, i);
            n > 1 && u.length == n && base::IsFormatControl(u.code_point)) {
          out += base::XmlCharRef(u.code_point);
        } else {
          out.append(text.substr(i, n));
        }
        i += n;
        continue;
      }
    }
    ++i;
  }
  return out;
}

namespace {

// The report's test cases: one per resource checked or in a finding (its target's), one per
// generated resource that is not idempotent; `order` sorts them by file, line and name.
struct CaseList {
  std::map<catalog::ResourceId, Case> of_resource;
  std::map<std::string, Case> generated;
  std::vector<const Case*> order;  // into the maps above
};

void CollectCases(const FindingsContext& c, const SourceRoot& root, CaseList* all) {
  const catalog::Catalog& cat = *c.catalog;
  const checker::CheckResult& r = *c.result;
  std::map<catalog::ResourceId, Case>& cases = all->of_resource;
  auto case_for = [&](catalog::ResourceId id) -> Case& {
    auto [it, added] = cases.try_emplace(id);
    if (added) {
      const catalog::Resource& res = cat.resource(id);
      it->second.classname = res.file.empty() ? res.type : root.Display(res.file);
      it->second.name = res.ref;
      it->second.line = res.line.value_or(0);
    }
    return it->second;
  };
  for (catalog::ResourceId id : r.stats.checked_resources) case_for(id);
  for (size_t i = 0; i < r.findings.size(); ++i) {
    Case& k = case_for(r.findings[i].target);
    (c.IsSuppressed(i) ? k.suppressed : k.failing).push_back(i);
  }
  // A resource that is not idempotent and not in the catalog (generated): a case of its own.
  std::map<std::string, Case>& generated = all->generated;
  for (const NotIdempotent& n : c.not_idempotent()) {
    if (std::optional<catalog::ResourceId> id = cat.ResolveRef(n.resource)) {
      case_for(*id).not_idempotent.push_back(&n);
    } else {
      Case& k = generated[n.resource];
      k.classname = n.resource.substr(0, n.resource.find('['));
      k.name = n.resource;
      k.not_idempotent.push_back(&n);
    }
  }
  std::vector<const Case*>& order = all->order;
  order.reserve(cases.size() + generated.size());
  for (const auto& [id, k] : cases) order.push_back(&k);
  for (const auto& [ref, k] : generated) order.push_back(&k);
  std::sort(order.begin(), order.end(), [](const Case* a, const Case* b) {
    return std::tie(a->classname, a->line, a->name) < std::tie(b->classname, b->line, b->name);
  });
}

void WriteProperties(std::ostream& out, const FindingsContext& c) {
  out << "    <properties>\n";
  auto property = [&](std::string_view name, std::string_view value) {
    out << "      <property name=\"" << XmlEscape(name) << "\" value=\"" << XmlEscape(value)
        << "\"/>\n";
  };
  property("fsmove.version", FSMOVE_VERSION);
  property("trace", c.trace_name);
  property("catalog", c.catalog->source_name());
  if (c.suppressions != nullptr) {
    property("suppressed", std::to_string(c.suppressions->suppressed()));
    if (c.suppressions->has_baseline()) property("baseline", c.suppressions->baseline_name);
  }
  if (c.completeness != nullptr && !c.completeness->complete()) {
    property("incomplete", c.completeness->Summary());
  }
  out << "    </properties>\n";
}

// One <testcase>: passing, or failing with its findings (else its first non-idempotence), or
// skipped with its suppressed findings.
void WriteCase(std::ostream& out, const Case& k, const FindingsContext& c, const SourceRoot& root) {
  const catalog::Catalog& cat = *c.catalog;
  const checker::CheckResult& r = *c.result;
  out << "    <testcase classname=\"" << XmlEscape(k.classname) << "\" name=\"" << XmlEscape(k.name)
      << "\" time=\"0\"";
  if (k.failing.empty() && k.suppressed.empty() && k.not_idempotent.empty()) {
    out << "/>\n";
    return;
  }
  out << ">\n";
  if (k.failing.empty() && !k.not_idempotent.empty()) {
    const NotIdempotent& n = *k.not_idempotent.front();
    std::string text;
    for (const std::string& m : n.second) text += "  second apply: " + m + "\n";
    for (const std::string& m : n.third) text += "  third apply: " + m + "\n";
    text += "  fix: " + NotIdempotentFix(n, cat) + "\n";
    out << "      <failure type=\"not-idempotent\" message=\""
        << XmlEscape(n.resource + " is not idempotent: it " + NotIdempotentBehaviour(n)) << "\">"
        << XmlEscape(text) << "</failure>\n";
  } else if (!k.failing.empty()) {
    const checker::Finding& first = r.findings[k.failing.front()];
    std::string message = FindingHeadline(first, cat);
    if (k.failing.size() > 1) message += fmt::format(" (and {} more)", k.failing.size() - 1);
    std::string text;
    for (size_t i : k.failing) text += FindingBlock(r.findings[i], cat, root);
    for (const NotIdempotent* n : k.not_idempotent) {
      text += fmt::format("Not idempotent (not-idempotent): {} {}\n", n->resource,
                          NotIdempotentBehaviour(*n));
    }
    out << "      <failure type=\"" << checker::FaultRuleId(first.kind) << "\" message=\""
        << XmlEscape(message) << "\">" << XmlEscape(text) << "</failure>\n";
  } else {
    std::string message;
    for (size_t i : k.suppressed) {
      if (!message.empty()) message += "; ";
      message += fmt::format("{} suppressed: {}", FindingHeadline(r.findings[i], cat),
                             c.suppressions->findings[i].justification);
    }
    out << "      <skipped message=\"" << XmlEscape(message) << "\"/>\n";
  }
  out << "    </testcase>\n";
}

}  // namespace

void WriteFindingsJunit(std::ostream& out, const FindingsContext& c, const JunitOptions& o) {
  const SourceRoot& root = o.source_root;
  CaseList cases;
  CollectCases(c, root, &cases);
  const std::vector<const Case*>& order = cases.order;

  size_t failures = 0, skipped = 0;
  for (const Case* k : order) {
    if (!k->failing.empty() || !k->not_idempotent.empty()) {
      ++failures;
    } else if (!k->suppressed.empty()) {
      ++skipped;
    }
  }
  size_t tests = std::max<size_t>(order.size(), 1);
  double seconds = c.seconds.parse_interpret + c.seconds.catalog_and_graph + c.seconds.check;
  std::string suite = "fsmove " + c.trace_name;

  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"fsmove\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      tests, failures, skipped, seconds);
  out << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      XmlEscape(suite), tests, failures, skipped, seconds);
  WriteProperties(out, c);
  if (order.empty()) {
    // No resource ran: one passing case, so the totals are not empty and say why.
    out << "    <testcase classname=\"fsmove\" name=\""
        << XmlEscape("no resource blocks in " + c.trace_name) << "\" time=\"0\"/>\n";
  }
  for (const Case* k : order) WriteCase(out, *k, c, root);
  if (c.run != nullptr) {
    std::ostringstream run;
    WriteRunText(run, *c.run);
    out << "    <system-out>" << XmlEscape(run.str()) << "</system-out>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace fsmove::report
