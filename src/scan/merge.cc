// `fsmove merge`: which input folder each module's result comes from, and every duplicate,
// conflict and gap between the shards.
#include "fsmove/scan/merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "fmt/format.h"

namespace fsmove::scan {

namespace {

std::string Describe(const ModuleResult& r) {
  return fmt::format("{} ({} MOR, {} MN)", ModuleStatusName(r.status), r.mor, r.mn);
}

}  // namespace

MergePlan PlanMerge(const std::vector<MergeInput>& inputs) {
  MergePlan plan;
  std::map<std::string, size_t> first;  // module -> input index
  std::map<std::string, ModuleResult> chosen;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const MergeInput& in = inputs[i];
    std::set<std::string> slice;
    if (in.manifest) slice.insert(in.manifest->modules.begin(), in.manifest->modules.end());
    for (const auto& [module, rec] : in.contents.modules) {
      // A folder reused across shards may hold others' modules: only its own slice counts.
      if (in.manifest && !slice.count(module)) continue;
      auto it = first.find(module);
      if (it == first.end()) {
        first[module] = i;
        chosen[module] = rec.result;
        plan.sources.push_back({module, in.dir, in.contents.dir_of.at(module)});
        continue;
      }
      const ModuleResult& a = chosen[module];
      const std::string& adir = inputs[it->second].dir;
      if (a.status == rec.result.status && a.mor == rec.result.mor && a.mn == rec.result.mn) {
        plan.duplicates.push_back(
            fmt::format("{} is in both {} and {} (same result: {}); the first is kept", module,
                        adir, in.dir, Describe(a)));
      } else {
        plan.conflicts.push_back(fmt::format("{}: {} says {}, {} says {}; the first is kept",
                                             module, adir, Describe(a), in.dir,
                                             Describe(rec.result)));
      }
    }
    for (const std::string& bad : in.contents.invalid) {
      plan.unfinished.push_back(
          fmt::format("{}/{} (not finished or corrupt; not merged)", in.dir, bad));
    }
  }
  // With every input's scan.json: the shards must be cut from one list, each exactly once,
  // and each must hold every module of its slice.
  bool all_manifests =
      !inputs.empty() && std::all_of(inputs.begin(), inputs.end(),
                                     [](const auto& in) { return in.manifest.has_value(); });
  if (all_manifests) {
    const ScanManifest& m0 = *inputs[0].manifest;
    std::map<int, std::vector<std::string>> by_index;
    for (const MergeInput& in : inputs) {
      const ScanManifest& m = *in.manifest;
      if (m.list_digest != m0.list_digest || m.shard.count != m0.shard.count) {
        plan.problems.push_back(fmt::format(
            "{} is shard {} of a list of {} modules, {} is shard {} of a different list of {} "
            "(shards must be cut from the same module list)",
            in.dir, m.shard.ToString(), m.list_size, inputs[0].dir, m0.shard.ToString(),
            m0.list_size));
        continue;
      }
      by_index[m.shard.index].push_back(in.dir);
      for (const std::string& module : m.modules) {
        if (!in.contents.modules.count(module)) {
          plan.problems.push_back(fmt::format("{}: module {} of shard {} has no finished result",
                                              in.dir, module, m.shard.ToString()));
        }
      }
    }
    for (const auto& [index, dirs] : by_index) {
      if (dirs.size() > 1) {
        std::string list;
        for (const auto& d : dirs) list += (list.empty() ? "" : ", ") + d;
        plan.problems.push_back(fmt::format("shard {}/{} was given {} times: {}", index,
                                            m0.shard.count, dirs.size(), list));
      }
    }
    for (int i = 1; i <= m0.shard.count; ++i) {
      if (!by_index.count(i)) {
        plan.problems.push_back(fmt::format("shard {}/{} is missing", i, m0.shard.count));
      }
    }
  }
  for (auto& [module, r] : chosen) plan.results.push_back(r);
  std::sort(plan.sources.begin(), plan.sources.end(),
            [](const auto& a, const auto& b) { return a.module < b.module; });
  return plan;
}

}  // namespace fsmove::scan
