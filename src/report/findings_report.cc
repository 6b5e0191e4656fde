// Text and JSON reports of the checker's findings; see findings_report.h.
#include "fsmove/report/findings_report.h"

#include <sstream>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "fsmove/base/sha256.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/fstrace/lowering.h"

namespace fsmove::report {

using base::TerminalSafe;
namespace {

std::string Declared(const catalog::Resource& r) {
  if (r.file.empty()) return TerminalSafe(r.ref);
  return r.line ? fmt::format("{} ({}:{})", TerminalSafe(r.ref), TerminalSafe(r.file), *r.line)
                : fmt::format("{} ({})", TerminalSafe(r.ref), TerminalSafe(r.file));
}

nlohmann::json ResourceJson(const catalog::Resource& r) {
  nlohmann::json j;
  j["resource"] = r.ref;
  j["file"] = r.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.file);
  j["line"] = r.line ? nlohmann::json(*r.line) : nlohmann::json(nullptr);
  return j;
}

// Which graph the findings were checked against: Puppet's own (its --graph output, with
// the catalog's relationships for labels and containment), or the catalog's relationships
// and the autorequires fsmove models, plus every relationship Puppet logged adding (--debug).
size_t PuppetEdgeCount(const graph::DependencyGraph& g) {
  size_t n = 0;
  for (const graph::DeclaredEdge& e : g.edges()) n += e.origin == graph::EdgeOrigin::kPuppet;
  return n;
}

nlohmann::json GraphJson(const FindingsContext& c) {
  const graph::DependencyGraph& g = *c.graph;
  size_t puppet = PuppetEdgeCount(g);
  nlohmann::json j = {{"model", !c.puppet_graph.empty() ? "puppet"
                                : puppet > 0            ? "catalog+puppet-log"
                                                        : "catalog"},
                      {"edges", g.edges().size()},
                      {"puppet_edges", puppet}};
  if (!c.puppet_graph.empty()) j["puppet_graph"] = c.puppet_graph;
  return j;
}

// Puppet's error text, terminal-safe line by line, its later lines indented.
std::string Indented(std::string_view text, std::string_view indent) {
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t end = text.find('\n', start);
    out += TerminalSafe(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    out += '\n';
    out += indent;
    start = end + 1;
  }
  return out;
}

}  // namespace

void WriteRunText(std::ostream& out, const RunSummary& run) {
  out << "Puppet run: " << TerminalSafe(run.target) << " (sandbox " << run.sandbox;
  if (!run.root.empty()) out << ", root " << TerminalSafe(run.root);
  if (!run.puppet_version.empty()) out << ", Puppet " << TerminalSafe(run.puppet_version);
  if (run.init == "systemd") out << ", systemd as PID 1";
  out << "), compiled in " << fmt::format("{:.1f}", run.compile_seconds) << " s, applied in "
      << fmt::format("{:.1f}", run.apply_seconds) << " s, puppet exit code "
      << run.puppet_exit_code;
  if (run.timed_out) out << " (" << run.WhyUnfinished() << ")";
  out << ", strace " << run.strace_end << "\n";
  if (!run.node.empty() || !run.facts.empty() || !run.klass.empty()) {
    out << "  compiled for " << (run.node.empty() ? "this machine" : TerminalSafe(run.node));
    if (!run.klass.empty()) out << ", class " << TerminalSafe(run.klass);
    if (!run.facts.empty()) out << ", with the facts of " << TerminalSafe(run.facts);
    out << "\n";
  }
  if (!run.root_choice.empty()) {
    out << "  root chosen by --root auto: " << TerminalSafe(run.root_choice) << "\n";
  }
  if (!run.init_choice.empty()) {
    out << "  systemd chosen by --init auto: " << TerminalSafe(run.init_choice) << "\n";
  }
  if (!run.trace_complete) {
    out << "  warning: the trace is incomplete (strace ended: " << run.strace_end
        << "); findings cover only what was traced\n";
  }
  if (!run.failed.empty()) {
    out << "  " << run.failed.size() << " resource" << (run.failed.size() == 1 ? "" : "s")
        << " failed (often the symptom of a missing ordering relationship):\n";
    for (const auto& f : run.failed) {
      out << "    " << (f.resource.empty() ? "?" : TerminalSafe(f.resource)) << ": "
          << Indented(f.message, "      ") << "\n";
    }
  }
  for (const auto& l : run.limits_hit) out << "  warning: " << TerminalSafe(l) << "\n";
  for (const auto& w : run.warnings) out << "  warning: " << TerminalSafe(w) << "\n";
  for (const auto& e : run.errors) out << "  puppet error: " << Indented(e, "    ") << "\n";
  out << "  Puppet's log: "
      << (run.puppet_log.empty() ? "not kept (--puppet-log FILE keeps it)"
                                 : TerminalSafe(run.puppet_log))
      << "\n";
}

void WriteCompletenessText(std::ostream& out, const checker::Completeness& c, bool allow_failed,
                           size_t max_listed) {
  if (c.complete()) return;
  out << "\nIncomplete check: " << TerminalSafe(c.Headline()) << ". The findings cover only what "
      << (c.apply_complete() ? "was analysed" : "ran")
      << (!c.limits_hit.empty() ? "; exit code 3"
          : allow_failed        ? " (--allow-failed: judged on its findings alone)"
                                : "; exit code 3 (--allow-failed judges it on its findings alone)")
      << ".\n";
  for (checker::GapKind kind :
       {checker::GapKind::kFailed, checker::GapKind::kSkipped, checker::GapKind::kNotEvaluated}) {
    size_t n = c.Count(kind), shown = 0;
    if (n == 0) continue;
    const checker::ResourceGap* first = nullptr;
    for (const auto& g : c.gaps) {
      if (g.kind == kind && first == nullptr) first = &g;
    }
    out << "  " << n << " "
        << (kind == checker::GapKind::kFailed    ? "failed"
            : kind == checker::GapKind::kSkipped ? "skipped (their dependencies failed)"
                                                 : "never evaluated")
        << "; evidence lost: " << first->evidence_lost << ":\n";
    for (const auto& g : c.gaps) {
      if (g.kind != kind) continue;
      if (shown++ == max_listed) {
        out << "    ... and " << n - max_listed << " more (JSON lists them all)\n";
        break;
      }
      out << "    " << (g.ref.empty() ? "?" : TerminalSafe(g.ref));
      if (!g.message.empty()) out << ": " << Indented(g.message, "      ");
      out << "\n";
    }
  }
  for (const auto& p : c.apply_problems) out << "  " << TerminalSafe(p) << "\n";
}

nlohmann::json CompletenessToJson(const checker::Completeness& c, bool allow_failed) {
  nlohmann::json lists = {{"failed", nlohmann::json::array()},
                          {"skipped", nlohmann::json::array()},
                          {"not_evaluated", nlohmann::json::array()}};
  for (const auto& g : c.gaps) {
    nlohmann::json e = {
        {"resource", g.ref.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.ref)},
        {"evidence_lost", g.evidence_lost}};
    if (g.kind == checker::GapKind::kFailed) e["message"] = g.message;
    lists[g.kind == checker::GapKind::kFailed    ? "failed"
          : g.kind == checker::GapKind::kSkipped ? "skipped"
                                                 : "not_evaluated"]
        .push_back(std::move(e));
  }
  nlohmann::json limits = nlohmann::json::array();
  for (const base::BudgetHit& hit : c.limits_hit) {
    limits.push_back({{"limit", base::BudgetName(hit.limit)},
                      {"value", hit.value},
                      {"flag", base::BudgetFlag(hit.limit)},
                      {"where", hit.where},
                      {"message", hit.Sentence()}});
  }
  return {{"complete", c.complete()},
          {"summary", c.Summary()},
          {"catalog_resources", c.catalog_resources},
          {"evaluated", c.evaluated},
          {"failed", lists["failed"]},
          {"skipped", lists["skipped"]},
          {"not_evaluated", lists["not_evaluated"]},
          {"apply_problems", c.apply_problems},
          {"limits_hit", limits},
          {"allow_failed", allow_failed}};
}

nlohmann::json RunToJson(const RunSummary& run) {
  nlohmann::json failed = nlohmann::json::array();
  for (const auto& f : run.failed) {
    failed.push_back(
        {{"resource", f.resource.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.resource)},
         {"message", f.message}});
  }
  return {{"target", run.target},
          {"sandbox", run.sandbox},
          {"root", run.root},
          {"root_choice",
           run.root_choice.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.root_choice)},
          {"node", run.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.node)},
          {"facts", run.facts.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.facts)},
          {"class", run.klass.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.klass)},
          {"init_choice",
           run.init_choice.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.init_choice)},
          {"init", run.init},
          {"puppet_version", run.puppet_version.empty() ? nlohmann::json(nullptr)
                                                        : nlohmann::json(run.puppet_version)},
          {"puppet_exit_code", run.puppet_exit_code},
          {"timed_out", run.timed_out},
          {"timed_out_phase",
           run.timed_out ? nlohmann::json(run.timed_out_phase) : nlohmann::json(nullptr)},
          {"trace_complete", run.trace_complete},
          {"strace_end", run.strace_end},
          {"puppet_log",
           run.puppet_log.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.puppet_log)},
          {"compile_seconds", run.compile_seconds},
          {"apply_seconds", run.apply_seconds},
          {"failed_resources", failed},
          {"errors", run.errors},
          {"limits_hit", run.limits_hit},
          {"warnings", run.warnings},
          {"idempotence", run.idempotence.checked
                              ? nlohmann::json{{"exit_codes", run.idempotence.exit_codes},
                                               {"cut_short", run.idempotence.cut_short},
                                               {"not_idempotent", run.idempotence.resources.size()}}
                              : nlohmann::json(nullptr)},
          {"confirm", run.confirm},
          {"confirm_seconds", run.confirm_seconds},
          {"notes", run.notes}};
}

bool FindingsContext::IsHidden(size_t finding) const {
  return !show_low && result != nullptr &&
         result->findings[finding].confidence == checker::Confidence::kLow;
}

// What decides the exit code: findings neither suppressed nor hidden for low confidence,
// and resources that are not idempotent.
size_t FindingsContext::ReportedCount(bool confirmed_only) const {
  size_t n = not_idempotent().size();
  if (result == nullptr) return n;
  for (size_t i = 0; i < result->findings.size(); ++i) {
    if (confirmed_only && !result->findings[i].confirmation.confirmed) continue;
    const checker::Finding& f = result->findings[i];
    if (f.patch && f.patch->applied) continue;  // --fix made it: fixed in the code now
    n += IsSuppressed(i) || IsHidden(i) ? 0 : 1;
  }
  return n;
}

const std::vector<NotIdempotent>& FindingsContext::not_idempotent() const {
  static const std::vector<NotIdempotent> kNone;
  return run != nullptr ? run->idempotence.resources : kNone;
}

const catalog::Resource* NotIdempotentResource(const NotIdempotent& n,
                                               const catalog::Catalog& cat) {
  std::optional<catalog::ResourceId> id = cat.ResolveRef(n.resource);
  return id ? &cat.resource(*id) : nullptr;
}

std::string NotIdempotentBehaviour(const NotIdempotent& n) {
  if (n.behaviour == "changes-every-apply") return "changes on every apply";
  if (n.behaviour == "converged-on-third-apply") {
    return "changed again on the second apply, converged on the third";
  }
  if (n.behaviour == "fails-on-reapply") return "fails when applied again";
  return "changed again on the second apply";
}

std::string NotIdempotentFix(const NotIdempotent& n, const catalog::Catalog& cat) {
  const catalog::Resource* r = NotIdempotentResource(n, cat);
  const std::string ref = r != nullptr ? checker::PuppetReference(*r) : n.resource;
  const std::string type = r != nullptr ? r->type : n.resource.substr(0, n.resource.find('['));
  if (n.behaviour == "fails-on-reapply") {
    return fmt::format(
        "make {} succeed on a machine it already configured (a second apply "
        "must find nothing to do)",
        ref);
  }
  if (n.behaviour == "converged-on-third-apply") {
    return fmt::format(
        "make {} reach its final state in one apply: what it depends on changes "
        "after it (an ordering or a value computed before a change)",
        ref);
  }
  if (type == "Exec") {
    return fmt::format(
        "give {} a guard so that it runs only when needed: `creates`, `unless`, "
        "`onlyif`, or `refreshonly => true` with a subscription",
        ref);
  }
  if (type == "File") {
    return fmt::format(
        "make {}'s desired state constant: a content that embeds the time or "
        "random data, or an owner, group or mode the system changes back, makes "
        "every apply change it",
        ref);
  }
  return fmt::format(
      "make {}'s desired state one that Puppet finds already in place after "
      "it applied it (a value its provider normalises differently, or one "
      "something else changes back)",
      ref);
}

std::string NotIdempotentFingerprint(const NotIdempotent& n) {
  std::string hex = base::Sha256Hex("fsmove-finding/v1\nnot-idempotent\n" + n.resource);
  return hex.substr(0, 32);
}

std::string FindingHeadline(const checker::Finding& f, const catalog::Catalog& cat) {
  const std::string& src = cat.resource(f.source).ref;
  const std::string& dst = cat.resource(f.target).ref;
  return f.kind == checker::FaultKind::kMissingOrdering
             ? fmt::format("{} must be applied after {}", dst, src)
             : fmt::format("{} must be notified by {}", dst, src);
}

std::string EvidenceText(const checker::PathEvidence& e, const catalog::Resource& source,
                         const catalog::Resource& target) {
  return fmt::format("{}: {} by {} ({} at line {}), {} by {} ({} at line {})", e.path,
                     AccessVerb(e.source), source.ref, fstrace::SyscallName(e.source.syscall),
                     e.source.line, AccessVerb(e.target), target.ref,
                     fstrace::SyscallName(e.target.syscall), e.target.line);
}

std::string CitationText(const checker::Citation& c) {
  const checker::knowledge::Row& row = *c.row;
  return fmt::format("weakened by {}, row {} ({}:{}): {}", c.rule, row.id, row.file, row.line,
                     row.source);
}

nlohmann::json CitationJson(const checker::Citation& c) {
  const checker::knowledge::Row& row = *c.row;
  return {{"rule", std::string(c.rule)},
          {"row", std::string(row.id)},
          {"kind", std::string(row.kind)},
          {"match", std::string(checker::knowledge::MatchName(row.match))},
          {"fact", std::string(row.fact)},
          {"table", std::string(row.file)},
          {"line", row.line},
          {"source", std::string(row.source)}};
}

namespace {

std::string_view SuppressionKindName(gating::SuppressionKind k) {
  return k == gating::SuppressionKind::kBaseline   ? "baseline"
         : k == gating::SuppressionKind::kInSource ? "in_source"
                                                   : "ignore_pair";
}

// What suppressed the run's findings: "1 by comments in the code, 2 in baseline B.json".
std::string SuppressedBy(const gating::Suppressions& s) {
  std::vector<std::string> by;
  if (s.by_source > 0) by.push_back(fmt::format("{} by comments in the code", s.by_source));
  if (s.by_baseline > 0)
    by.push_back(fmt::format("{} in baseline {}", s.by_baseline, s.baseline_name));
  if (s.by_pair > 0)
    by.push_back(fmt::format("{} by ignore_pairs in {}", s.by_pair, s.config_name));
  return absl::StrJoin(by, ", ");
}

// " at FILE:LINE" for a comment in the code, else nothing.
std::string SuppressedWhere(const gating::FindingSuppression& s) {
  if (s.kind != gating::SuppressionKind::kInSource) return "";
  return fmt::format(" at {}:{}", TerminalSafe(s.file), s.line);
}

// --fix-diff: the patch under the fix sentence, or why there is none.
void WritePatchText(std::ostream& out, const checker::Finding& f) {
  if (!f.patch) return;
  const checker::FixPatch& p = *f.patch;
  if (p.diff.empty() || p.verdict == checker::FixVerdict::kFailed) {
    out << "  patch: none (" << TerminalSafe(p.reason) << ")\n";
    return;
  }
  out << "  patch (" << checker::FixVerdictName(p.verdict) << (p.applied ? ", made in place" : "")
      << ", from " << TerminalSafe(p.root) << "): " << TerminalSafe(p.description) << "\n";
  std::string_view diff = p.diff;
  while (!diff.empty() && diff.back() == '\n') diff.remove_suffix(1);
  out << "    " << Indented(diff, "    ") << "\n";
}

void WriteFindingText(std::ostream& out, const checker::Finding& f, const catalog::Catalog& cat,
                      const gating::FindingSuppression* suppression) {
  const catalog::Resource& src = cat.resource(f.source);
  const catalog::Resource& dst = cat.resource(f.target);
  bool mor_kind = f.kind == checker::FaultKind::kMissingOrdering;
  const checker::Confirmation& conf = f.confirmation;
  out << "\n"
      << (mor_kind ? "Missing ordering relationship" : "Missing notifier") << " ("
      << checker::FaultKindName(f.kind) << ")"
      << (conf.confirmed      ? " CONFIRMED"
          : conf.inconclusive ? " (replay inconclusive)"
          : conf.attempted    ? " (not confirmed)"
                              : "")
      << "\n";
  // At the user's declaration (the defined-type instance holding the resource), naming the
  // resource inside it when they differ.
  auto declared = [&](catalog::ResourceId id, catalog::ResourceId declaration) {
    if (id == declaration) return Declared(cat.resource(id));
    return Declared(cat.resource(declaration)) + ", for " + TerminalSafe(cat.resource(id).ref) +
           " inside it";
  };
  out << "  " << declared(f.source, f.source_declaration) << "\n";
  out << "  " << (mor_kind ? "must be applied before " : "must notify ")
      << declared(f.target, f.target_declaration) << "\n";
  if (f.write_write) out << "  both write the same path: the last writer wins by chance\n";
  if (f.applied_in_reverse) out << "  (this run applied them in the wrong order)\n";
  if (f.confidence == checker::Confidence::kLow) {
    out << "  low confidence: the evidence is only lookups or metadata\n";
  }
  if (!f.instances.empty()) {
    out << "  and " << f.instances.size() << " more instance"
        << (f.instances.size() == 1 ? "" : "s") << " of the same code:";
    for (const auto& [s, t] : f.instances) {
      out << " " << TerminalSafe(cat.resource(s).ref) << (mor_kind ? " -> " : " ~> ")
          << TerminalSafe(cat.resource(t).ref) << ";";
    }
    out << "\n";
  }
  if (!f.also_fixes.empty()) {
    out << "  the fix also orders (through edges already there):";
    for (const auto& [s, t] : f.also_fixes) {
      out << " " << TerminalSafe(cat.resource(s).ref) << " -> " << TerminalSafe(cat.resource(t).ref)
          << ";";
    }
    out << "\n";
  }
  for (const checker::PathEvidence& e : f.evidence) {
    out << "    " << TerminalSafe(EvidenceText(e, src, dst)) << "\n";
    for (const checker::Citation& c : e.citations) {
      out << "      " << TerminalSafe(CitationText(c)) << "\n";
    }
  }
  if (f.evidence_total > f.evidence.size()) {
    out << "    ... and " << (f.evidence_total - f.evidence.size()) << " more\n";
  }
  if (conf.attempted) {
    out << "  "
        << (conf.confirmed      ? "confirmed"
            : conf.inconclusive ? "inconclusive"
                                : "not confirmed")
        << ": a replay " << (mor_kind ? "forcing " : "with ") << TerminalSafe(conf.forced)
        << (conf.confirmed      ? (mor_kind ? " did otherwise:" : " left the service stale:")
            : conf.inconclusive ? " proves nothing: " + TerminalSafe(conf.reason)
                                : ": " + TerminalSafe(conf.reason))
        << "\n";
    for (const std::string& d : conf.differences) {
      std::string text = TerminalSafe(d);
      for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', nl + 7)) {
        text.replace(nl, 1, "\n      ");
      }
      out << "    - " << text << "\n";
    }
    if (!conf.kept.empty())
      out << "    (its catalog and Puppet's log: " << TerminalSafe(conf.kept) << ")\n";
  }
  out << "  fix: " << TerminalSafe(f.fix) << "\n";
  WritePatchText(out, f);
  if (suppression != nullptr) {
    out << "  suppressed (" << SuppressionKindName(suppression->kind)
        << SuppressedWhere(*suppression) << "): " << TerminalSafe(suppression->justification)
        << "\n";
  }
}

void WriteNotIdempotentText(std::ostream& out, const NotIdempotent& n,
                            const catalog::Catalog& cat) {
  const catalog::Resource* r = NotIdempotentResource(n, cat);
  out << "\nNot idempotent (NI)\n";
  out << "  " << (r != nullptr ? Declared(*r) : TerminalSafe(n.resource)) << ": "
      << NotIdempotentBehaviour(n) << "\n";
  auto messages = [&](std::string_view which, const std::vector<std::string>& list) {
    for (const std::string& m : list) {
      std::string text = TerminalSafe(m);
      if (size_t nl = text.find('\n'); nl != std::string::npos) text = text.substr(0, nl) + " ...";
      out << "    " << which << " apply: " << text << "\n";
    }
  };
  messages("second", n.second);
  messages("third", n.third);
  out << "  fix: " << TerminalSafe(NotIdempotentFix(n, cat)) << "\n";
}

}  // namespace

void WriteFindingsText(std::ostream& text_out, const FindingsContext& c) {
  // Each title, path and message is escaped where it is written (TerminalSafe: on one line);
  // the whole text once more, keeping its line breaks, so that nothing written raw (a
  // justification from .fsmove.json, a name a later change adds) reaches the terminal.
  std::ostringstream out;
  const catalog::Catalog& cat = *c.catalog;
  const checker::CheckResult& r = *c.result;
  const gating::Suppressions* sup = c.suppressions;
  if (c.run != nullptr) WriteRunText(out, *c.run);
  out << SummaryLine(c.trace_name, *c.analyzer) << "\n";
  for (const auto& u : c.analyzer->stats().unparsed_examples) {
    out << "  unparsed line " << u.line << " (" << u.reason << "): " << TerminalSafe(u.text)
        << "\n";
  }
  size_t mor = 0, mn = 0, hidden = 0, confirmed = 0;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const checker::Finding& f = r.findings[i];
    if (c.IsSuppressed(i)) {
      if (c.show_suppressed) WriteFindingText(out, f, cat, &sup->findings[i]);
      continue;
    }
    if (c.IsHidden(i)) {
      ++hidden;
      continue;
    }
    (f.kind == checker::FaultKind::kMissingOrdering ? mor : mn)++;
    confirmed += f.confirmation.confirmed ? 1 : 0;
    WriteFindingText(out, f, cat, nullptr);
  }
  for (const NotIdempotent& n : c.not_idempotent()) WriteNotIdempotentText(out, n, cat);
  const bool incomplete = c.completeness != nullptr && !c.completeness->complete();
  if (mor + mn == 0 && c.run != nullptr && !c.run->ApplyFinished()) {
    // Nothing found in part of a run is not a clean result.
    out << "No missing ordering relationships or notifiers found in the part of the apply that "
           "ran, but the apply did not finish ("
        << c.run->WhyUnfinished() << "): the rest was not checked.\n";
  } else if (mor + mn == 0 && incomplete && c.completeness->apply_complete()) {
    out << "No missing ordering relationships or notifiers found in what was analysed, but "
           "fsmove reached a limit of its own: the rest was not checked (below).\n";
  } else if (mor + mn == 0 && incomplete) {
    out << "No missing ordering relationships or notifiers found in what Puppet applied, but "
           "it did not apply the whole catalog: the rest was not checked (below).\n";
  } else if (mor + mn == 0) {
    out << (r.findings.empty() ? "No missing ordering relationships or notifiers found.\n"
                               : "No missing ordering relationships or notifiers found that "
                                 "are not suppressed.\n");
  }
  if (!c.trace_kept && mor + mn > 0) {
    out << "\nThe line numbers above are lines of this run's " << c.trace_name
        << ", which was not kept: run with --save-trace FILE to keep it.\n";
  }
  if (sup != nullptr && sup->suppressed() > 0) {
    out << "\n"
        << sup->suppressed() << " suppressed finding" << (sup->suppressed() == 1 ? "" : "s") << " ("
        << TerminalSafe(SuppressedBy(*sup)) << ")" << (c.show_suppressed ? "\n" : ":\n");
    for (size_t i = 0; i < r.findings.size() && !c.show_suppressed; ++i) {
      if (!c.IsSuppressed(i)) continue;
      const checker::Finding& f = r.findings[i];
      out << "  " << checker::FaultKindName(f.kind) << " "
          << TerminalSafe(cat.resource(f.source).ref) << " -> "
          << TerminalSafe(cat.resource(f.target).ref) << " [" << f.fingerprint << "]"
          << SuppressedWhere(sup->findings[i]) << ": "
          << TerminalSafe(sup->findings[i].justification) << "\n";
    }
  }
  if (sup != nullptr && !sup->absent.empty()) {
    out << "\n"
        << sup->absent.size() << " baseline finding" << (sup->absent.size() == 1 ? "" : "s")
        << " no longer found (fixed, or changed: refresh " << sup->baseline_name
        << " with --write-baseline):\n";
    for (const gating::BaselineEntry& e : sup->absent) {
      std::string_view kind = e.rule == checker::FaultRuleId(checker::FaultKind::kMissingOrdering)
                                  ? checker::FaultKindName(checker::FaultKind::kMissingOrdering)
                              : e.rule == checker::FaultRuleId(checker::FaultKind::kMissingNotifier)
                                  ? checker::FaultKindName(checker::FaultKind::kMissingNotifier)
                                  : std::string_view("?");
      out << "  " << kind << " " << (e.source.empty() ? "?" : TerminalSafe(e.source)) << " -> "
          << (e.target.empty() ? "?" : TerminalSafe(e.target)) << " [" << e.fingerprint << "]\n";
    }
  }
  if (incomplete) WriteCompletenessText(out, *c.completeness, c.allow_failed);
  if (!r.stats.unknown_blocks.empty()) {
    out << "\nResources in the trace but not in the catalog (skipped):";
    for (const auto& u : r.stats.unknown_blocks) out << " " << TerminalSafe(u.ref);
    out << "\n";
  }
  for (const auto& cycle : c.graph->cycles()) {
    out << "\nDependency cycle in the catalog (Puppet would refuse to apply it):";
    for (const auto& ref : cycle.path) out << " " << TerminalSafe(ref);
    out << "\n";
  }
  if (!c.puppet_graph.empty()) {
    out << "\nGraph: Puppet's own (" << c.puppet_graph << "), with the catalog's relationships"
        << " and containment\n";
  } else if (size_t puppet = PuppetEdgeCount(*c.graph); puppet > 0) {
    out << "\nGraph: the catalog's relationships and autorequires, plus " << puppet
        << " relationship" << (puppet == 1 ? "" : "s") << " Puppet logged adding itself\n";
  }
  out << "\n"
      << mor << " missing ordering relationship" << (mor == 1 ? "" : "s") << ", " << mn
      << " missing notifier" << (mn == 1 ? "" : "s");
  if (c.run != nullptr && c.run->confirm) out << " (" << confirmed << " confirmed by a replay)";
  if (c.run != nullptr && c.run->idempotence.checked) {
    out << ", " << c.not_idempotent().size() << " not idempotent";
  }
  if (sup != nullptr && sup->suppressed() > 0) out << ", " << sup->suppressed() << " suppressed";
  if (hidden > 0) {
    out << ", " << hidden << " of low confidence hidden (only lookups or metadata as evidence; "
        << "--all shows them)";
  }
  out << "\n";
  text_out << base::TerminalSafeLines(out.str());
}

namespace {

nlohmann::json PairsJson(
    const std::vector<std::pair<catalog::ResourceId, catalog::ResourceId>>& pairs,
    const catalog::Catalog& cat) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [s, t] : pairs) {
    list.push_back(
        {{"source", ResourceJson(cat.resource(s))}, {"target", ResourceJson(cat.resource(t))}});
  }
  return list;
}

nlohmann::json ConfirmationJson(const checker::Confirmation& c) {
  if (!c.attempted) return nullptr;
  nlohmann::json j = {{"forced", c.forced},
                      {"differences", c.differences},
                      {"seconds", c.seconds},
                      {"apply_seconds", c.apply_seconds}};
  j["outcome"] = c.confirmed ? "confirmed" : c.inconclusive ? "inconclusive" : "not-confirmed";
  if (!c.confirmed) j["reason"] = c.reason;
  if (!c.kept.empty()) j["kept"] = c.kept;
  return j;
}

// --fix-diff: {diff, root, description, verdict, reason, edits[]}; null without a patch.
nlohmann::json PatchJson(const std::optional<checker::FixPatch>& patch) {
  if (!patch) return nullptr;
  nlohmann::json edits = nlohmann::json::array();
  for (const checker::FixEdit& e : patch->edits) {
    edits.push_back({{"file", e.file},
                     {"line", e.line},
                     {"end_line", e.end_line},
                     {"text", e.text},
                     {"old_text", e.old_text}});
  }
  return {{"diff", patch->diff},
          {"root", patch->root},
          {"description", patch->description},
          {"verdict", std::string(checker::FixVerdictName(patch->verdict))},
          {"reason", patch->reason},
          {"applied", patch->applied},
          {"edits", edits}};
}

nlohmann::json FaultJson(const checker::Finding& f, const catalog::Catalog& cat) {
  nlohmann::json paths = nlohmann::json::array();
  for (const checker::PathEvidence& e : f.evidence) {
    nlohmann::json path = {{"path", e.path},
                           {"source", AccessFieldsToJson(e.source)},
                           {"target", AccessFieldsToJson(e.target)}};
    if (!e.citations.empty()) {
      nlohmann::json citations = nlohmann::json::array();
      for (const checker::Citation& c : e.citations) citations.push_back(CitationJson(c));
      path["citations"] = std::move(citations);
    }
    paths.push_back(std::move(path));
  }
  return {{"kind", std::string(checker::FaultKindName(f.kind))},
          {"rule", std::string(checker::FaultRuleId(f.kind))},
          {"fingerprint", f.fingerprint},
          {"source", ResourceJson(cat.resource(f.source))},
          {"target", ResourceJson(cat.resource(f.target))},
          {"write_write", f.write_write},
          {"applied_in_reverse", f.applied_in_reverse},
          {"confidence", std::string(checker::ConfidenceName(f.confidence))},
          {"declarations",
           {{"source", cat.resource(f.source_declaration).ref},
            {"target", cat.resource(f.target_declaration).ref}}},
          {"instances", PairsJson(f.instances, cat)},
          {"also_fixes", PairsJson(f.also_fixes, cat)},
          {"paths", paths},
          {"paths_total", f.evidence_total},
          {"fix", f.fix},
          {"patch", PatchJson(f.patch)},
          {"confirmed", f.confirmation.attempted ? nlohmann::json(f.confirmation.confirmed)
                                                 : nlohmann::json(nullptr)},
          {"confirmation", ConfirmationJson(f.confirmation)}};
}

nlohmann::json NotIdempotentJson(const NotIdempotent& n, const catalog::Catalog& cat) {
  const catalog::Resource* r = NotIdempotentResource(n, cat);
  nlohmann::json source =
      r != nullptr ? ResourceJson(*r)
                   : nlohmann::json{{"resource", n.resource}, {"file", nullptr}, {"line", nullptr}};
  return {{"kind", "NI"},
          {"rule", "not-idempotent"},
          {"fingerprint", NotIdempotentFingerprint(n)},
          {"source", source},
          {"behaviour", n.behaviour},
          {"second_apply", n.second},
          {"third_apply", n.third},
          {"confirmed", true},
          {"fix", NotIdempotentFix(n, cat)}};
}

}  // namespace

nlohmann::json FindingsToJson(const FindingsContext& c) {
  const catalog::Catalog& cat = *c.catalog;
  const checker::CheckResult& r = *c.result;
  const gating::Suppressions* sup = c.suppressions;
  nlohmann::json j;
  j["schema_version"] = kJsonReportSchemaVersion;
  j["tool"] = {{"name", "fsmove"}, {"version", FSMOVE_VERSION}};
  j["trace"] = c.trace_name;
  j["trace_kept"] = c.trace_kept;
  j["catalog"] = cat.source_name();
  if (c.run != nullptr) j["run"] = RunToJson(*c.run);
  nlohmann::json faults = nlohmann::json::array();
  nlohmann::json suppressed = nlohmann::json::array();
  size_t mor = 0, mn = 0, confirmed = 0;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const checker::Finding& f = r.findings[i];
    nlohmann::json fault = FaultJson(f, cat);
    if (c.IsSuppressed(i)) {
      const gating::FindingSuppression& s = sup->findings[i];
      fault["suppression"] = {{"kind", std::string(SuppressionKindName(s.kind))},
                              {"justification", s.justification}};
      if (s.kind == gating::SuppressionKind::kInSource) {
        fault["suppression"]["file"] = s.file;
        fault["suppression"]["line"] = s.line;
      }
      suppressed.push_back(std::move(fault));
      continue;
    }
    (f.kind == checker::FaultKind::kMissingOrdering ? mor : mn)++;
    confirmed += f.confirmation.confirmed ? 1 : 0;
    faults.push_back(std::move(fault));
  }
  for (const NotIdempotent& n : c.not_idempotent()) faults.push_back(NotIdempotentJson(n, cat));
  j["graph"] = GraphJson(c);
  j["faults"] = faults;
  j["suppressed"] = suppressed;
  j["summary"] = {{"MOR", mor}, {"MN", mn}, {"suppressed", suppressed.size()}};
  if (c.completeness != nullptr) {
    j["summary"]["incomplete"] = !c.completeness->complete();
    j["completeness"] = CompletenessToJson(*c.completeness, c.allow_failed);
  }
  if (c.run != nullptr && c.run->idempotence.checked)
    j["summary"]["NI"] = c.not_idempotent().size();
  if (c.run != nullptr && c.run->confirm) j["summary"]["confirmed"] = confirmed;
  if (sup != nullptr && sup->has_baseline()) {
    nlohmann::json absent = nlohmann::json::array();
    for (const gating::BaselineEntry& e : sup->absent) {
      absent.push_back({{"fingerprint", e.fingerprint},
                        {"rule", e.rule},
                        {"source", e.source},
                        {"target", e.target}});
    }
    j["baseline"] = {
        {"file", sup->baseline_name}, {"suppressed", sup->by_baseline}, {"absent", absent}};
  }
  StageSeconds stage{c.seconds.parse_interpret, 0};
  nlohmann::json stats = StatsToJson(*c.analyzer, stage);
  stats["seconds"] = {{"parse_interpret", c.seconds.parse_interpret},
                      {"catalog_and_graph", c.seconds.catalog_and_graph},
                      {"catalog_load", c.seconds.catalog_load},
                      {"check", c.seconds.check}};
  const checker::CheckStats& s = r.stats;
  nlohmann::json unknown = nlohmann::json::array();
  for (const auto& u : s.unknown_blocks)
    unknown.push_back({{"resource", u.ref}, {"source", u.source}});
  stats["check"] = {
      {"blocks_in_catalog", s.blocks_in_catalog},
      {"blocks_generated", s.blocks_generated},
      {"blocks_not_in_catalog", unknown},
      {"resources_checked", s.checked_resources.size()},
      {"ordering_relations", s.ordering_relations},
      {"notification_relations", s.notification_relations},
      {"write_write_pairs", s.write_write_pairs},
      {"guaranteed_by_graph", s.guaranteed},
      {"against_declared_order", s.against_declared_order},
      {"no_dependency", s.no_dependency},
      {"commuting_edits", s.commuting_edits},
      {"reverse_pairs_dropped", s.reverse_pairs_dropped},
      {"low_confidence", s.low_confidence},
      {"fixes_closing_cycles", s.fixes_closing_cycles},
      {"package_manager_pairs", s.package_manager_pairs},
      {"ignored_accesses", s.ignored_accesses},
      // Why a pair the trace showed is not reported: each rule's drops and
      // weakenings (pairs and pieces of evidence), by rule id (src/checker/rules/registry.cc).
      {"dropped_by_rule", s.dropped_by_rule},
      {"weakened_by_rule", s.capped_by_rule}};
  j["stats"] = stats;
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : cat.warnings())
    warnings.push_back({{"pointer", w.json_pointer}, {"message", w.message}});
  for (const auto& cycle : c.graph->cycles()) {
    warnings.push_back({{"message", "dependency cycle"}, {"cycle", cycle.path}});
  }
  if (sup != nullptr) {
    for (const auto& w : sup->warnings) warnings.push_back({{"message", w}});
  }
  j["warnings"] = warnings;
  return j;
}

}  // namespace fsmove::report
