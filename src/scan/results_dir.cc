// The results folder of a batch scan: status.json (written last, atomically), its validation
// on resume and merge, scan.json and the summaries.
#include "fsmove/scan/results_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "fmt/format.h"
#include "fsmove/base/json_output.h"
#include "fsmove/base/read_file.h"
#include "fsmove/scan/module_list.h"

namespace fsmove::scan {

namespace fs = std::filesystem;

absl::Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) return absl::InternalError(fmt::format("cannot write {}", tmp));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return absl::InternalError(fmt::format("cannot rename {} to {}", tmp, path));
  }
  return absl::OkStatus();
}

namespace {

// Results folders may come from elsewhere (fsmove merge reads other machines' shards): a
// results file is read only as a regular file, never through a symlink, never blocking on a
// FIFO, and up to a cap.
absl::StatusOr<nlohmann::json> ReadJson(const std::string& path) {
  const fs::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const int dir_fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return absl::NotFoundError(fmt::format("{} is missing", path));
  absl::StatusOr<std::string> text =
      base::ReadUntrustedFile(dir_fd, p.filename().string(), "", base::kMaxDocumentBytes);
  close(dir_fd);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) {
      return absl::NotFoundError(fmt::format("{} is missing", path));
    }
    return absl::DataLossError(fmt::format("{} ({})", std::string(text.status().message()), path));
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::DataLossError(fmt::format("{} is not valid JSON", path));
  return j;
}

}  // namespace

absl::Status WriteStatus(const std::string& dir, const ModuleResult& result) {
  nlohmann::json files = nlohmann::json::object();
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == kStatusFile || name.rfind(std::string(kStatusFile) + ".tmp", 0) == 0) continue;
    std::error_code e2;
    if (!e.is_regular_file(e2)) continue;
    files[name] = static_cast<uint64_t>(e.file_size(e2));
  }
  if (ec) return absl::InternalError(fmt::format("cannot list {}: {}", dir, ec.message()));
  nlohmann::json j = ToJson(result);
  j["files"] = files;
  return WriteFileAtomically((fs::path(dir) / kStatusFile).string(), base::DumpJson(j) + "\n");
}

absl::StatusOr<ModuleRecord> ReadStatus(const std::string& dir, const std::string& module) {
  auto j = ReadJson((fs::path(dir) / kStatusFile).string());
  if (!j.ok()) return j.status();
  auto result = ModuleResultFromJson(*j);
  if (!result || !j->contains("files") || !(*j)["files"].is_object()) {
    return absl::DataLossError(fmt::format("{}/{} lacks fields", dir, kStatusFile));
  }
  if (!module.empty() && result->module != module) {
    return absl::DataLossError(
        fmt::format("{}/{} is for module {}, not {}", dir, kStatusFile, result->module, module));
  }
  ModuleRecord rec;
  rec.result = std::move(*result);
  for (const auto& [name, size] : (*j)["files"].items()) {
    if (!size.is_number_unsigned() || name.find('/') != std::string::npos) {
      return absl::DataLossError(fmt::format("{}/{}: bad entry for {}", dir, kStatusFile, name));
    }
    std::error_code ec;
    uint64_t actual = fs::file_size(fs::path(dir) / name, ec);
    if (ec) return absl::DataLossError(fmt::format("{}/{} is missing", dir, name));
    if (actual != size.get<uint64_t>()) {
      return absl::DataLossError(fmt::format("{}/{} has {} bytes, status.json says {}", dir, name,
                                             actual, size.get<uint64_t>()));
    }
    rec.files[name] = actual;
  }
  // A finished check always leaves its stderr; a report is expected for every status that
  // counts findings.
  if (!rec.files.count(kCheckLogFile)) {
    return absl::DataLossError(fmt::format("{}/{} lists no {}", dir, kStatusFile, kCheckLogFile));
  }
  if ((rec.result.status == ModuleStatus::kOk || rec.result.status == ModuleStatus::kFindings) &&
      !rec.files.count(kReportFile)) {
    return absl::DataLossError(fmt::format("{}/{} lists no {}", dir, kStatusFile, kReportFile));
  }
  return rec;
}

absl::StatusOr<ResultsDirContents> ReadResultsDir(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return absl::NotFoundError(fmt::format("cannot list {}: {}", dir, ec.message()));
  std::vector<fs::path> folders;
  for (const fs::directory_entry& e : it) {
    std::error_code e2;
    // Module folders are never hidden (ModuleDirName); .locks holds the scan's locks.
    if (e.path().filename().string().starts_with(".")) continue;
    if (e.is_directory(e2)) folders.push_back(e.path());
  }
  std::sort(folders.begin(), folders.end());
  ResultsDirContents out;
  for (const fs::path& f : folders) {
    const std::string name = f.filename().string();
    auto rec = ReadStatus(f.string(), "");
    if (!rec.ok()) {
      out.invalid.push_back(fmt::format("{}: {}", name, std::string(rec.status().message())));
      continue;
    }
    if (ModuleDirName(rec->result.module) != name) {
      out.invalid.push_back(fmt::format("{}: holds module {}, whose folder would be {}", name,
                                        rec->result.module, ModuleDirName(rec->result.module)));
      continue;
    }
    out.dir_of[rec->result.module] = name;
    out.modules[rec->result.module] = std::move(*rec);
  }
  return out;
}

absl::Status WriteScanManifest(const std::string& dir, const ScanManifest& m) {
  nlohmann::json j = {{"shard", m.shard.ToString()},
                      {"list_digest", m.list_digest},
                      {"list_size", m.list_size},
                      {"modules", m.modules}};
  return WriteFileAtomically((fs::path(dir) / kScanJson).string(), base::DumpJson(j) + "\n");
}

absl::StatusOr<ScanManifest> ReadScanManifest(const std::string& dir) {
  auto j = ReadJson((fs::path(dir) / kScanJson).string());
  if (!j.ok()) return j.status();
  const nlohmann::json& v = *j;
  if (!v.is_object() || !v.contains("shard") || !v["shard"].is_string() ||
      !v.contains("list_digest") || !v["list_digest"].is_string() || !v.contains("list_size") ||
      !v["list_size"].is_number_unsigned() || !v.contains("modules") || !v["modules"].is_array()) {
    return absl::DataLossError(fmt::format("{}/{} lacks fields", dir, kScanJson));
  }
  auto shard = ParseShard(v["shard"].get<std::string>());
  if (!shard.ok()) return shard.status();
  ScanManifest m;
  m.shard = *shard;
  m.list_digest = v["list_digest"].get<std::string>();
  m.list_size = v["list_size"].get<size_t>();
  for (const auto& x : v["modules"]) {
    if (!x.is_string())
      return absl::DataLossError(fmt::format("{}/{}: bad module", dir, kScanJson));
    m.modules.push_back(x.get<std::string>());
  }
  return m;
}

namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

ScanCoverage Coverage(const std::vector<ModuleResult>& results) {
  std::map<std::string, bool> applied;  // module directory -> a run of it compiled and applied
  for (const ModuleResult& r : results) {
    std::string module = RunModule(r.module);
    if (module.empty()) module = r.module;
    bool& a = applied[module];
    a = a || r.status == ModuleStatus::kOk || r.status == ModuleStatus::kFindings;
  }
  ScanCoverage c;
  c.runs = results.size();
  c.modules = applied.size();
  for (const auto& [module, a] : applied) c.modules_applied += a ? 1 : 0;
  return c;
}

absl::Status WriteSummary(const std::string& dir, const std::vector<ModuleResult>& results) {
  std::vector<const ModuleResult*> sorted;
  sorted.reserve(results.size());
  for (const auto& r : results) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](const ModuleResult* a, const ModuleResult* b) { return a->module < b->module; });
  nlohmann::json modules = nlohmann::json::array();
  std::string csv =
      "module,status,mor,mn,confirmed,ni,trace_bytes,apply_seconds,analysis_seconds,error\n";
  for (const ModuleResult* r : sorted) {
    nlohmann::json j = ToJson(*r);
    j.erase("check_exit");
    modules.push_back(j);
    csv += fmt::format("{},{},{},{},{},{},{},{:.3f},{:.3f},{}\n", CsvField(r->module),
                       ModuleStatusName(r->status), r->mor, r->mn, r->confirmed, r->ni,
                       r->trace_bytes, r->apply_seconds, r->analysis_seconds, CsvField(r->error));
  }
  const ScanCoverage cov = Coverage(results);
  nlohmann::json j = {
      {"modules", modules},
      {"coverage",
       {{"runs", cov.runs}, {"modules", cov.modules}, {"modules_applied", cov.modules_applied}}}};
  if (auto st =
          WriteFileAtomically((fs::path(dir) / kSummaryJson).string(), base::DumpJson(j) + "\n");
      !st.ok()) {
    return st;
  }
  return WriteFileAtomically((fs::path(dir) / kSummaryCsv).string(), csv);
}

absl::StatusOr<std::vector<ModuleResult>> ReadSummaryJson(const std::string& path) {
  auto j = ReadJson(path);
  if (!j.ok()) return j.status();
  if (!j->is_object() || !j->contains("modules") || !(*j)["modules"].is_array()) {
    return absl::DataLossError(fmt::format("{} has no \"modules\" array", path));
  }
  std::vector<ModuleResult> out;
  for (const auto& m : (*j)["modules"]) {
    auto r = ModuleResultFromJson(m);
    if (!r) return absl::DataLossError(fmt::format("{}: a module entry lacks fields", path));
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace fsmove::scan
