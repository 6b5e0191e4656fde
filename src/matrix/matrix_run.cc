// The matrix's checks and their one report; see matrix_run.h.
#include "fsmove/matrix/matrix_run.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "fmt/format.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/read_file.h"
#include "fsmove/matrix/matrix_report.h"
#include "fsmove/scan/results_dir.h"
#include "fsmove/scan/scan_report.h"

namespace fsmove::matrix {
namespace {

namespace fs = std::filesystem;

// The largest document a row's check writes that the merge reads back (a report of a big
// catalog with every finding's evidence).
constexpr size_t kMaxRowDocumentBytes = size_t{256} << 20;

// The formats of the merged report: the main one, and each --*-output asked for, with the
// member of the row's settings its document goes to and the file's extension.
struct Wanted {
  std::string format;
  std::string ext;
  std::string pipeline::ReportSettings::*row_output;  // null: the row's main output (text)
  const std::string* user_output;                     // where the merge goes ("" stdout)
};

std::vector<Wanted> WantedFormats(const pipeline::ReportSettings& r) {
  std::vector<Wanted> out;
  if (r.format == "text") out.push_back({"text", "txt", nullptr, &r.output});
  for (const pipeline::ExtraOutput& e : pipeline::kExtraOutputs) {
    if (r.format == e.format) {
      out.push_back({std::string(e.format), std::string(e.ext), e.file, &r.output});
    }
  }
  for (const pipeline::ExtraOutput& e : pipeline::kExtraOutputs) {
    if (!(r.*e.file).empty()) {
      out.push_back({std::string(e.format), std::string(e.ext), e.file, &(r.*e.file)});
    }
  }
  return out;
}

// A row's words: to the user's sink with the node's name first, and kept as the row's log
// (as the terminal shows it) for its status.
class RowSink : public check::Sink {
 public:
  RowSink(check::Sink& outer, std::string node) : outer_(outer), node_(std::move(node)) {}
  using check::Sink::Say;
  void Say(const check::Diagnostic& d) override {
    check::Diagnostic mine = d;
    if (d.severity != check::Diagnostic::Severity::kPlain) mine.text = node_ + ": " + d.text;
    log_ += base::Format(d) + "\n";
    outer_.Say(mine);
  }
  std::ostream& out() override { return discarded_; }
  const std::string& log() const { return log_; }

 private:
  check::Sink& outer_;
  std::string node_;
  std::string log_;
  std::ostringstream discarded_;
};

// The row's check, its documents read back from `dir`.
RowResult RunRow(const check::Request& request, const check::Settings& settings,
                 const std::vector<Wanted>& wanted, const MatrixRow& row, const fs::path& dir,
                 bool keep_files, check::Sink& sink) {
  check::Request r = request;
  r.run.node = row.node;
  if (!row.klass.empty()) r.run.target.include_class = row.klass;
  r.run.facts_file = row.facts;
  if (keep_files) {
    r.run.save_catalog = (dir / scan::kCatalogFile).string();
    r.run.puppet_log = (dir / scan::kPuppetLogFile).string();
    r.run.save_graph = (dir / scan::kPuppetGraphFile).string();
  }
  check::Settings s = settings;
  pipeline::ReportSettings& rep = s.report;
  rep.output.clear();
  for (const pipeline::ExtraOutput& e : pipeline::kExtraOutputs) (rep.*e.file).clear();
  // Always the JSON report (the row's status and counts), and text as the main document.
  rep.format = "text";
  rep.output = (dir / "report.txt").string();
  rep.json_output = (dir / scan::kReportFile).string();
  for (const Wanted& w : wanted) {
    if (w.row_output != nullptr && w.format != "json") {
      rep.*w.row_output = (dir / ("report." + w.ext)).string();
    }
  }
  // What a run of an earlier matrix left in the folder is not this row's.
  std::error_code ec;
  fs::remove(rep.output, ec);
  for (const pipeline::ExtraOutput& e : pipeline::kExtraOutputs) {
    if (!(rep.*e.file).empty()) fs::remove(rep.*e.file, ec);
  }
  RowSink row_sink(sink, row.node);
  const check::Outcome outcome = check::Run(r, s, row_sink);

  RowResult result;
  result.row = row;
  result.exit_code = outcome.exit_code;
  result.check_log = row_sink.log();
  auto read = [&](const std::string& path) -> std::string {
    absl::StatusOr<std::string> text = base::ReadFile(path, "", kMaxRowDocumentBytes);
    return text.ok() ? std::move(*text) : std::string();
  };
  if (std::string json = read(rep.json_output); !json.empty()) {
    nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!j.is_discarded()) result.report = std::move(j);
  }
  for (const Wanted& w : wanted) {
    const std::string path = w.format == "json"
                                 ? rep.json_output
                                 : (w.row_output == nullptr ? rep.output : rep.*w.row_output);
    result.documents.emplace_back(w.format, read(path));
  }
  result.result = ClassifyRow(row, result.exit_code, result.check_log, result.report);
  if (keep_files) {
    std::ofstream(dir / scan::kCheckLogFile) << result.check_log;
  }
  return result;
}

// report.html of --results DIR: a row per node, its folder beside the page.
absl::Status WriteMatrixPage(const std::string& results, const std::vector<RowResult>& rows,
                             const std::string& title) {
  std::vector<scan::ReportRun> runs;
  runs.reserve(rows.size());
  for (const RowResult& r : rows) {
    runs.push_back({r.result, r.row.node, r.report ? *r.report : nlohmann::json(nullptr)});
  }
  nlohmann::json data = scan::ScanReportData(runs, title);
  data["unit"] = "nodes";
  return base::WriteOutputFile((fs::path(results) / scan::kReportHtml).string(),
                               scan::ScanReportHtml(data));
}

}  // namespace

absl::Status MatrixAgrees(const check::Request& request, const pipeline::ReportSettings& report,
                          const std::vector<MatrixRow>& rows, const MatrixSettings& matrix,
                          bool control_repo) {
  const exec::CheckRequest& run = request.run;
  const std::string columns = fmt::format("each row of {} names its node and facts", matrix.file);
  const std::string files =
      "with --matrix, --results DIR keeps each node's catalog, Puppet's log, graph and report";
  const std::string alone =
      "a patch or a baseline is one node's: check the node alone (--node, --facts) for it";
  const std::tuple<const char*, bool, const std::string*> refused[] = {
      {"--node", !run.node.empty(), &columns},
      {"--facts", !run.facts_file.empty(), &columns},
      {"--save-trace", !run.save_trace.empty(), &files},
      {"--save-catalog", !run.save_catalog.empty(), &files},
      {"--save-graph", !run.save_graph.empty(), &files},
      {"--puppet-log", !run.puppet_log.empty(), &files},
      {"--keep-sandbox", !run.keep_sandbox.empty(), &files},
      {"--fix", report.fix.apply, &alone},
      {"--fix-diff", !report.fix.diff_file.empty(), &alone},
      {"--write-baseline", !report.write_baseline.empty(), &alone},
  };
  for (const auto& [flag, given, why] : refused) {
    if (given) return absl::InvalidArgumentError(fmt::format("{} and --matrix: {}", flag, *why));
  }
  for (const MatrixRow& row : rows) {
    if (!row.klass.empty() && !control_repo) {
      return absl::InvalidArgumentError(fmt::format(
          "{}:{}: class {}: a row's class is a control repo's (role::web); {} is none", matrix.file,
          row.line, row.klass, run.target.path.empty() ? "-e code" : run.target.path));
    }
    if (!row.facts.empty()) {
      if (absl::StatusOr<std::string> text = base::ReadFile(row.facts, "facts file"); !text.ok()) {
        return absl::InvalidArgumentError(
            fmt::format("{}:{}: {}", matrix.file, row.line, std::string(text.status().message())));
      }
    }
  }
  return absl::OkStatus();
}

check::Outcome RunMatrix(const check::Request& request, const check::Settings& settings,
                         const std::vector<MatrixRow>& rows, const MatrixSettings& matrix,
                         check::Sink& sink) {
  const std::vector<Wanted> wanted = WantedFormats(settings.report);
  const bool keep = !matrix.results_dir.empty();
  std::error_code ec;
  fs::path base_dir;
  if (keep) {
    base_dir = matrix.results_dir;
  } else {
    const char* tmp = getenv("TMPDIR");
    std::string templ = fmt::format("{}/fsmove-matrix-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(templ.data()) == nullptr) {
      return check::Fail(
          absl::InternalError(fmt::format("cannot make {}: {}", templ, std::strerror(errno))),
          sink);
    }
    base_dir = templ;
  }
  std::vector<RowResult> results;
  results.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const fs::path dir = base_dir / rows[i].node;
    fs::create_directories(dir, ec);
    if (ec) {
      return check::Fail(
          absl::InternalError(fmt::format("cannot make {}: {}", dir.string(), ec.message())), sink);
    }
    sink.Say(check::Info(fmt::format("node {} ({} of {})", RowName(rows[i]), i + 1, rows.size())));
    results.push_back(RunRow(request, settings, wanted, rows[i], dir, keep, sink));
    if (results.back().exit_code >= 128) break;  // interrupted: the rest is not run
  }
  check::Outcome outcome;
  outcome.exit_code = MatrixExitCode(results);
  const std::string target =
      request.run.target.path.empty() ? std::string("-e") : request.run.target.path;
  for (const Wanted& w : wanted) {
    const std::string doc = MergeReports(w.format, results, target, matrix.file);
    if (w.user_output->empty()) {
      sink.out() << doc;
    } else if (absl::Status st = base::WriteOutputFile(*w.user_output, doc); !st.ok()) {
      sink.Say(check::Error(std::string(st.message())));
      outcome.exit_code = base::kExitError;
    }
  }
  // The table on the terminal too when the report went elsewhere.
  if (settings.report.format != "text" || !settings.report.output.empty()) {
    std::string table = MatrixTable(results);
    table.pop_back();  // its last newline: Say ends the line
    sink.Say(check::Diagnostic{check::Diagnostic::Severity::kPlain, std::move(table)});
  }
  if (keep) {
    if (absl::Status st =
            WriteMatrixPage(matrix.results_dir, results,
                            fmt::format("fsmove check {} --matrix {}", target, matrix.file));
        !st.ok()) {
      sink.Say(check::Error(std::string(st.message())));
      outcome.exit_code = base::kExitError;
    }
  } else {
    fs::remove_all(base_dir, ec);
  }
  return outcome;
}

}  // namespace fsmove::matrix
