// `fsmove trace dump`: shows what the analyzer makes of a trace, for debugging: the FStrace
// program (one JSON object per construct) or the access map (one per path).
#include <fstream>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "commands.h"
#include "fsmove/analysis/analyzer.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/report/analysis_report.h"
#include "fsmove/report/golden.h"
#include "fsmove/report/json_output.h"
#include "fsmove/strace/line_reader.h"

namespace fsmove::cli {
namespace {

struct DumpOptions {
  std::string trace;
  std::string output;
  bool fstrace = false;
  bool accesses = false;
  std::string golden_dir;
};

int RunDump(const DumpOptions& o) {
  auto reader = strace::LineReader::Open(o.trace);
  if (!reader.ok()) {
    Say({check::Error(absl::StrCat("cannot read trace ", reader.status().message()))});
    return kExitError;
  }
  ReportOutput file;
  std::ostream* out = file.Open(o.output);
  if (out == nullptr) return kExitError;
  analysis::Analyzer analyzer;
  const analysis::BlockTable& blocks = analyzer.interpreter().blocks();
  if (o.fstrace) {
    analyzer.set_construct_observer(
        [&](const fstrace::Construct& c, const analysis::CallContext& ctx) {
          nlohmann::json j = fstrace::ConstructToJson(c);
          j["line"] = ctx.line;
          j["pid"] = ctx.pid;
          j["syscall"] = std::string(fstrace::SyscallName(ctx.syscall));
          j["block"] = ctx.block == analysis::kNoBlock ? nlohmann::json(nullptr)
                                                       : nlohmann::json(blocks.info(ctx.block).ref);
          *out << report::DumpJson(j, -1) << "\n";
        });
  }
  absl::Status st = analyzer.Run(**reader);
  if (!st.ok()) {
    return Fail(st);
  }
  if (!o.golden_dir.empty()) {
    const analysis::Relations relations = analyzer.ComputeRelations(1000000);
    auto write = [&](const std::string& name, const std::string& text) {
      std::ofstream f(o.golden_dir + "/" + name);
      f << text;
      return static_cast<bool>(f);
    };
    if (!write("expected-blocks.txt", report::BlocksText(blocks)) ||
        !write("expected-accesses.txt", report::AccessMapText(analyzer)) ||
        !write("expected-relations.txt", report::RelationsText(relations, blocks))) {
      Say({check::Error(absl::StrCat("cannot write golden files to ", o.golden_dir))});
      return kExitError;
    }
  }
  if (o.accesses) {
    const analysis::AccessMap& map = analyzer.interpreter().accesses();
    for (analysis::PathId id = 0; id < map.path_count(); ++id) {
      if (map.accesses(id).empty()) continue;
      nlohmann::json j;
      j["path"] = std::string(map.path(id));
      std::string canonical = analyzer.interpreter().CanonicalPath(map.path(id));
      if (canonical != map.path(id)) j["canonical"] = canonical;
      nlohmann::json list = nlohmann::json::array();
      for (const analysis::Access& a : map.accesses(id)) {
        list.push_back(report::AccessToJson(a, blocks));
      }
      j["accesses"] = list;
      *out << report::DumpJson(j, -1) << "\n";
    }
  }
  if (!file.Close()) return kExitError;
  Say({{check::Diagnostic::Severity::kPlain,
        report::SummaryLine(reader.value()->name(), analyzer)}});
  return kExitOk;
}

}  // namespace

std::function<int()> RegisterTrace(CLI::App& app) {
  auto o = std::make_shared<DumpOptions>();
  CLI::App* trace = app.add_subcommand("trace", "Inspect a trace");
  trace->require_subcommand(1);
  CLI::App* dump = trace->add_subcommand("dump", "Print the FStrace program or the access map");
  dump->add_option("--trace", o->trace, "strace output: a file, a .zst file, or - for stdin")
      ->required();
  dump->add_option("-o,--output", o->output, "write to this file");
  auto* f = dump->add_flag("--fstrace", o->fstrace, "one JSON line per FStrace construct");
  auto* a = dump->add_flag("--accesses", o->accesses, "one JSON line per accessed path");
  f->excludes(a);
  dump->add_option("--golden", o->golden_dir,
                   "write expected-{blocks,accesses,relations}.txt for golden tests to this "
                   "directory");
  return [o] {
    if (!o->fstrace && !o->accesses && o->golden_dir.empty()) {
      Say({check::Error("trace dump needs --fstrace, --accesses or --golden DIR")});
      return kExitError;
    }
    return RunDump(*o);
  };
}

}  // namespace fsmove::cli
