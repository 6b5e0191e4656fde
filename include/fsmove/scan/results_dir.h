// The results folder of a scan: per module a folder (ModuleDirName) with report.json,
// catalog.json, puppet.log, check.log, maybe trace.zst, and status.json written last and
// atomically, which marks the module done; at the top summary.json, summary.csv, scan.json.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fsmove/scan/module_result.h"
#include "fsmove/scan/shard.h"

namespace fsmove::scan {

inline constexpr const char* kStatusFile = "status.json";
inline constexpr const char* kReportFile = "report.json";
inline constexpr const char* kCatalogFile = "catalog.json";
inline constexpr const char* kPuppetLogFile = "puppet.log";
// Puppet's graph of the run (what bench/precision passes as --puppet-graph).
inline constexpr const char* kPuppetGraphFile = "expanded_relationships.dot";
inline constexpr const char* kCheckLogFile = "check.log";
// An acceptance spec's manifest, as the run's check applied it.
inline constexpr const char* kRunManifestFile = "manifest.pp";
inline constexpr const char* kTraceFile = "trace.zst";
inline constexpr const char* kSummaryJson = "summary.json";
inline constexpr const char* kSummaryCsv = "summary.csv";
inline constexpr const char* kScanJson = "scan.json";

// status.json: the module's result plus the size of every file of its folder at the time, so
// that a folder whose files were removed or cut short afterwards is not taken as done.
struct ModuleRecord {
  ModuleResult result;
  std::map<std::string, uint64_t> files;  // name -> size in bytes
};

// Writes `dir`/status.json through a temporary file and a rename, listing the files present.
absl::Status WriteStatus(const std::string& dir, const ModuleResult& result);

// The record of a finished module, or why the folder does not count as done: no status.json,
// unparsable, for another module, or a listed file missing or of another size.
absl::StatusOr<ModuleRecord> ReadStatus(const std::string& dir, const std::string& module);

// Every module folder of a results directory with a valid status.json (for `merge`), keyed by
// module identity; folders that do not validate are listed in `invalid` with the reason.
struct ResultsDirContents {
  std::map<std::string, ModuleRecord> modules;
  std::map<std::string, std::string> dir_of;  // module -> folder name
  std::vector<std::string> invalid;           // "folder: reason"
};
absl::StatusOr<ResultsDirContents> ReadResultsDir(const std::string& dir);

// scan.json: which shard of which list a results directory holds.
struct ScanManifest {
  Shard shard;
  std::string list_digest;           // ModuleListDigest of the whole list
  size_t list_size = 0;              // modules in the whole list
  std::vector<std::string> modules;  // this shard's modules
};
absl::Status WriteScanManifest(const std::string& dir, const ScanManifest& m);
absl::StatusOr<ScanManifest> ReadScanManifest(const std::string& dir);

// How much of the modules a scan reached: its runs, the module directories they belong to,
// and how many of those had at least one run that compiled and applied (ok or findings).
struct ScanCoverage {
  size_t runs = 0;
  size_t modules = 0;
  size_t modules_applied = 0;
};
ScanCoverage Coverage(const std::vector<ModuleResult>& results);

// summary.json ({"modules": [...] sorted by run, each with its source and module directory;
// "coverage": Coverage()}) and summary.csv (header row, then
// module,status,mor,mn,trace_bytes,apply_seconds,analysis_seconds,error).
absl::Status WriteSummary(const std::string& dir, const std::vector<ModuleResult>& results);
absl::StatusOr<std::vector<ModuleResult>> ReadSummaryJson(const std::string& path);

// Writes `content` to `path` through `path`.tmp and a rename.
absl::Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace fsmove::scan
