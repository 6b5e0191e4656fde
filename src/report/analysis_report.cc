// Text and JSON reports of the analysis stage; see analysis_report.h.
#include "fsmove/report/analysis_report.h"

#include <sys/resource.h>

#include <sstream>

#include "fmt/format.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/fstrace/lowering.h"

namespace fsmove::report {

using analysis::Access;
using analysis::BlockTable;
using analysis::Relation;

std::string AccessVerb(const Access& a) {
  if (a.managed) return "managed (looked at)";
  std::string v = a.effect == fstrace::Effect::kProduced   ? "produced"
                  : a.effect == fstrace::Effect::kExpunged ? "removed"
                  : a.parent                               ? "needed as directory"
                  : a.listing                              ? "listed its directory"
                                                           : "consumed";
  if (a.failed) v += " (call failed)";
  return v;
}

nlohmann::json AccessFieldsToJson(const Access& a) {
  nlohmann::json j;
  j["effect"] = std::string(fstrace::EffectName(a.effect));
  j["verb"] = AccessVerb(a);
  j["syscall"] = std::string(fstrace::SyscallName(a.syscall));
  j["line"] = a.line;
  j["pid"] = a.pid;
  if (a.failed) j["failed"] = true;
  if (a.parent) j["as_parent_directory"] = true;
  if (a.managed) j["managed"] = true;
  if (a.listing) j["listed_directory"] = true;
  return j;
}

nlohmann::json AccessToJson(const Access& a, const BlockTable& blocks) {
  nlohmann::json j = AccessFieldsToJson(a);
  j["resource"] = a.block == analysis::kNoBlock ? "" : blocks.info(a.block).ref;
  return j;
}

nlohmann::json StatsToJson(const analysis::Analyzer& analyzer, const StageSeconds& seconds) {
  const analysis::TraceStats& s = analyzer.stats();
  const analysis::InterpreterStats& i = analyzer.interpreter().stats();
  nlohmann::json j;
  j["lines"] = s.lines;
  j["bytes"] = s.bytes;
  j["blocks"] = i.markers_begin;
  j["resources"] = analyzer.interpreter().blocks().size();
  j["calls"] = s.calls;
  j["split_calls"] = s.split_calls;
  j["modelled_calls"] = s.modelled_calls;
  j["lowered_calls"] = s.lowered_calls;
  j["failed_calls"] = s.failed_calls;
  j["skipped_outside_blocks"] = s.skipped_outside_blocks;
  j["unparsed_lines"] = s.unparsed_lines;
  nlohmann::json examples = nlohmann::json::array();
  for (const auto& u : s.unparsed_examples) {
    examples.push_back({{"line", u.line}, {"reason", u.reason}, {"text", u.text}});
  }
  j["unparsed_examples"] = examples;
  j["unmodelled_syscalls"] = s.unmodelled_syscalls;
  j["cut_lines"] = s.cut_lines;
  j["unterminated_last_line"] = s.unterminated_last_line;
  j["undecodable_paths"] = s.undecodable_paths;
  j["pending_at_end"] = s.pending_at_end;
  j["traced_command_exited"] = s.first_pid_exited;
  j["abandoned_unfinished"] = s.abandoned_unfinished;
  j["truncated_markers"] = s.truncated_markers;
  j["markers"] = {{"begin", i.markers_begin},
                  {"end", i.markers_end},
                  {"foreign", i.markers_foreign},
                  {"unbalanced", i.markers_unbalanced}};
  j["model"] = {{"unresolved_dirfd", i.unresolved_dirfd},
                {"unresolved_dirfd_lines", i.unresolved_dirfd_lines},
                {"unnamed_paths", i.unnamed_paths},
                {"symlink_loops", i.symlink_loops},
                {"learned_symlinks", i.learned_symlinks},
                {"orphan_processes", i.orphan_processes},
                {"adopted_processes", i.adopted_processes},
                {"live_inodes", analyzer.interpreter().inodes().live_inodes()},
                {"paths", analyzer.interpreter().accesses().path_count()},
                {"access_records", analyzer.interpreter().accesses().records()},
                {"over_budget_constructs", i.over_budget_constructs}};
  j["seconds"] = {{"analysis", seconds.analysis}, {"relations", seconds.relations}};
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  j["peak_rss_kb"] = usage.ru_maxrss;
  return j;
}

nlohmann::json RelationsToJson(const analysis::Relations& relations, const BlockTable& blocks) {
  auto list = [&](const std::vector<Relation>& rs) {
    nlohmann::json arr = nlohmann::json::array();
    for (const Relation& r : rs) {
      nlohmann::json ev = nlohmann::json::array();
      for (const auto& e : r.evidence) {
        ev.push_back({{"path", e.path},
                      {"first", AccessToJson(e.first, blocks)},
                      {"second", AccessToJson(e.second, blocks)}});
      }
      arr.push_back({{"first", blocks.info(r.first).ref},
                     {"second", blocks.info(r.second).ref},
                     {"evidence_total", r.evidence_total},
                     {"evidence", ev}});
    }
    return arr;
  };
  return {{"ordering", list(relations.ordering)},
          {"notification", list(relations.notification)},
          {"write_write", list(relations.write_write)}};
}

std::string SummaryLine(const std::string& trace_name, const analysis::Analyzer& analyzer) {
  const analysis::TraceStats& s = analyzer.stats();
  const analysis::InterpreterStats& i = analyzer.interpreter().stats();
  std::string line = fmt::format(
      "{}: {} lines, {} resource blocks ({} resources), {} unparsed lines, {} unmodelled "
      "system calls",
      trace_name, s.lines, i.markers_begin, analyzer.interpreter().blocks().size(),
      s.unparsed_lines, [&] {
        uint64_t n = 0;
        for (const auto& [name, count] : s.unmodelled_syscalls) n += count;
        return n;
      }());
  // Started but never returned: the trace ends (or strace detached from a daemon) in the
  // middle of them. Their effect is unknown, so they are not analysed; say so.
  if (s.pending_at_end > 0) {
    line += fmt::format(", {} calls unfinished at the end", s.pending_at_end);
  }
  // Paths (and exec's argv) strace printed as addresses: it could not read the process's
  // memory (a process that changed its user is not dumpable, and an strace without
  // CAP_SYS_PTRACE cannot read it). What those calls did is not analysed: say so.
  if (s.undecodable_paths > 0) {
    line += fmt::format(", {} argument{} strace printed as addresses (their calls not analysed)",
                        s.undecodable_paths, s.undecodable_paths == 1 ? "" : "s");
  }
  // Markers from a process outside Puppet's thread group: an exec echoing Puppet's log, or
  // Puppet's own threads in a trace missing the start that shows them created. Their
  // resources' accesses are not charged: say so.
  if (i.markers_foreign > 0) {
    line +=
        fmt::format(", {} markers ignored (not printed by Puppet's process)", i.markers_foreign);
  }
  return line;
}

namespace {
std::string DescribeAccess(const Access& a, const BlockTable& blocks) {
  return fmt::format("{} by {} ({}{} at line {})", fstrace::EffectName(a.effect),
                     base::TerminalSafe(blocks.info(a.block).ref), fstrace::SyscallName(a.syscall),
                     a.failed ? ", failed" : "", a.line);
}

void WriteRelations(std::ostream& out, std::string_view title, std::string_view arrow,
                    const std::vector<Relation>& rs, const BlockTable& blocks) {
  out << title << ": " << rs.size() << "\n";
  for (const Relation& r : rs) {
    out << "  " << base::TerminalSafe(blocks.info(r.first).ref) << " " << arrow << " "
        << base::TerminalSafe(blocks.info(r.second).ref) << "\n";
    for (const auto& e : r.evidence) {
      out << "    - " << base::TerminalSafe(e.path) << ": " << DescribeAccess(e.first, blocks)
          << "; " << DescribeAccess(e.second, blocks) << "\n";
    }
    if (r.evidence_total > r.evidence.size()) {
      out << "    ... and " << (r.evidence_total - r.evidence.size()) << " more\n";
    }
  }
}
}  // namespace

void WriteAnalysisText(std::ostream& text_out, const std::string& trace_name,
                       const analysis::Analyzer& analyzer, const analysis::Relations& relations) {
  // Each title, path and line from the trace is escaped where it is written; the whole text
  // once more, so that nothing written raw can reach the terminal.
  std::ostringstream out;
  const analysis::TraceStats& s = analyzer.stats();
  out << SummaryLine(trace_name, analyzer) << "\n";
  for (const auto& u : s.unparsed_examples) {
    out << "  unparsed line " << u.line << " (" << u.reason << "): " << base::TerminalSafe(u.text)
        << "\n";
  }
  if (s.unparsed_lines > s.unparsed_examples.size()) {
    out << "  ... and " << (s.unparsed_lines - s.unparsed_examples.size())
        << " more unparsed lines\n";
  }
  const BlockTable& blocks = analyzer.interpreter().blocks();
  WriteRelations(out, "Ordering relations (first must be applied before second)", "->",
                 relations.ordering, blocks);
  WriteRelations(out, "Notification relations (first must notify the service)", "~>",
                 relations.notification, blocks);
  WriteRelations(out, "Write-write pairs (both produce the same path)", "<>", relations.write_write,
                 blocks);
  text_out << base::TerminalSafeLines(out.str());
}

}  // namespace fsmove::report
