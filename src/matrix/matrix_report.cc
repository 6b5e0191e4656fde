// One report of a matrix's checks; see matrix_report.h.
#include "fsmove/matrix/matrix_report.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "fsmove/base/diagnostic.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/report/failed_run.h"
#include "fsmove/report/junit.h"
#include "fsmove/report/markdown_report.h"
#include "re2/re2.h"

namespace fsmove::matrix {
namespace {

using Json = nlohmann::json;

// The row's document in `format`, parsed as JSON; null when it has none or it does not parse.
Json JsonDocument(const RowResult& r, std::string_view format) {
  const std::string* text = r.Document(format);
  if (text == nullptr || text->empty()) return nullptr;
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? Json(nullptr) : j;
}

std::string Why(const RowResult& r) {
  if (!r.result.error.empty()) return r.result.error;
  return fmt::format("the check ended with exit code {} and no report", r.exit_code);
}

// "web01.example.com (role::web, facts facts/web01.json)".
std::string RowTitle(const MatrixRow& row) {
  std::vector<std::string> parts;
  if (!row.klass.empty()) parts.push_back(row.klass);
  if (!row.facts.empty()) parts.push_back("facts " + row.facts);
  if (parts.empty()) return row.node;
  return fmt::format("{} ({})", row.node, absl::StrJoin(parts, ", "));
}

std::string MergeJson(const std::vector<RowResult>& rows, const std::string& target,
                      const std::string& matrix_file) {
  Json out_rows = Json::array();
  for (const RowResult& r : rows) {
    auto or_null = [](const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); };
    const bool ok = r.result.status == scan::ModuleStatus::kOk ||
                    r.result.status == scan::ModuleStatus::kFindings;
    out_rows.push_back({{"line", r.row.line},
                        {"node", r.row.node},
                        {"class", or_null(r.row.klass)},
                        {"facts", or_null(r.row.facts)},
                        {"status", std::string(scan::ModuleStatusName(r.result.status))},
                        {"exit_code", r.exit_code},
                        {"mor", r.result.mor},
                        {"mn", r.result.mn},
                        {"error", ok ? Json(nullptr) : Json(Why(r))},
                        {"report", r.report ? *r.report : Json(nullptr)}});
  }
  Json doc = {{"schema_version", 1},
              {"matrix", matrix_file},
              {"target", target},
              {"exit_code", MatrixExitCode(rows)},
              {"rows", out_rows}};
  return doc.dump(2) + "\n";
}

std::string MergeSarif(const std::vector<RowResult>& rows) {
  Json runs = Json::array();
  Json top = nullptr;
  for (const RowResult& r : rows) {
    Json doc = JsonDocument(r, "sarif");
    if (doc.is_object() && doc.contains("runs") && !doc["runs"].empty()) {
      if (top.is_null()) top = doc;
    }
  }
  for (const RowResult& r : rows) {
    Json doc = JsonDocument(r, "sarif");
    Json run;
    if (doc.is_object() && doc.contains("runs") && !doc["runs"].empty()) {
      run = doc["runs"][0];
    } else {
      run = report::FailedRunSarifRun(Why(r));
    }
    // GitHub code scanning keeps one analysis per category: the part before the last '/'.
    run["automationDetails"] = {
        {"id", fmt::format("fsmove-matrix/{}/", r.row.node)},
        {"description", {{"text", "fsmove check of node " + RowTitle(r.row)}}}};
    run["properties"]["node"] = r.row.node;
    if (!r.row.klass.empty()) run["properties"]["class"] = r.row.klass;
    if (!r.row.facts.empty()) run["properties"]["facts"] = r.row.facts;
    runs.push_back(std::move(run));
  }
  if (top.is_null()) {
    top = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}};
  }
  top["runs"] = std::move(runs);
  return top.dump(2) + "\n";
}

// Findings that several nodes share are one comment or issue, naming the nodes: `key` is what
// makes two the same, `mark` prefixes its text with the nodes.
template <typename Key, typename Mark>
Json JoinFindings(const std::vector<std::pair<Json, std::string>>& items, Key key, Mark mark) {
  std::vector<Json> order;
  std::map<std::string, std::pair<size_t, std::vector<std::string>>> seen;
  for (const auto& [item, node] : items) {
    const std::string k = key(item);
    auto it = seen.find(k);
    if (it == seen.end()) {
      seen.emplace(k, std::pair{order.size(), std::vector<std::string>{node}});
      order.push_back(item);
    } else {
      it->second.second.push_back(node);
    }
  }
  Json out = Json::array();
  for (const auto& [k, where] : seen) {
    (void)k;
    Json item = order[where.first];
    mark(item, absl::StrJoin(where.second, ", "));
    order[where.first] = std::move(item);
  }
  for (Json& item : order) out.push_back(std::move(item));
  return out;
}

std::string MergeRdjson(const std::vector<RowResult>& rows) {
  Json top = nullptr;
  std::vector<std::pair<Json, std::string>> items;
  for (const RowResult& r : rows) {
    Json doc = JsonDocument(r, "rdjson");
    if (!doc.is_object()) continue;
    if (top.is_null()) top = doc;
    for (const Json& d : doc.value("diagnostics", Json::array())) items.emplace_back(d, r.row.node);
  }
  if (top.is_null()) top = {{"source", {{"name", "fsmove"}}}};
  top["diagnostics"] = JoinFindings(
      items,
      [](const Json& d) {
        Json k = d;
        k.erase("message");
        return k.dump() + d.value("message", "");
      },
      [](Json& d, const std::string& nodes) {
        d["message"] = fmt::format("On {}: {}", nodes, d.value("message", ""));
      });
  return top.dump(2) + "\n";
}

std::string MergeCodeQuality(const std::vector<RowResult>& rows) {
  std::vector<std::pair<Json, std::string>> items;
  for (const RowResult& r : rows) {
    Json doc = JsonDocument(r, "codequality");
    if (!doc.is_array()) continue;
    for (const Json& issue : doc) items.emplace_back(issue, r.row.node);
  }
  // GitLab tells issues apart by fingerprint: one issue for the nodes that share one.
  return JoinFindings(
             items, [](const Json& i) { return i.value("fingerprint", i.dump()); },
             [](Json& i, const std::string& nodes) {
               i["description"] = fmt::format("On {}: {}", nodes, i.value("description", ""));
             })
             .dump(2) +
         "\n";
}

// JUnit: each row's <testsuite> (the document has one), named after the node, in one
// <testsuites> whose totals are the sums.
std::string MergeJunit(const std::vector<RowResult>& rows) {
  static const RE2 kTotals(R"re(<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)" )re"
                           R"re(skipped="(\d+)" time="([0-9.]+)")re");
  size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  std::string suites;
  for (const RowResult& r : rows) {
    const std::string* doc = r.Document("junit");
    size_t begin = doc == nullptr ? std::string::npos : doc->find("<testsuite ");
    size_t end = doc == nullptr ? std::string::npos : doc->rfind("</testsuite>");
    size_t t = 0, f = 0, e = 0, s = 0;
    double secs = 0;
    if (begin == std::string::npos || end == std::string::npos ||
        !RE2::PartialMatch(*doc, kTotals, &t, &f, &e, &s, &secs)) {
      ++tests;
      ++errors;
      suites += report::FailedRunJunitSuite("fsmove " + r.row.node, "check of node " + r.row.node,
                                            Why(r));
      continue;
    }
    tests += t;
    failures += f;
    errors += e;
    skipped += s;
    seconds += secs;
    std::string suite = doc->substr(begin, end + std::string_view("</testsuite>").size() - begin);
    // <testsuite name="fsmove TRACE": the node's name first.
    const std::string name_attr = "<testsuite name=\"";
    suite.insert(name_attr.size(), report::XmlEscape(RowTitle(r.row)) + ": ");
    suites += "  " + suite + "\n";
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fsmove matrix\" "
      "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n{}"
      "</testsuites>\n",
      tests, failures, errors, skipped, seconds, suites);
}

std::string MergeMarkdown(const std::vector<RowResult>& rows) {
  // One comment: the marker a CI step finds it by once, and each node's section while the
  // comment stays within GitHub's limit (then a line for each node left).
  std::string out(report::kMarkdownMarker);
  for (const RowResult& r : rows) {
    std::string section = fmt::format("## Node `{}`\n\n", RowTitle(r.row));
    const std::string* doc = r.Document("markdown");
    if (doc != nullptr && !doc->empty()) {
      std::string_view body = *doc;
      if (body.starts_with(report::kMarkdownMarker))
        body.remove_prefix(report::kMarkdownMarker.size());
      section += body;
      if (section.back() != '\n') section += '\n';
    } else {
      section += fmt::format("Not checked: {}\n", Why(r));
    }
    if (out.size() + section.size() > report::kMarkdownMaxChars) {
      section = fmt::format(
          "## Node `{}`\n\n{} missing ordering relationships, {} missing "
          "notifiers: too long for this comment, see the node's own report.\n",
          RowTitle(r.row), r.result.mor, r.result.mn);
    }
    out += section + '\n';
  }
  return out;
}

std::string MergeText(const std::vector<RowResult>& rows) {
  std::string out;
  for (const RowResult& r : rows) {
    out += fmt::format("=== Node {} ===\n", base::TerminalSafe(RowTitle(r.row)));
    const std::string* doc = r.Document("text");
    if (doc != nullptr && !doc->empty()) {
      out += *doc;
      if (out.back() != '\n') out += '\n';
    } else {
      out += fmt::format("Not checked: {}\n", base::TerminalSafe(Why(r)));
    }
    out += '\n';
  }
  return out + MatrixTable(rows);
}

}  // namespace

const std::string* RowResult::Document(std::string_view format) const {
  for (const auto& [name, text] : documents) {
    if (name == format) return &text;
  }
  return nullptr;
}

scan::ModuleResult ClassifyRow(const MatrixRow& row, int exit_code, const std::string& check_log,
                               const std::optional<nlohmann::json>& report) {
  scan::CheckOutcome o;
  o.exit_code = exit_code;
  o.killed_by_signal = exit_code >= 128;
  o.report = report;
  o.has_catalog = report.has_value();
  o.check_log = check_log;
  return scan::Classify(RowName(row), o);
}

int MatrixExitCode(const std::vector<RowResult>& rows) {
  int worst = base::kExitOk;
  // Worse first: interrupted, then a node not checked, incomplete, findings.
  auto rank = [](int code) {
    if (code >= 128) return 4;
    if (code == base::kExitError) return 3;
    if (code == base::kExitIncomplete) return 2;
    if (code == base::kExitFindings) return 1;
    return code == base::kExitOk ? 0 : 3;
  };
  for (const RowResult& r : rows) {
    if (rank(r.exit_code) > rank(worst)) worst = r.exit_code < 0 ? base::kExitError : r.exit_code;
  }
  return worst;
}

std::string MergeReports(std::string_view format, const std::vector<RowResult>& rows,
                         const std::string& target, const std::string& matrix_file) {
  if (format == "json") return MergeJson(rows, target, matrix_file);
  if (format == "sarif") return MergeSarif(rows);
  if (format == "junit") return MergeJunit(rows);
  if (format == "rdjson") return MergeRdjson(rows);
  if (format == "codequality") return MergeCodeQuality(rows);
  if (format == "markdown") return MergeMarkdown(rows);
  return MergeText(rows);
}

std::string MatrixTable(const std::vector<RowResult>& rows) {
  size_t node_w = 4, class_w = 5, facts_w = 5, status_w = 6;
  for (const RowResult& r : rows) {
    node_w = std::max(node_w, r.row.node.size());
    class_w = std::max(class_w, r.row.klass.empty() ? 1 : r.row.klass.size());
    facts_w = std::max(facts_w, r.row.facts.empty() ? 1 : r.row.facts.size());
    status_w = std::max(status_w, scan::ModuleStatusName(r.result.status).size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>3}  {:>3}\n", "node", node_w, "class",
                  class_w, "facts", facts_w, "status", status_w, "MOR", "MN");
  size_t checked = 0, with_findings = 0;
  for (const RowResult& r : rows) {
    const std::string_view status = scan::ModuleStatusName(r.result.status);
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:>3}  {:>3}\n",
                       base::TerminalSafe(r.row.node), node_w,
                       r.row.klass.empty() ? "-" : base::TerminalSafe(r.row.klass), class_w,
                       r.row.facts.empty() ? "-" : base::TerminalSafe(r.row.facts), facts_w, status,
                       status_w, r.result.mor, r.result.mn);
    if (r.result.status == scan::ModuleStatus::kOk ||
        r.result.status == scan::ModuleStatus::kFindings) {
      ++checked;
    }
    if (r.result.mor + r.result.mn > 0) ++with_findings;
  }
  out += fmt::format("{} node{}: {} checked, {} with findings\n", rows.size(),
                     rows.size() == 1 ? "" : "s", checked, with_findings);
  return out;
}

}  // namespace fsmove::matrix
