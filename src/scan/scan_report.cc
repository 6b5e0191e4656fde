// report.html of a scan; see scan_report.h.
#include "fsmove/scan/scan_report.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "fmt/format.h"
#include "fsmove/base/json_output.h"
#include "fsmove/base/read_file.h"
#include "fsmove/scan/module_list.h"
#include "fsmove/scan/results_dir.h"

namespace fsmove::scan {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxPathsPerFinding = 5;
// A report.json larger than this is not read for the page (its run shows no findings).
constexpr size_t kMaxReportBytes = size_t{32} << 20;

std::string Str(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// What an access did, in the words of the check's own reports (its JSON "verb", which
// report::AccessVerb wrote); a report.json from before the verb has only the effect.
std::string AccessWords(const nlohmann::json& access) {
  std::string verb = Str(access, "verb");
  return verb.empty() ? Str(access, "effect") : verb;
}

// The member `key` of an object, or null (never throws on another type).
nlohmann::json Member(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nlohmann::json(nullptr) : *it;
}

// "Package[x]" from a finding's {"resource": ..., "file", "line"}.
std::string Ref(const nlohmann::json& side) {
  std::string ref = Str(side, "resource");
  if (ref.empty() && side.is_string()) ref = side.get<std::string>();
  return ref;
}

std::string Where(const nlohmann::json& side) {
  const std::string file = Str(side, "file");
  if (file.empty()) return {};
  auto line = side.find("line");
  return line != side.end() && line->is_number_integer() && line->get<int64_t>() > 0
             ? fmt::format("{}:{}", file, line->get<int64_t>())
             : file;
}

nlohmann::json FindingData(const nlohmann::json& f) {
  nlohmann::json out = {{"kind", Str(f, "kind")},
                        {"source", Ref(Member(f, "source"))},
                        {"target", Ref(Member(f, "target"))},
                        {"source_at", Where(Member(f, "source"))},
                        {"target_at", Where(Member(f, "target"))},
                        {"confidence", Str(f, "confidence")},
                        {"fix", Str(f, "fix")},
                        {"behaviour", Str(f, "behaviour")}};
  out["write_write"] = Member(f, "write_write") == true;
  const nlohmann::json confirmed = Member(f, "confirmed");
  out["confirmed"] = confirmed.is_boolean() ? confirmed : nlohmann::json(nullptr);
  nlohmann::json paths = nlohmann::json::array();
  if (auto p = f.find("paths"); p != f.end() && p->is_array()) {
    for (const nlohmann::json& e : *p) {
      if (paths.size() == kMaxPathsPerFinding) break;
      const nlohmann::json s = Member(e, "source");
      const nlohmann::json t = Member(e, "target");
      paths.push_back({{"path", Str(e, "path")},
                       {"source", fmt::format("{} ({})", AccessWords(s), Str(s, "syscall"))},
                       {"target", fmt::format("{} ({})", AccessWords(t), Str(t, "syscall"))}});
    }
    out["paths_total"] = p->size();
  }
  if (auto total = f.find("paths_total");
      total != f.end() && total->is_number_integer() && total->get<int64_t>() >= 0) {
    out["paths_total"] = total->get<int64_t>();
  }
  out["paths"] = std::move(paths);
  return out;
}

// JSON that cannot end the script element it sits in, nor open another: '<', '>' and '&' only
// occur inside JSON strings, where \u escapes mean the same.
std::string ScriptSafeJson(const nlohmann::json& j) {
  const std::string text = base::DumpJson(j, -1);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The same fault found by several runs of one module (the module's own run, its examples,
// its classes, its acceptance manifests): each copy gets the same "key" and the names of all
// those runs, in page order, so that the page shows it once, under the first run shown, and
// names the others. The key is the kind and the two resources within the module; the paths
// may differ between runs (an example touches more), the fault is the same.
void NameSharedFindings(nlohmann::json* runs) {
  std::map<std::string, std::vector<std::string>> found_by;
  auto key_of = [](const nlohmann::json& run, const nlohmann::json& f) {
    std::string group = run["module_dir"].get<std::string>();
    if (group.empty()) group = run["module"].get<std::string>();
    return base::DumpJson(nlohmann::json::array({group, f["kind"], f["source"], f["target"]}), -1);
  };
  for (nlohmann::json& run : *runs) {
    const std::string module = run["module"].get<std::string>();
    for (nlohmann::json& f : run["findings"]) {
      std::string key = key_of(run, f);
      std::vector<std::string>& names = found_by[key];
      if (names.empty() || names.back() != module) names.push_back(module);
      f["key"] = std::move(key);
    }
  }
  for (nlohmann::json& run : *runs) {
    for (nlohmann::json& f : run["findings"]) f["runs"] = found_by[f["key"].get<std::string>()];
  }
}

constexpr std::string_view kPageHead = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fsmove scan</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
.muted { color: #666; }
#statuses button { margin: 0 .4em .4em 0; padding: .25em .7em; border-radius: 1em;
  border: 1px solid #aaa; background: #fff; cursor: pointer; }
#statuses button[aria-pressed="false"] { opacity: .4; }
.controls { margin: .8em 0; }
.controls label { margin-right: 1em; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3em .5em; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
th { background: #f4f4f4; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0 .5em; border-radius: .6em; font-size: .9em; }
.s-ok { background: #d8f5d8; } .s-findings { background: #ffe2b3; }
.s-resources-failed { background: #fff3b0; } .s-compile-failed, .s-apply-failed,
.s-crashed { background: #ffd0d0; } .s-timeout { background: #e0d8ff; } .s-missing { background: #ddd; }
.s-missing-dependency { background: #f5d0f0; } .s-nothing-to-apply { background: #e6eef2; }
.k-MOR { background: #ffd9a8; } .k-MN { background: #cde4ff; } .k-NI { background: #e8e8e8; }
.error { color: #8a1f1f; max-width: 40em; overflow-wrap: anywhere; }
.warning { color: #7a5b00; }
details.finding { margin: .4em 0 .6em; padding: .3em .6em; border-left: 3px solid #f0a040; background: #fffaf2; }
details.finding[data-kind="MN"] { border-color: #4a90e2; background: #f4f9ff; }
details.finding summary { cursor: pointer; }
pre { white-space: pre-wrap; background: #f6f6f6; padding: .4em; margin: .3em 0; }
ul.paths { margin: .2em 0; padding-left: 1.2em; }
code { font-family: ui-monospace, monospace; font-size: .95em; }
svg text { font: 12px ui-monospace, monospace; }
</style>
</head>
<body>
<h1>fsmove scan</h1>
<p id="coverage" class="muted"></p>
<div id="statuses"></div>
<div class="controls">
<label><input type="checkbox" id="kind-MOR" checked> missing orderings (MOR)</label>
<label><input type="checkbox" id="kind-MN" checked> missing notifiers (MN)</label>
<label><input type="checkbox" id="kind-NI" checked> not idempotent</label>
<label><input type="checkbox" id="only-findings"> only runs with findings</label>
<label>module <input type="search" id="search" placeholder="filter by name"></label>
</div>
<p id="shown" class="muted"></p>
<table>
<thead><tr><th>run</th><th>source</th><th>status</th><th>MOR</th><th>MN</th><th>apply s</th><th>findings, or why not</th></tr></thead>
<tbody id="runs"></tbody>
</table>
<noscript><p>This page needs JavaScript to show the scan; summary.json and summary.csv beside it hold the same results.</p></noscript>
<script type="application/json" id="scan-data">)html";

constexpr std::string_view kPageTail = R"html(</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("scan-data").textContent);
// Text from the modules (titles, paths, messages) with its control, C1, bidirectional and line
// separator characters shown as escapes ("\u202e"), as fsmove's text output shows them: a
// U+202E in a title cannot reverse what the page shows.
const visible = s => String(s).replace(
    /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    c => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
const el = (tag, attrs, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, visible(v));
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(visible(c)));
  return e;
};
const svgNS = "http://www.w3.org/2000/svg";
const svg = (tag, attrs, text) => {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, visible(v));
  if (text !== undefined) e.textContent = visible(text);
  return e;
};
// The two resources and the relationship the finding says is missing.
function pairGraph(f) {
  const label = f.kind === "MN" ? "notify (~>) missing" : f.kind === "MOR" ? "before (->) missing" : "";
  const w = 620, h = 64, bw = 250;
  const g = svg("svg", {width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img",
                        "aria-label": `${f.source} ${label} ${f.target}`});
  const defs = svg("defs", {});
  const marker = svg("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
                                markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse"});
  marker.append(svg("path", {d: "M 0 0 L 10 5 L 0 10 z", fill: "#c0392b"}));
  defs.append(marker);
  g.append(defs);
  const box = (x, text) => {
    g.append(svg("rect", {x, y: 16, width: bw, height: 30, rx: 5, fill: "#fff", stroke: "#555"}));
    const shown = text.length > 34 ? text.slice(0, 33) + "\u2026" : text;
    const t = svg("text", {x: x + bw / 2, y: 35, "text-anchor": "middle"}, shown);
    t.append(svg("title", {}, text));
    g.append(t);
  };
  box(2, f.source);
  box(w - bw - 2, f.target);
  g.append(svg("line", {x1: bw + 4, y1: 31, x2: w - bw - 6, y2: 31, stroke: "#c0392b",
                        "stroke-width": 2, "stroke-dasharray": "5 4", "marker-end": "url(#arrow)"}));
  g.append(svg("text", {x: w / 2, y: 12, "text-anchor": "middle", fill: "#c0392b"}, label));
  return g;
}
function findingNode(f) {
  const d = el("details", {class: "finding", "data-kind": f.kind});
  const what = f.kind === "NI" ? `${f.source} is not idempotent (${f.behaviour})`
                               : `${f.source} \u2192 ${f.target}`;
  const summary = el("summary", {}, el("span", {class: `badge k-${f.kind}`}, f.kind), " ",
                     el("code", {}, what));
  if (f.confidence === "low") summary.append(" ", el("span", {class: "muted"}, "(low confidence)"));
  if (f.confirmed === true) summary.append(" ", el("strong", {}, "CONFIRMED by a replay"));
  if (f.write_write) summary.append(" ", el("span", {class: "muted"}, "(both write)"));
  if (f.runs && f.runs.length > 1) summary.append(" ", el("span", {class: "muted"}, `(${f.runs.length} runs)`));
  d.append(summary);
  if (f.kind !== "NI") d.append(pairGraph(f));
  if (f.runs && f.runs.length > 1) {
    d.append(el("div", {}, "found by " + f.runs.length + " runs of this module: " + f.runs.join(", ")));
  }
  const where = [f.source_at && `${f.source}: ${f.source_at}`, f.target_at && `${f.target}: ${f.target_at}`]
      .filter(Boolean);
  if (where.length) d.append(el("div", {class: "muted"}, "declared at " + where.join("; ")));
  if (f.fix) d.append(el("div", {}, "fix:"), el("pre", {class: "fix"}, f.fix));
  if (f.paths && f.paths.length) {
    const ul = el("ul", {class: "paths"});
    for (const p of f.paths) {
      ul.append(el("li", {}, el("code", {}, p.path), ` \u2014 ${f.source}: ${p.source}; ${f.target}: ${p.target}`));
    }
    d.append(el("div", {}, "evidence:"), ul);
    if (f.paths_total > f.paths.length) {
      d.append(el("div", {class: "muted"}, `and ${f.paths_total - f.paths.length} more paths (report.json)`));
    }
  }
  return d;
}
const kinds = () => ["MOR", "MN", "NI"].filter(k => document.getElementById("kind-" + k).checked);
const hiddenStatuses = new Set();
function render() {
  const body = document.getElementById("runs");
  body.replaceChildren();
  const wanted = kinds();
  const onlyFindings = document.getElementById("only-findings").checked;
  const needle = document.getElementById("search").value.trim().toLowerCase();
  let shown = 0, findingsShown = 0;
  const seen = new Set();  // a fault several runs of a module found is shown once
  for (const r of data.runs) {
    if (hiddenStatuses.has(r.status)) continue;
    if (needle && !r.module.toLowerCase().includes(needle)) continue;
    const fs = r.findings.filter(f => wanted.includes(f.kind));
    if (onlyFindings && fs.length === 0) continue;
    shown++;
    const cell = el("td", {});
    if (r.error) cell.append(el("div", {class: "error"}, r.error));
    for (const w of r.warnings) cell.append(el("div", {class: "warning"}, "warning: " + w));
    let already = 0;
    for (const f of fs) {
      if (f.key && seen.has(f.key)) { already++; continue; }
      if (f.key) seen.add(f.key);
      findingsShown++;
      cell.append(findingNode(f));
    }
    if (already) {
      cell.append(el("div", {class: "muted shared"}, `${already} finding${already === 1 ? "" : "s"} ` +
                     `shown above, under another run of this module`));
    }
    if (r.findings_total > r.findings.length) {
      cell.append(el("div", {class: "muted"}, `${r.findings_total - r.findings.length} more findings in ${r.folder}/report.json`));
    }
    if (!r.has_report && (r.status === "ok" || r.status === "findings")) {
      cell.append(el("div", {class: "muted"}, `no readable ${r.folder}/report.json`));
    }
    const link = el("a", {href: encodeURI(r.folder) + "/"}, r.module);
    body.append(el("tr", {class: "run", "data-status": r.status, "data-module": r.module},
      el("td", {}, link), el("td", {}, r.source),
      el("td", {}, el("span", {class: `badge s-${r.status}`}, r.status)),
      el("td", {class: "num"}, r.mor), el("td", {class: "num"}, r.mn),
      el("td", {class: "num"}, r.apply_seconds.toFixed(1)), cell));
  }
  document.getElementById("shown").textContent =
      `${shown} of ${data.runs.length} runs shown, with ${findingsShown} findings`;
}
const cov = data.coverage;
document.getElementById("coverage").textContent =
    `${cov.modules_applied} of ${cov.modules} ${data.unit || "modules"} had a run that compiled ` +
    `and applied; ` +
    `${cov.runs} runs in all` + (data.title ? ` \u2014 ${data.title}` : "");
const statuses = document.getElementById("statuses");
for (const [status, count] of Object.entries(data.statuses)) {
  const b = el("button", {type: "button", class: `badge s-${status}`, "aria-pressed": "true",
                          "data-status": status}, `${status}: ${count}`);
  b.addEventListener("click", () => {
    const hide = !hiddenStatuses.has(status);
    if (hide) hiddenStatuses.add(status); else hiddenStatuses.delete(status);
    b.setAttribute("aria-pressed", hide ? "false" : "true");
    render();
  });
  statuses.append(b);
}
for (const id of ["kind-MOR", "kind-MN", "kind-NI", "only-findings", "search"])
  document.getElementById(id).addEventListener("input", render);
render();
</script>
</body>
</html>
)html";

}  // namespace

nlohmann::json ScanReportData(const std::vector<ReportRun>& runs, const std::string& title,
                              size_t max_findings) {
  std::vector<ModuleResult> results;
  results.reserve(runs.size());
  std::map<std::string, size_t> statuses;
  for (const ReportRun& run : runs) {
    results.push_back(run.result);
    ++statuses[std::string(ModuleStatusName(run.result.status))];
  }
  const ScanCoverage cov = Coverage(results);
  std::vector<const ReportRun*> sorted;
  sorted.reserve(runs.size());
  for (const ReportRun& run : runs) sorted.push_back(&run);
  std::sort(sorted.begin(), sorted.end(), [](const ReportRun* a, const ReportRun* b) {
    return a->result.module < b->result.module;
  });
  nlohmann::json list = nlohmann::json::array();
  for (const ReportRun* run : sorted) {
    const ModuleResult& r = run->result;
    nlohmann::json findings = nlohmann::json::array();
    size_t total = 0;
    if (run->report.is_object()) {
      if (auto f = run->report.find("faults"); f != run->report.end() && f->is_array()) {
        total = f->size();
        for (const nlohmann::json& one : *f) {
          if (findings.size() == max_findings) break;
          if (one.is_object()) findings.push_back(FindingData(one));
        }
      }
    }
    list.push_back({{"module", r.module},
                    {"source", std::string(RunSource(r.module))},
                    {"module_dir", RunModule(r.module)},
                    {"folder", run->folder},
                    {"status", std::string(ModuleStatusName(r.status))},
                    {"error", r.error},
                    {"warnings", r.warnings},
                    {"mor", r.mor},
                    {"mn", r.mn},
                    {"confirmed", r.confirmed},
                    {"apply_seconds", r.apply_seconds},
                    {"has_report", run->report.is_object()},
                    {"findings", std::move(findings)},
                    {"findings_total", total}});
  }
  NameSharedFindings(&list);
  return {
      {"title", title},
      {"coverage",
       {{"runs", cov.runs}, {"modules", cov.modules}, {"modules_applied", cov.modules_applied}}},
      {"statuses", statuses},
      {"runs", std::move(list)}};
}

std::string ScanReportHtml(const nlohmann::json& data) {
  std::string page(kPageHead);
  page += ScriptSafeJson(data);
  page += kPageTail;
  return page;
}

absl::Status WriteScanReport(const std::string& dir, const std::vector<ModuleResult>& results) {
  std::vector<ReportRun> runs;
  runs.reserve(results.size());
  for (const ModuleResult& r : results) {
    ReportRun run{r, ModuleDirName(r.module), nullptr};
    absl::StatusOr<std::string> text = base::ReadFile(
        (fs::path(dir) / run.folder / kReportFile).string(), "report", kMaxReportBytes);
    if (text.ok()) {
      run.report = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
      if (run.report.is_discarded()) run.report = nullptr;
    }
    runs.push_back(std::move(run));
  }
  fs::path name = fs::path(dir).lexically_normal();
  if (name.filename().empty()) name = name.parent_path();
  return WriteFileAtomically((fs::path(dir) / kReportHtml).string(),
                             ScanReportHtml(ScanReportData(runs, name.filename().string())));
}

}  // namespace fsmove::scan
