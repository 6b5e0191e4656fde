// A module's status in a batch scan, decided from check's exit code, report and stderr.
#include "fsmove/scan/module_result.h"

#include <array>

#include "fmt/format.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/scan/module_list.h"

namespace fsmove::scan {

namespace {

constexpr std::array<std::pair<ModuleStatus, std::string_view>, 10> kNames = {{
    {ModuleStatus::kOk, "ok"},
    {ModuleStatus::kFindings, "findings"},
    {ModuleStatus::kResourcesFailed, "resources-failed"},
    {ModuleStatus::kCompileFailed, "compile-failed"},
    {ModuleStatus::kMissingDependency, "missing-dependency"},
    {ModuleStatus::kApplyFailed, "apply-failed"},
    {ModuleStatus::kTimeout, "timeout"},
    {ModuleStatus::kCrashed, "crashed"},
    {ModuleStatus::kMissing, "missing"},
    {ModuleStatus::kNothingToApply, "nothing-to-apply"},
}};

// The report's value at a JSON pointer, or `fallback` when absent or of another type.
template <typename T>
T At(const nlohmann::json& j, const char* pointer, T fallback) {
  const nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p)) return fallback;
  const nlohmann::json& v = j.at(p);
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean() ? v.get<bool>() : fallback;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string() ? v.get<std::string>() : fallback;
  } else {
    return v.is_number() ? v.get<T>() : fallback;
  }
}

// "puppetlabs-stdlib", "puppetlabs/stdlib" -> "stdlib" (as exec's dependency names).
std::string_view ShortName(std::string_view dependency) {
  const size_t cut = dependency.find_first_of("-/");
  return cut == std::string_view::npos ? dependency : dependency.substr(cut + 1);
}

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > 300) {
    s.resize(297);
    s += "...";
  }
  return s;
}

}  // namespace

std::string_view ModuleStatusName(ModuleStatus s) {
  for (const auto& [status, name] : kNames) {
    if (status == s) return name;
  }
  return "crashed";
}

std::optional<ModuleStatus> ParseModuleStatus(std::string_view name) {
  for (const auto& [status, n] : kNames) {
    if (n == name) return status;
  }
  return std::nullopt;
}

std::string ErrorLine(std::string_view log) {
  std::string_view last;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    size_t at = line.find("error: ");
    if (at != std::string_view::npos) return OneLine(std::string(line.substr(at + 7)));
    last = line;
  }
  return OneLine(std::string(last));
}

bool IsFinal(ModuleStatus s) {
  return s != ModuleStatus::kMissing && s != ModuleStatus::kNothingToApply;
}

ModuleResult Classify(const std::string& module, const CheckOutcome& o) {
  ModuleResult r;
  r.module = module;
  r.check_exit = o.exit_code;
  if (o.report) {
    const nlohmann::json& j = *o.report;
    r.mor = At<int>(j, "/summary/MOR", 0);
    r.mn = At<int>(j, "/summary/MN", 0);
    r.confirmed = At<int>(j, "/summary/confirmed", 0);
    r.ni = At<int>(j, "/summary/NI", 0);
    r.trace_bytes = At<uint64_t>(j, "/stats/bytes", 0);
    r.apply_seconds = At<double>(j, "/run/apply_seconds", 0);
    r.analysis_seconds = At<double>(j, "/stats/seconds/parse_interpret", 0) +
                         At<double>(j, "/stats/seconds/catalog_and_graph", 0) +
                         At<double>(j, "/stats/seconds/check", 0);
  }
  const std::string why = ErrorLine(o.check_log);
  for (const std::string& fact : exec::FailedCustomFacts(exec::StripAnsi(o.check_log)))
    r.warnings.push_back(OneLine(fmt::format("custom fact '{}' failed", fact)));
  auto fail = [&](ModuleStatus s, std::string error) {
    r.status = s;
    r.error = OneLine(std::move(error));
    return r;
  };
  if (o.hard_killed) {
    return fail(ModuleStatus::kTimeout,
                "fsmove check did not end after --timeout and the grace period; it was killed");
  }
  if (o.killed_by_signal) {
    return fail(ModuleStatus::kCrashed,
                fmt::format("fsmove check was killed by signal {}{}", o.exit_code - 128,
                            why.empty() ? "" : ": " + why));
  }
  // 3: the check saw only part of the apply (resources failed, skipped, never evaluated).
  if ((o.exit_code == 0 || o.exit_code == 1 || o.exit_code == 3) && o.report) {
    // Analysed, but what failed (and what depended on it) did not run: not a clean result,
    // whatever the findings.
    const nlohmann::json::json_pointer failed("/run/failed_resources");
    const nlohmann::json& j = *o.report;
    if (j.contains(failed) && j.at(failed).is_array() && !j.at(failed).empty()) {
      const nlohmann::json& list = j.at(failed);
      const nlohmann::json& first = list.front();
      std::string what =
          first.is_object() && first.contains("resource") && first["resource"].is_string()
              ? first["resource"].get<std::string>()
              : "a resource";
      if (first.is_object() && first.contains("message") && first["message"].is_string()) {
        what += ": " + first["message"].get<std::string>();
      }
      return fail(ModuleStatus::kResourcesFailed,
                  list.size() == 1
                      ? fmt::format("1 resource failed: {}", what)
                      : fmt::format("{} resources failed, first {}", list.size(), what));
    }
    if (o.exit_code == 3) {
      const std::string summary = At<std::string>(j, "/completeness/summary", "");
      // fsmove's own limit (paths, inodes, the saved trace), not Puppet's failure.
      const nlohmann::json::json_pointer limits("/completeness/limits_hit");
      if (j.contains(limits) && j.at(limits).is_array() && !j.at(limits).empty()) {
        return fail(ModuleStatus::kApplyFailed, "fsmove reached a limit of its own: " + summary);
      }
      return fail(ModuleStatus::kResourcesFailed,
                  summary.empty() ? "Puppet did not apply the whole catalog"
                                  : "Puppet did not apply the whole catalog: " + summary);
    }
    r.status = o.exit_code == 0 ? ModuleStatus::kOk : ModuleStatus::kFindings;
    return r;
  }
  if (o.exit_code == 2) {
    // A report says so; a check stopped before the apply (while compiling) has none.
    if ((o.report && At<bool>(*o.report, "/run/timed_out", false)) ||
        (!o.report && o.check_log.find("(--timeout)") != std::string::npos)) {
      return fail(ModuleStatus::kTimeout, why.empty() ? "puppet apply timed out" : why);
    }
    if (o.check_log.find("could not compile") != std::string::npos || !o.has_catalog) {
      // Puppet's own message is on the lines after check's: the error that ended the
      // compile, not a custom fact's (Puppet compiles on without the fact).
      std::string detail = exec::FatalCompileError(exec::StripAnsi(o.check_log));
      if (detail.empty()) detail = why;
      // What Puppet did not find belongs to a module that is on no modulepath directory:
      // that module is the reason, not the code.
      const std::string module = exec::UnfoundModule(detail);
      for (const std::string& dep : o.missing_dependencies) {
        if (module.empty() || ShortName(dep) != module) continue;
        return fail(ModuleStatus::kMissingDependency,
                    fmt::format("needs module {} (a dependency in metadata.json or "
                                ".fixtures.yml), which no --modulepath directory holds: {}",
                                dep, detail));
      }
      if (!module.empty() && module == o.absent_module) {
        return fail(ModuleStatus::kMissingDependency,
                    fmt::format("needs module {}, which no --modulepath directory holds (the "
                                "module does not name it in metadata.json or .fixtures.yml): {}",
                                module, detail));
      }
      return fail(ModuleStatus::kCompileFailed,
                  detail.empty() ? "the catalog was not compiled" : detail);
    }
    if (o.report) {
      const nlohmann::json& j = *o.report;
      bool puppet_killed = At<int>(j, "/run/puppet_exit_code", 0) > 128;
      bool incomplete = !At<bool>(j, "/run/trace_complete", true);
      const nlohmann::json::json_pointer failed("/run/failed_resources");
      bool resources_failed =
          j.contains(failed) && j.at(failed).is_array() && !j.at(failed).empty();
      if (puppet_killed || incomplete || resources_failed) {
        return fail(ModuleStatus::kApplyFailed, why.empty() ? "puppet apply failed" : why);
      }
    }
  }
  if (!o.report) {
    return fail(ModuleStatus::kCrashed,
                fmt::format("fsmove check exited with code {} without a report{}", o.exit_code,
                            why.empty() ? "" : ": " + why));
  }
  return fail(ModuleStatus::kCrashed, fmt::format("fsmove check exited with code {}{}", o.exit_code,
                                                  why.empty() ? "" : ": " + why));
}

nlohmann::json ToJson(const ModuleResult& r) {
  nlohmann::json j = {{"module", r.module},
                      {"source", std::string(RunSource(r.module))},
                      {"module_dir", RunModule(r.module)},
                      {"status", std::string(ModuleStatusName(r.status))},
                      {"mor", r.mor},
                      {"mn", r.mn},
                      {"confirmed", r.confirmed},
                      {"ni", r.ni},
                      {"trace_bytes", r.trace_bytes},
                      {"apply_seconds", r.apply_seconds},
                      {"analysis_seconds", r.analysis_seconds},
                      {"error", r.error},
                      {"warnings", r.warnings},
                      {"check_exit", r.check_exit}};
  return j;
}

std::optional<ModuleResult> ModuleResultFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto str = [&](const char* k) { return j.contains(k) && j[k].is_string(); };
  auto num = [&](const char* k) { return j.contains(k) && j[k].is_number(); };
  if (!str("module") || !str("status") || !num("mor") || !num("mn") || !num("trace_bytes") ||
      !num("apply_seconds") || !num("analysis_seconds")) {
    return std::nullopt;
  }
  auto status = ParseModuleStatus(j["status"].get<std::string>());
  if (!status) return std::nullopt;
  ModuleResult r;
  r.module = j["module"].get<std::string>();
  r.status = *status;
  r.mor = j["mor"].get<int>();
  r.mn = j["mn"].get<int>();
  r.trace_bytes = j["trace_bytes"].get<uint64_t>();
  r.apply_seconds = j["apply_seconds"].get<double>();
  r.analysis_seconds = j["analysis_seconds"].get<double>();
  if (num("confirmed")) r.confirmed = j["confirmed"].get<int>();
  if (num("ni")) r.ni = j["ni"].get<int>();
  if (str("error")) r.error = j["error"].get<std::string>();
  if (num("check_exit")) r.check_exit = j["check_exit"].get<int>();
  if (j.contains("warnings") && j["warnings"].is_array()) {
    for (const nlohmann::json& w : j["warnings"])
      if (w.is_string()) r.warnings.push_back(w.get<std::string>());
  }
  return r;
}

}  // namespace fsmove::scan
