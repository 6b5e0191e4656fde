// SARIF 2.1.0 output; see sarif.h. Field choices follow GitHub's "SARIF support for code
// scanning" (required properties, at most 10 locations, rules with help) and the OASIS spec.
#include "fsmove/report/sarif.h"

#include <cstdlib>

#include "fmt/format.h"
#include "fsmove/fstrace/lowering.h"

namespace fsmove::report {
namespace {

using Json = nlohmann::json;

struct RuleText {
  const char* id;
  const char* name;
  const char* level;
  const char* short_description;
  const char* full_description;
  const char* help_text;
  const char* help_markdown;
  const char* tag;
};

constexpr RuleText kRules[] = {
    {"missing-ordering", "MissingOrderingRelationship", "error",
     "A resource uses a file another resource produces, and nothing orders them.",
     "One Puppet resource produces a path (creates, writes, renames into, or changes the mode "
     "or owner of it) that another resource consumes or removes, and no chain of "
     "before/require/-> edges, containment, stages or autorequires makes Puppet apply the "
     "producer first. The catalog then applies correctly only by chance of Puppet's order; "
     "fsmove saw the dependency in a real run traced with strace.",
     "Declare the order: add `require => Type['producer']` to the resource that needs the "
     "file, or `before => Type['consumer']` to the one that produces it, or the chain "
     "`Type['producer'] -> Type['consumer']`. Each result gives the exact edit and the system "
     "calls that prove the dependency. If the two resources really commute, say so at either "
     "declaration with a comment `# fsmove:ignore:missing-ordering reason`, or accept the "
     "pair in .fsmove.json (ignore_pairs, with a reason).",
     "Declare the order between the two resources:\n\n"
     "- add `require => Type['producer']` to the resource that needs the file, or\n"
     "- add `before => Type['consumer']` to the resource that produces it, or\n"
     "- chain them: `Type['producer'] -> Type['consumer']`.\n\n"
     "Each result's message gives the exact edit; its properties list the conflicting paths "
     "with the system calls and trace lines that prove the dependency. If the two resources "
     "really commute, say so at either declaration with a comment "
     "`# fsmove:ignore:missing-ordering reason`, or accept the pair in `.fsmove.json` under "
     "`ignore_pairs` with a reason.",
     "ordering"},
    {"missing-notifier", "MissingNotifier", "warning",
     "A service reads a file another resource changes, and is not refreshed when it does.",
     "A Puppet service reads a path that another resource produces, and no notify/subscribe/~> "
     "relationship (directly, through containers, or through resources that relay refresh "
     "events) refreshes the service when that resource changes. The service keeps running "
     "with the old file until something else restarts it.",
     "Notify the service: add `subscribe => Type['producer']` to the service, or "
     "`notify => Service['name']` to the producer, or the chain `Type['producer'] ~> "
     "Service['name']`. Each result gives the exact edit. If the service really needs no "
     "restart, say so at either declaration with a comment "
     "`# fsmove:ignore:missing-notifier reason`, or accept the pair in .fsmove.json "
     "(ignore_pairs, with a reason).",
     "Refresh the service when the file changes:\n\n"
     "- add `subscribe => Type['producer']` to the service, or\n"
     "- add `notify => Service['name']` to the producer, or\n"
     "- chain them: `Type['producer'] ~> Service['name']`.\n\n"
     "Each result's message gives the exact edit. If the service really needs no restart, "
     "say so at either declaration with a comment `# fsmove:ignore:missing-notifier reason`, "
     "or accept the pair in `.fsmove.json` under `ignore_pairs` with a reason.",
     "notification"},
    {"not-idempotent", "NotIdempotent", "error",
     "Applying the catalog again changes a resource again, or makes it fail.",
     "fsmove applied the same catalog a second time in the same sandbox (and a third time "
     "when the second changed something). A resource that Puppet changed again, or that "
     "failed only then, is not idempotent: every agent run reports changes, refreshes what it "
     "notifies, and hides the changes that matter. The result says whether the resource "
     "changes on every apply or converged on the third.",
     "Make the resource find its desired state in place after one apply: guard an exec with "
     "creates, unless, onlyif or refreshonly; keep a file's content free of times and random "
     "data; use the values its provider keeps.",
     "Make the resource find its desired state in place after one apply:\n\n"
     "- guard an `exec` with `creates`, `unless`, `onlyif`, or `refreshonly => true`;\n"
     "- keep a file's content free of times and random data;\n"
     "- use the values the provider keeps (a mode, an owner, a normalised value).",
     "idempotence"},
};
constexpr int kNotIdempotentRule = 2;

int RuleIndex(checker::FaultKind kind) {
  return kind == checker::FaultKind::kMissingOrdering ? 0 : 1;
}
const RuleText& Rule(checker::FaultKind kind) { return kRules[RuleIndex(kind)]; }

Json RuleJson(const RuleText& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"shortDescription", {{"text", r.short_description}}},
          {"fullDescription", {{"text", r.full_description}}},
          {"helpUri", RuleHelpUri(r.id)},
          {"help", {{"text", r.help_text}, {"markdown", r.help_markdown}}},
          {"defaultConfiguration", {{"level", r.level}}},
          {"properties",
           {{"tags", {"puppet", "reliability", r.tag}},
            {"precision", "high"},
            {"problem.severity", r.level == std::string_view("error") ? "error" : "warning"}}}};
}

// An artifactLocation for a manifest: relative to %SRCROOT% inside the source root, else an
// absolute file URI.
Json ArtifactLocation(const std::string& file, const SourceRoot& root) {
  if (auto rel = root.Relative(file)) {
    return {{"uri", PercentEncodePath(*rel)}, {"uriBaseId", std::string(kSourceRootBaseId)}};
  }
  if (!file.empty() && file.front() == '/') return {{"uri", FileUri(file)}};
  return {{"uri", PercentEncodePath(file)}};
}

// A physical location for a resource's declaration, or null when the catalog has no file.
Json PhysicalLocation(const catalog::Resource& r, const SourceRoot& root) {
  if (r.file.empty()) return nullptr;
  Json physical = {{"artifactLocation", ArtifactLocation(r.file, root)}};
  if (r.line && *r.line >= 1) physical["region"] = {{"startLine", *r.line}};
  return physical;
}

Json Location(const catalog::Resource& r, const SourceRoot& root) {
  Json loc;
  Json physical = PhysicalLocation(r, root);
  if (!physical.is_null()) loc["physicalLocation"] = physical;
  loc["logicalLocations"] =
      Json::array({{{"name", r.title}, {"fullyQualifiedName", r.ref}, {"kind", "resource"}}});
  return loc;
}

std::string_view TargetVerb(const analysis::Access& a) {
  if (a.effect == fstrace::Effect::kProduced) return "also writes";
  if (a.effect == fstrace::Effect::kExpunged) return "removes";
  if (a.listing) return "lists the directory of";
  return "uses";
}

std::string MessageText(const checker::Finding& f, const catalog::Catalog& cat) {
  const catalog::Resource& src = cat.resource(f.source);
  const catalog::Resource& dst = cat.resource(f.target);
  // The source is a link to relatedLocations[0] (id 1): "[text](1)".
  std::string s = "[" + SarifMessageEscape(src.ref) + "](1)";
  std::string d = SarifMessageEscape(dst.ref);
  std::string text;
  if (f.kind == checker::FaultKind::kMissingOrdering) {
    text =
        fmt::format("{} must be applied after {}, and nothing in the catalog orders them.", d, s);
  } else {
    text = fmt::format("{} must be notified by {}: no notify, subscribe or ~> refreshes it.", d, s);
  }
  if (!f.evidence.empty()) {
    const checker::PathEvidence& e = f.evidence.front();
    text += fmt::format(" {} produces {} and {} {} it", s, SarifMessageEscape(e.path), d,
                        TargetVerb(e.target));
    if (f.paths.size() > 1) {
      text += fmt::format(" ({} more path{})", f.paths.size() - 1, f.paths.size() == 2 ? "" : "s");
    }
    text += ".";
  }
  if (f.write_write) text += " Both write the same path: the last writer wins by chance.";
  if (f.applied_in_reverse) text += " This run applied them in the wrong order.";
  const bool mor = f.kind == checker::FaultKind::kMissingOrdering;
  if (f.confirmation.confirmed) {
    text += std::string(" Confirmed: a replay ") + (mor ? "forcing " : "with ") +
            SarifMessageEscape(f.confirmation.forced) +
            (mor ? " did otherwise" : " left the service stale");
    if (!f.confirmation.differences.empty()) {
      std::string first = f.confirmation.differences.front();
      if (size_t nl = first.find('\n'); nl != std::string::npos) first = first.substr(0, nl);
      text += " (" + SarifMessageEscape(first) + ")";
    }
    text += ".";
  } else if (f.confirmation.attempted) {
    text +=
        std::string(f.confirmation.inconclusive ? " A replay " : " Not confirmed by a replay ") +
        (mor ? "forcing " : "with ") + SarifMessageEscape(f.confirmation.forced) +
        (f.confirmation.inconclusive ? " proves nothing: " : ": ") +
        SarifMessageEscape(f.confirmation.reason) + ".";
  }
  text += " Fix: " + SarifMessageEscape(f.fix) + ".";
  return text;
}

Json NotIdempotentResult(const NotIdempotent& n, const catalog::Catalog& cat,
                         const SourceRoot& root) {
  const catalog::Resource* r = NotIdempotentResource(n, cat);
  catalog::Resource generated;
  if (r == nullptr) {
    generated.ref = n.resource;
    generated.title = n.resource;
    r = &generated;
  }
  std::string text =
      SarifMessageEscape(n.resource) + " is not idempotent: it " + NotIdempotentBehaviour(n) + ".";
  if (!n.second.empty()) {
    std::string first = n.second.front();
    if (size_t nl = first.find('\n'); nl != std::string::npos) first = first.substr(0, nl);
    text += " Second apply: " + SarifMessageEscape(first) + ".";
  }
  text += " Fix: " + SarifMessageEscape(NotIdempotentFix(n, cat)) + ".";
  const std::string fingerprint = NotIdempotentFingerprint(n);
  return {{"ruleId", kRules[kNotIdempotentRule].id},
          {"ruleIndex", kNotIdempotentRule},
          {"level", "error"},
          {"message", {{"text", text}}},
          {"locations", Json::array({Location(*r, root)})},
          {"partialFingerprints",
           {{std::string(kFingerprintKey), fingerprint}, {"primaryLocationLineHash", fingerprint}}},
          {"properties",
           {{"kind", "NI"},
            {"source", n.resource},
            {"behaviour", n.behaviour},
            {"secondApply", n.second},
            {"thirdApply", n.third}}}};
}

// The fix as SARIF 3.55 fixes: one fix, an artifactChange per file (edits are sorted by
// file), a replacement per edit. Lines [line, end_line) run from column 1 of `line` to column
// 1 of `end_line`, so that the replaced text includes its newlines as insertedContent does.
Json Fixes(const checker::FixPatch& patch, const SourceRoot& root) {
  Json changes = Json::array();
  const std::string* file = nullptr;
  for (const checker::FixEdit& e : patch.edits) {
    if (file == nullptr || *file != e.file) {
      changes.push_back(
          {{"artifactLocation", ArtifactLocation(e.file, root)}, {"replacements", Json::array()}});
      file = &e.file;
    }
    Json region = {{"startLine", e.line}, {"startColumn", 1}, {"endColumn", 1}};
    if (e.end_line > e.line) region["endLine"] = e.end_line;
    changes.back()["replacements"].push_back(
        {{"deletedRegion", region}, {"insertedContent", {{"text", e.text}}}});
  }
  return Json::array({{{"description", {{"text", SarifMessageEscape(patch.description)}}},
                       {"artifactChanges", changes}}});
}

// Whether a patch is offered: it has edits and did not fail its verification.
bool Offered(const std::optional<checker::FixPatch>& patch) {
  return patch && !patch->edits.empty() && patch->verdict != checker::FixVerdict::kFailed;
}

Json ResultProperties(const checker::Finding& f, const catalog::Catalog& cat) {
  Json evidence = Json::array();
  for (const checker::PathEvidence& e : f.evidence) {
    evidence.push_back({{"path", e.path},
                        {"sourceSyscall", std::string(fstrace::SyscallName(e.source.syscall))},
                        {"sourceTraceLine", e.source.line},
                        {"targetSyscall", std::string(fstrace::SyscallName(e.target.syscall))},
                        {"targetTraceLine", e.target.line}});
  }
  return {{"kind", std::string(checker::FaultKindName(f.kind))},
          {"source", cat.resource(f.source).ref},
          {"target", cat.resource(f.target).ref},
          {"paths", f.paths},
          {"evidence", evidence},
          {"writeWrite", f.write_write},
          {"appliedInReverse", f.applied_in_reverse},
          {"confirmed", f.confirmation.attempted ? Json(f.confirmation.confirmed) : Json(nullptr)},
          {"confirmationDifferences", f.confirmation.differences},
          {"fix", f.fix}};
}

Json Notification(std::string text, const char* level) {
  return {{"message", {{"text", std::move(text)}}}, {"level", level}};
}

}  // namespace

std::string_view FindingLevel(const checker::Finding& f) {
  if (f.confidence == checker::Confidence::kLow) return "note";
  if (f.confirmation.attempted) return f.confirmation.confirmed ? "error" : "warning";
  return Rule(f.kind).level;
}

const catalog::Resource& PrimaryDeclaration(const checker::Finding& f,
                                            const catalog::Catalog& cat) {
  const catalog::Resource& src = cat.resource(f.source_declaration);
  const catalog::Resource& dst = cat.resource(f.target_declaration);
  return dst.file.empty() && !src.file.empty() ? src : dst;
}

std::string_view ToolInformationUri() { return FSMOVE_INFORMATION_URI; }

std::string RuleHelpUri(std::string_view id) {
  // The environment names where a project publishes the pages (a package's own default is
  // the local copy): read once, a slash added when it ends in none.
  static const std::string base = [] {
    const char* env = std::getenv("FSMOVE_RULES_URI");
    std::string b = env != nullptr && *env != '\0' ? env : FSMOVE_RULES_URI;
    if (b.empty() || b.back() != '/') b += '/';
    return b;
  }();
  return base + std::string(id) + ".md";
}

std::string SarifMessageEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\' || c == '[' || c == ']') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '{' || c == '}') {
      out.push_back(c);
      out.push_back(c);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

namespace {

// The result of finding i (`suppressed`: by a suppression or the baseline, shown anyway).
Json FindingResult(const FindingsContext& c, const SarifOptions& o, size_t i, bool suppressed) {
  const catalog::Catalog& cat = *c.catalog;
  const checker::Finding& f = c.result->findings[i];
  const gating::Suppressions* sup = c.suppressions;
  bool baseline = sup != nullptr && sup->has_baseline();
  // The declarations the fix names (the user's own, for resources inside defined types).
  const catalog::Resource& src = cat.resource(f.source_declaration);
  // The annotation goes where the fix goes: the target. Without a manifest for it, the
  // source's declaration (the other edit the fix offers) is the next best place.
  const catalog::Resource& primary = PrimaryDeclaration(f, cat);
  Json related = Location(src, o.source_root);
  related["id"] = 1;
  related["message"] = {
      {"text", SarifMessageEscape(fmt::format("{} ({})", src.ref,
                                              f.kind == checker::FaultKind::kMissingOrdering
                                                  ? "must be applied first"
                                                  : "must notify"))}};
  Json result = {{"ruleId", std::string(checker::FaultRuleId(f.kind))},
                 {"ruleIndex", RuleIndex(f.kind)},
                 {"level", std::string(FindingLevel(f))},
                 {"message", {{"text", MessageText(f, cat)}}},
                 {"locations", Json::array({Location(primary, o.source_root)})},
                 {"relatedLocations", Json::array({related})},
                 {"partialFingerprints",
                  {{std::string(kFingerprintKey), f.fingerprint},
                   // GitHub combines this key with the file and rule to match alerts across runs;
                   // it computes one from the line's text when absent, which moves with every edit.
                   {"primaryLocationLineHash", f.fingerprint}}},
                 {"suppressions", Json::array()},
                 {"properties", ResultProperties(f, cat)}};
  if (Offered(f.patch)) result["fixes"] = Fixes(*f.patch, o.source_root);
  if (suppressed) {
    // A comment in the code is SARIF's inSource suppression, located at the comment; an
    // ignore_pair or the baseline, an external one.
    const gating::FindingSuppression& s = sup->findings[i];
    const bool in_source = s.kind == gating::SuppressionKind::kInSource;
    Json suppression = {{"kind", in_source ? "inSource" : "external"},
                        {"status", "accepted"},
                        {"justification", s.justification}};
    if (in_source) {
      suppression["location"] = {{"physicalLocation",
                                  {{"artifactLocation", ArtifactLocation(s.file, o.source_root)},
                                   {"region", {{"startLine", s.line}}}}}};
    }
    result["suppressions"].push_back(std::move(suppression));
  }
  if (baseline) result["baselineState"] = sup->findings[i].in_baseline ? "unchanged" : "new";
  return result;
}

// The run's results: the findings shown, then the resources that are not idempotent. *mor
// and *mn count the findings not suppressed.
Json Results(const FindingsContext& c, const SarifOptions& o, size_t* mor, size_t* mn) {
  const checker::CheckResult& r = *c.result;
  Json results = Json::array();
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const checker::Finding& f = r.findings[i];
    bool suppressed = c.IsSuppressed(i);
    if (!suppressed) (f.kind == checker::FaultKind::kMissingOrdering ? *mor : *mn)++;
    if (suppressed && !c.show_suppressed) continue;
    results.push_back(FindingResult(c, o, i, suppressed));
  }
  for (const NotIdempotent& n : c.not_idempotent()) {
    results.push_back(NotIdempotentResult(n, *c.catalog, o.source_root));
  }
  return results;
}

// What the check did not see whole: the catalog's warnings and cycles, blocks of no
// resource, the suppressions' warnings, an incomplete apply or trace.
Json Notifications(const FindingsContext& c) {
  const catalog::Catalog& cat = *c.catalog;
  const checker::CheckResult& r = *c.result;
  const gating::Suppressions* sup = c.suppressions;
  Json notifications = Json::array();
  for (const auto& w : cat.warnings()) {
    notifications.push_back(Notification(
        fmt::format("{}: {}: {}", cat.source_name(), w.json_pointer, w.message), "warning"));
  }
  for (const auto& cycle : c.graph->cycles()) {
    std::string text = "Dependency cycle in the catalog (Puppet would refuse to apply it):";
    for (const auto& ref : cycle.path) text += " " + ref;
    notifications.push_back(Notification(std::move(text), "warning"));
  }
  for (const auto& u : r.stats.unknown_blocks) {
    notifications.push_back(Notification(
        fmt::format("{} is in the trace but not in the catalog (skipped)", u.ref), "warning"));
  }
  if (sup != nullptr) {
    for (const auto& w : sup->warnings) notifications.push_back(Notification(w, "warning"));
  }
  const bool incomplete = c.completeness != nullptr && !c.completeness->complete();
  if (incomplete) {
    // The check saw only part of the apply: an error unless --allow-failed accepts it, then
    // each resource and the evidence lost with it.
    notifications.push_back(
        Notification(fmt::format("Incomplete check: {}. The findings cover only what ran",
                                 c.completeness->Headline()),
                     c.allow_failed && c.completeness->limits_hit.empty() ? "warning" : "error"));
    for (const checker::ResourceGap& g : c.completeness->gaps) {
      std::string text =
          fmt::format("{} {}", g.ref.empty() ? "a resource" : g.ref,
                      g.kind == checker::GapKind::kFailed    ? "failed"
                      : g.kind == checker::GapKind::kSkipped ? "was skipped"
                                                             : "was never evaluated");
      if (!g.message.empty()) text += ": " + g.message;
      text += "; evidence lost: " + g.evidence_lost;
      notifications.push_back(Notification(std::move(text), "warning"));
    }
  }
  if (c.run != nullptr) {
    // Listed above with the rest of what the check did not see.
    for (const auto& f : c.run->failed) {
      if (incomplete) break;
      notifications.push_back(
          Notification(fmt::format("Puppet reported {} as failed: {}",
                                   f.resource.empty() ? "a resource" : f.resource, f.message),
                       "warning"));
    }
    if (!c.run->trace_complete) {
      notifications.push_back(Notification(
          fmt::format("The trace is incomplete (strace ended: {}); findings cover only what was "
                      "traced",
                      c.run->strace_end),
          "warning"));
    }
  }
  return notifications;
}

// The run's properties: what was checked, the counts, completeness and baseline.
Json RunProperties(const FindingsContext& c, size_t mor, size_t mn) {
  const gating::Suppressions* sup = c.suppressions;
  bool baseline = sup != nullptr && sup->has_baseline();
  const bool incomplete = c.completeness != nullptr && !c.completeness->complete();
  Json properties = {{"trace", c.trace_name},
                     {"catalog", c.catalog->source_name()},
                     {"summary",
                      {{"MOR", mor},
                       {"MN", mn},
                       {"NI", c.not_idempotent().size()},
                       {"suppressed", sup != nullptr ? sup->suppressed() : 0}}}};
  if (c.completeness != nullptr) {
    properties["completeness"] = CompletenessToJson(*c.completeness, c.allow_failed);
    properties["summary"]["incomplete"] = incomplete;
  }
  if (baseline) {
    properties["baseline"] = {{"file", sup->baseline_name},
                              {"suppressed", sup->by_baseline},
                              {"absent", sup->absent.size()}};
  }
  return properties;
}

}  // namespace

nlohmann::json FindingsToSarif(const FindingsContext& c, const SarifOptions& o) {
  size_t mor = 0, mn = 0;
  Json results = Results(c, o, &mor, &mn);

  Json rules = Json::array();
  for (const RuleText& rule : kRules) rules.push_back(RuleJson(rule));
  Json driver = {{"name", "fsmove"},
                 {"version", FSMOVE_VERSION},
                 {"semanticVersion", FSMOVE_VERSION},
                 {"informationUri", FSMOVE_INFORMATION_URI},
                 {"rules", rules}};

  Json run = {{"tool", {{"driver", driver}}},
              {"invocations", Json::array({{{"executionSuccessful", true},
                                            {"toolExecutionNotifications", Notifications(c)}}})},
              {"results", results},
              {"properties", RunProperties(c, mor, mn)}};
  if (!o.source_root.empty()) {
    std::string root = o.source_root.path();
    if (root.back() != '/') root += '/';
    run["originalUriBaseIds"] = {
        {std::string(kSourceRootBaseId),
         {{"uri", FileUri(root)},
          {"description", {{"text", "The repository root (--source-root)."}}}}}};
  }
  return {{"$schema", std::string(kSarifSchemaUri)},
          {"version", "2.1.0"},
          {"runs", Json::array({run})}};
}

}  // namespace fsmove::report
