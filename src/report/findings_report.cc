// Text and JSON reports of the checker's findings; see findings_report.h.
#include "fsmove/report/findings_report.h"

#include "fmt/format.h"
#include "fsmove/fstrace/lowering.h"

namespace fsmove::report {
namespace {

std::string Declared(const catalog::Resource& r) {
  if (r.file.empty()) return r.ref;
  return r.line ? fmt::format("{} ({}:{})", r.ref, r.file, *r.line)
                : fmt::format("{} ({})", r.ref, r.file);
}

std::string Verb(const analysis::Access& a) {
  if (a.managed) return "managed (looked at)";
  std::string v = a.effect == fstrace::Effect::kProduced   ? "produced"
                  : a.effect == fstrace::Effect::kExpunged ? "removed"
                  : a.parent                               ? "needed as directory"
                                                           : "consumed";
  if (a.failed) v += " (call failed)";
  return v;
}

nlohmann::json ResourceJson(const catalog::Resource& r) {
  nlohmann::json j;
  j["resource"] = r.ref;
  j["file"] = r.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.file);
  j["line"] = r.line ? nlohmann::json(*r.line) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

void WriteRunText(std::ostream& out, const RunSummary& run) {
  out << "Puppet run: " << run.target << " (sandbox " << run.sandbox << "), compiled in "
      << fmt::format("{:.1f}", run.compile_seconds) << " s, applied in "
      << fmt::format("{:.1f}", run.apply_seconds) << " s, puppet exit code "
      << run.puppet_exit_code;
  if (run.timed_out) out << " (timed out)";
  out << ", strace " << run.strace_end << "\n";
  if (!run.trace_complete) {
    out << "  warning: the trace is incomplete (strace ended: " << run.strace_end
        << "); findings cover only what was traced\n";
  }
  if (!run.failed.empty()) {
    out << "  " << run.failed.size() << " resource" << (run.failed.size() == 1 ? "" : "s")
        << " failed (often the symptom of a missing ordering relationship):\n";
    for (const auto& f : run.failed) {
      out << "    " << (f.resource.empty() ? "?" : f.resource) << ": " << f.message << "\n";
    }
  }
  for (const auto& e : run.errors) out << "  puppet error: " << e << "\n";
  if (!run.puppet_log.empty()) out << "  Puppet's log: " << run.puppet_log << "\n";
}

nlohmann::json RunToJson(const RunSummary& run) {
  nlohmann::json failed = nlohmann::json::array();
  for (const auto& f : run.failed) {
    failed.push_back({{"resource", f.resource.empty() ? nlohmann::json(nullptr)
                                                      : nlohmann::json(f.resource)},
                      {"message", f.message}});
  }
  return {{"target", run.target},
          {"sandbox", run.sandbox},
          {"puppet_exit_code", run.puppet_exit_code},
          {"timed_out", run.timed_out},
          {"trace_complete", run.trace_complete},
          {"strace_end", run.strace_end},
          {"puppet_log", run.puppet_log},
          {"compile_seconds", run.compile_seconds},
          {"apply_seconds", run.apply_seconds},
          {"failed_resources", failed},
          {"errors", run.errors},
          {"notes", run.notes}};
}

void WriteFindingsText(std::ostream& out, const FindingsContext& c) {
  const catalog::Catalog& cat = *c.catalog;
  const check::CheckResult& r = *c.result;
  if (c.run != nullptr) WriteRunText(out, *c.run);
  out << SummaryLine(c.trace_name, *c.analyzer) << "\n";
  for (const auto& u : c.analyzer->stats().unparsed_examples) {
    out << "  unparsed line " << u.line << " (" << u.reason << "): " << u.text << "\n";
  }
  size_t mor = 0, mn = 0;
  for (const check::Finding& f : r.findings) (f.kind == check::FaultKind::kMissingOrdering ? mor : mn)++;
  if (r.findings.empty()) {
    out << "No missing ordering relationships or notifiers found.\n";
  }
  for (const check::Finding& f : r.findings) {
    const catalog::Resource& src = cat.resource(f.source);
    const catalog::Resource& dst = cat.resource(f.target);
    bool mor_kind = f.kind == check::FaultKind::kMissingOrdering;
    out << "\n"
        << (mor_kind ? "Missing ordering relationship" : "Missing notifier") << " ("
        << check::FaultKindName(f.kind) << ")\n";
    out << "  " << Declared(src) << "\n";
    out << "  " << (mor_kind ? "must be applied before " : "must notify ") << Declared(dst)
        << "\n";
    if (f.write_write) out << "  both write the same path: the last writer wins by chance\n";
    if (f.applied_in_reverse) out << "  (this run applied them in the wrong order)\n";
    for (const check::PathEvidence& e : f.evidence) {
      out << "    " << e.path << ": " << Verb(e.source) << " by " << src.ref << " ("
          << fstrace::SyscallName(e.source.syscall) << " at line " << e.source.line << "), "
          << Verb(e.target) << " by " << dst.ref << " (" << fstrace::SyscallName(e.target.syscall)
          << " at line " << e.target.line << ")\n";
    }
    if (f.evidence_total > f.evidence.size()) {
      out << "    ... and " << (f.evidence_total - f.evidence.size()) << " more\n";
    }
    out << "  fix: " << f.fix << "\n";
  }
  if (!r.stats.unknown_blocks.empty()) {
    out << "\nResources in the trace but not in the catalog (skipped):";
    for (const auto& u : r.stats.unknown_blocks) out << " " << u.ref;
    out << "\n";
  }
  for (const auto& cycle : c.graph->cycles()) {
    out << "\nDependency cycle in the catalog (Puppet would refuse to apply it):";
    for (const auto& ref : cycle.path) out << " " << ref;
    out << "\n";
  }
  out << "\n" << mor << " missing ordering relationship" << (mor == 1 ? "" : "s") << ", " << mn
      << " missing notifier" << (mn == 1 ? "" : "s") << "\n";
}

nlohmann::json FindingsToJson(const FindingsContext& c) {
  const catalog::Catalog& cat = *c.catalog;
  const check::CheckResult& r = *c.result;
  nlohmann::json j;
  j["tool"] = {{"name", "fsmove"}, {"version", FSMOVE_VERSION}};
  j["trace"] = c.trace_name;
  j["catalog"] = cat.source_name();
  if (c.run != nullptr) j["run"] = RunToJson(*c.run);
  nlohmann::json faults = nlohmann::json::array();
  size_t mor = 0, mn = 0;
  for (const check::Finding& f : r.findings) {
    (f.kind == check::FaultKind::kMissingOrdering ? mor : mn)++;
    nlohmann::json paths = nlohmann::json::array();
    for (const check::PathEvidence& e : f.evidence) {
      paths.push_back({{"path", e.path}, {"source", AccessFieldsToJson(e.source)}, {"target", AccessFieldsToJson(e.target)}});
    }
    faults.push_back({{"kind", std::string(check::FaultKindName(f.kind))},
                      {"rule", std::string(check::FaultRuleId(f.kind))},
                      {"source", ResourceJson(cat.resource(f.source))},
                      {"target", ResourceJson(cat.resource(f.target))},
                      {"write_write", f.write_write},
                      {"applied_in_reverse", f.applied_in_reverse},
                      {"paths", paths},
                      {"paths_total", f.evidence_total},
                      {"fix", f.fix}});
  }
  j["faults"] = faults;
  j["summary"] = {{"MOR", mor}, {"MN", mn}};
  StageSeconds stage{c.seconds.parse_interpret, 0};
  nlohmann::json stats = StatsToJson(*c.analyzer, stage);
  stats["seconds"] = {{"parse_interpret", c.seconds.parse_interpret},
                      {"catalog_and_graph", c.seconds.catalog_and_graph},
                      {"check", c.seconds.check}};
  const check::CheckStats& s = r.stats;
  nlohmann::json unknown = nlohmann::json::array();
  for (const auto& u : s.unknown_blocks) unknown.push_back({{"resource", u.ref}, {"source", u.source}});
  stats["check"] = {{"blocks_in_catalog", s.blocks_in_catalog},
                    {"blocks_generated", s.blocks_generated},
                    {"blocks_not_in_catalog", unknown},
                    {"ordering_relations", s.ordering_relations},
                    {"notification_relations", s.notification_relations},
                    {"write_write_pairs", s.write_write_pairs},
                    {"guaranteed_by_graph", s.guaranteed},
                    {"package_manager_pairs", s.package_manager_pairs},
                    {"ignored_accesses", s.ignored_accesses}};
  j["stats"] = stats;
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : cat.warnings()) warnings.push_back({{"pointer", w.json_pointer}, {"message", w.message}});
  for (const auto& cycle : c.graph->cycles()) {
    warnings.push_back({{"message", "dependency cycle"}, {"cycle", cycle.path}});
  }
  j["warnings"] = warnings;
  return j;
}

}  // namespace fsmove::report
