// --root auto; see root_choice.h.
#include "fsmove/exec/root_choice.h"

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/exec/version_range.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {

namespace {

// What metadata.json asks of the system it runs on.
struct Asked {
  std::vector<VersionRange> puppet;  // any of them (puppet, openvox); none: any Puppet
  bool os_listed = false;            // operatingsystem_support names an OS
  bool debian_listed = false;        // and Debian among them
  std::set<std::string> releases;    // its operatingsystemrelease; empty: any release
  std::vector<std::string> Words() const {
    std::vector<std::string> words;
    for (const VersionRange& r : puppet) words.push_back("puppet " + r.text());
    if (!releases.empty()) words.push_back("Debian " + absl::StrJoin(releases, ", "));
    return words;
  }
};

absl::StatusOr<Asked> ReadAsked(std::string_view metadata, std::string_view source) {
  Asked asked;
  if (metadata.empty()) return asked;
  const nlohmann::json j = nlohmann::json::parse(metadata, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(fmt::format("{}: not a JSON object", source));
  }
  if (auto reqs = j.find("requirements"); reqs != j.end() && reqs->is_array()) {
    for (const nlohmann::json& r : *reqs) {
      if (!r.is_object() || !r.contains("name") || !r["name"].is_string()) continue;
      const std::string name = absl::AsciiStrToLower(r["name"].get<std::string>());
      if (name != "puppet" && name != "openvox") continue;
      auto v = r.find("version_requirement");
      if (v == r.end() || !v->is_string()) continue;
      absl::StatusOr<VersionRange> range = VersionRange::Parse(v->get<std::string>());
      if (!range.ok()) {
        return absl::InvalidArgumentError(fmt::format("{}: requirements, {}: {}", source, name,
                                                      std::string(range.status().message())));
      }
      asked.puppet.push_back(*std::move(range));
    }
  }
  if (auto oss = j.find("operatingsystem_support"); oss != j.end() && oss->is_array()) {
    for (const nlohmann::json& o : *oss) {
      if (!o.is_object() || !o.contains("operatingsystem") || !o["operatingsystem"].is_string())
        continue;
      asked.os_listed = true;
      if (absl::AsciiStrToLower(o["operatingsystem"].get<std::string>()) != "debian") continue;
      asked.debian_listed = true;
      auto rel = o.find("operatingsystemrelease");
      if (rel == o.end() || !rel->is_array()) continue;
      for (const nlohmann::json& r : *rel) {
        if (r.is_string()) asked.releases.insert(r.get<std::string>());
      }
    }
  }
  return asked;
}

bool FitsPuppet(const Asked& asked, const RootRecipe& root) {
  if (asked.puppet.empty()) return true;
  absl::StatusOr<SemVer> v = ParseSemVer(root.puppet);
  return v.ok() && std::any_of(asked.puppet.begin(), asked.puppet.end(),
                               [&](const VersionRange& r) { return r.Contains(*v); });
}

bool FitsRelease(const Asked& asked, const RootRecipe& root) {
  return asked.releases.empty() || asked.releases.contains(root.release);
}

const RootRecipe* Pick(const std::vector<const RootRecipe*>& fit, std::string_view preferred) {
  for (const RootRecipe* r : fit) {
    if (r->name == preferred) return r;
  }
  return fit.empty() ? nullptr : fit.front();
}

}  // namespace

absl::StatusOr<RootChoice> ChooseRoot(std::string_view metadata, std::string_view source,
                                      std::string_view preferred) {
  absl::StatusOr<Asked> asked = ReadAsked(metadata, source);
  if (!asked.ok()) return asked.status();
  std::vector<const RootRecipe*> both, puppet_only;
  for (const RootRecipe& r : KnownRoots()) {
    if (!FitsPuppet(*asked, r)) continue;
    puppet_only.push_back(&r);
    if (FitsRelease(*asked, r)) both.push_back(&r);
  }
  const std::string words = absl::StrJoin(asked->Words(), "; ");
  RootChoice choice;
  if (const RootRecipe* r = Pick(both, preferred); r != nullptr) {
    choice.name = r->name;
    if (metadata.empty()) {
      choice.why = "the default (no metadata.json)";
    } else if (words.empty()) {
      choice.why =
          fmt::format("the default ({} names no Puppet version or Debian release)", source);
    } else {
      choice.why = fmt::format("{} asks for {}", source, words);
    }
    if (asked->os_listed && !asked->debian_listed) {
      choice.warning =
          fmt::format("{}'s operatingsystem_support does not name Debian: checked on {} anyway",
                      source, r->name);
    }
    return choice;
  }
  const RootRecipe* r = Pick(puppet_only, preferred);
  if (r == nullptr) r = FindRecipe(preferred);
  if (r == nullptr) r = &KnownRoots().front();
  std::vector<std::string> have;
  for (const RootRecipe& k : KnownRoots()) {
    have.push_back(fmt::format("{}: Debian {}, Puppet {}", k.name, k.release, k.puppet));
  }
  choice.name = r->name;
  choice.why = fmt::format("no pinned root is what {} asks for ({}): the closest", source, words);
  choice.warning = fmt::format(
      "{} asks for {}, which no pinned root is ({}): checked on {}, which may not be what the "
      "module supports (--root chooses another)",
      source, words, absl::StrJoin(have, "; "), r->name);
  return choice;
}

RootChoice ChooseRootForModules(const std::vector<std::pair<std::string, std::string>>& modules,
                                std::string_view what, std::string_view preferred) {
  std::vector<std::pair<std::string, Asked>> asking;
  for (const auto& [name, metadata] : modules) {
    absl::StatusOr<Asked> asked = ReadAsked(metadata, name);
    if (asked.ok() && !asked->Words().empty()) asking.emplace_back(name, *std::move(asked));
  }
  std::vector<const RootRecipe*> roots;
  if (const RootRecipe* p = FindRecipe(preferred); p != nullptr) roots.push_back(p);
  for (const RootRecipe& r : KnownRoots()) {
    if (r.name != preferred) roots.push_back(&r);
  }
  RootChoice choice;
  if (asking.empty()) {
    choice.name = roots.front()->name;
    choice.why = fmt::format("the default ({} ask for no Puppet version or Debian release)", what);
    return choice;
  }
  const RootRecipe* best = nullptr;
  std::vector<std::string> best_misfits;
  for (const RootRecipe* r : roots) {
    std::vector<std::string> misfits;
    for (const auto& [name, asked] : asking) {
      // Only what the root is not: a module for Puppet 7 whose metadata lists Debian 10 and 11
      // misses debian-12 by its release alone.
      std::vector<std::string> unmet;
      if (!FitsPuppet(asked, *r)) {
        for (const VersionRange& v : asked.puppet) unmet.push_back("puppet " + v.text());
      }
      if (!FitsRelease(asked, *r)) {
        unmet.push_back("Debian " + absl::StrJoin(asked.releases, ", "));
      }
      if (!unmet.empty()) {
        misfits.push_back(fmt::format("{} asks for {}", name, absl::StrJoin(unmet, "; ")));
      }
    }
    if (best == nullptr || misfits.size() < best_misfits.size()) {
      best = r;
      best_misfits = std::move(misfits);
    }
    if (best_misfits.empty()) break;
  }
  choice.name = best->name;
  if (best_misfits.empty()) {
    choice.why =
        fmt::format("every one of {} that asks admits it ({} of them)", what, asking.size());
    return choice;
  }
  choice.why = fmt::format("no pinned root is what all of {} ask for: {} of {} admit {}", what,
                           asking.size() - best_misfits.size(), asking.size(), best->name);
  const size_t shown = std::min<size_t>(best_misfits.size(), 5);
  choice.warning = fmt::format(
      "{} of {} ask for what {} is not: {}{}; checked on it anyway, as no pinned root admits "
      "more of them (--root names another)",
      best_misfits.size(), what, best->name,
      absl::StrJoin(best_misfits.begin(), best_misfits.begin() + shown, ", "),
      best_misfits.size() > shown ? ", ..." : "");
  return choice;
}

}  // namespace fsmove::exec
