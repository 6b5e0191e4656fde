// `fsmove merge DIR... -o OUT`: joins the results folders of a sharded scan into one, with one
// summary, and says which modules were duplicated, conflicting or missing.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "commands.h"
#include "fmt/format.h"
#include "fsmove/scan/merge.h"
#include "fsmove/scan/module_list.h"
#include "fsmove/scan/results_dir.h"
#include "fsmove/scan/scan_report.h"

namespace fsmove::cli {
namespace {

namespace fs = std::filesystem;

struct MergeCliOptions {
  std::vector<std::string> inputs;
  std::string out;
};

// Hard links when the folders share a file system (traces can be large), copies otherwise.
// Symbolic links are skipped: a results folder never holds one, and following it would copy
// whatever file it names (a shard from elsewhere could point at /etc/shadow).
bool CopyFolder(const fs::path& from, const fs::path& to) {
  constexpr auto kOptions = fs::copy_options::recursive | fs::copy_options::skip_symlinks;
  std::error_code ec;
  fs::remove_all(to, ec);
  fs::copy(from, to, kOptions | fs::copy_options::create_hard_links, ec);
  if (!ec) return true;
  fs::remove_all(to, ec);
  fs::copy(from, to, kOptions, ec);
  return !ec;
}

int RunMergeCommand(const MergeCliOptions& o) {
  std::error_code ec;
  std::vector<scan::MergeInput> inputs;
  for (const auto& dir : o.inputs) {
    if (fs::exists(o.out, ec) && fs::equivalent(dir, o.out, ec)) {
      Say({check::Error(absl::StrCat("the output ", o.out, " is also an input"))});
      return kExitError;
    }
    auto contents = scan::ReadResultsDir(dir);
    if (!contents.ok()) {
      return Fail(contents.status());
    }
    scan::MergeInput in{dir, std::move(*contents), std::nullopt};
    if (auto m = scan::ReadScanManifest(dir); m.ok()) in.manifest = std::move(*m);
    inputs.push_back(std::move(in));
  }
  scan::MergePlan plan = scan::PlanMerge(inputs);
  fs::create_directories(o.out, ec);
  if (ec) {
    Say({check::Error(absl::StrCat("cannot create ", o.out, ": ", ec.message()))});
    return kExitError;
  }
  for (const auto& s : plan.sources) {
    if (!CopyFolder(fs::path(s.input_dir) / s.folder, fs::path(o.out) / s.folder)) {
      Say({check::Error(absl::StrCat("cannot copy ", s.input_dir, "/", s.folder, " to ", o.out))});
      return kExitError;
    }
  }
  if (auto st = scan::WriteSummary(o.out, plan.results); !st.ok()) {
    return Fail(st);
  }
  if (auto st = scan::WriteScanReport(o.out, plan.results); !st.ok()) {
    return Fail(st);
  }
  // A complete merge is a whole scan: its scan.json lets `fsmove scan` resume into it.
  bool complete = plan.conflicts.empty() && plan.problems.empty() && !inputs.empty() &&
                  std::all_of(inputs.begin(), inputs.end(),
                              [](const auto& in) { return in.manifest.has_value(); });
  if (complete) {
    std::vector<std::string> all;
    for (const auto& in : inputs)
      all.insert(all.end(), in.manifest->modules.begin(), in.manifest->modules.end());
    all = scan::CanonicalModuleList(std::move(all));
    scan::ScanManifest m{scan::Shard{}, scan::ModuleListDigest(all), all.size(), all};
    if (auto st = scan::WriteScanManifest(o.out, m); !st.ok()) {
      return Fail(st);
    }
  } else {
    fs::remove(fs::path(o.out) / scan::kScanJson, ec);
  }
  for (const auto& d : plan.duplicates) Say({check::Warning(absl::StrCat("duplicate: ", d))});
  for (const auto& u : plan.unfinished) Say({check::Warning(std::string(u))});
  for (const auto& c : plan.conflicts) Say({check::Error(absl::StrCat("conflict: ", c))});
  for (const auto& p : plan.problems) Say({check::Error(std::string(p))});
  bool all_ok = true;
  for (const auto& r : plan.results) all_ok = all_ok && r.status == scan::ModuleStatus::kOk;
  std::cout << fmt::format("merged {} module{} from {} folder{} into {}\n", plan.results.size(),
                           plan.results.size() == 1 ? "" : "s", inputs.size(),
                           inputs.size() == 1 ? "" : "s", o.out);
  if (!plan.conflicts.empty() || !plan.problems.empty()) return kExitError;
  return all_ok ? kExitOk : kExitFindings;
}

}  // namespace

std::function<int()> RegisterMerge(CLI::App& app) {
  auto o = std::make_shared<MergeCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Join the results folders of `fsmove scan --shard` runs into one, with one summary");
  cmd->footer(R"(
Copies (hard-links where possible) every finished module folder into OUT and writes
OUT/summary.json, summary.csv and report.html (the merged scan in a browser). A module in several inputs is a duplicate when the results
agree (a warning; the first is kept) and a conflict otherwise. When every input has its
scan.json, the shards must come from the same module list, each once, each complete.
Exit status: 0 merged and every module ok; 1 merged, some module not ok; 2 conflicts,
missing or repeated shards, unfinished modules, or a usage error (OUT is still written).)");
  cmd->add_option("DIR", o->inputs, "results folders of `fsmove scan`")->required();
  cmd->add_option("-o,--output", o->out, "the merged results folder")->type_name("OUT")->required();
  return [o] { return RunMergeCommand(*o); };
}

}  // namespace fsmove::cli
