// Planning the removal of a catalog's preinstalled packages; see preinstalled_packages.h.
#include "fsmove/exec/preinstalled_packages.h"

#include <algorithm>
#include <map>

#include "fsmove/base/blanks.h"
#include "fsmove/base/split.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace {

// What the sandbox runs Puppet, strace and the init system with, and what apt needs to install
// the packages again: never removed, whatever the catalog says of them.
constexpr std::string_view kProtectedPackages[] = {"apt",
                                                   "ca-certificates",
                                                   "debian-archive-keyring",
                                                   "dpkg",
                                                   "facter",
                                                   "gpgv",
                                                   "hiera",
                                                   "init",
                                                   "libc6",
                                                   "libpam-systemd",
                                                   "libsystemd0",
                                                   "puppet",
                                                   "puppet-agent",
                                                   "ruby",
                                                   "strace",
                                                   "systemd",
                                                   "systemd-sysv",
                                                   "dbus",
                                                   "libruby",
                                                   "usrmerge"};

bool IsProtected(const std::string& name) {
  if (name.starts_with("ruby") || name.starts_with("libruby")) return true;
  return std::find(std::begin(kProtectedPackages), std::end(kProtectedPackages), name) !=
         std::end(kProtectedPackages);
}

// "libfoo1:amd64 (>= 1.2)" -> "libfoo1".
std::string BareName(std::string_view relation) {
  relation = base::TrimBlanks(relation);
  relation = relation.substr(0, std::min(relation.find_first_of(" (:["), relation.size()));
  return std::string(relation);
}

// "a (>= 1) | b, c" -> {{a, b}, {c}}.
void AddRelations(std::string_view field, std::vector<std::vector<std::string>>* out) {
  if (base::TrimBlanks(field).empty()) return;
  for (std::string_view group : base::Split(field, ',')) {
    std::vector<std::string> alternatives;
    for (std::string_view alternative : base::Split(group, '|')) {
      std::string name = BareName(alternative);
      if (!name.empty()) alternatives.push_back(std::move(name));
    }
    if (!alternatives.empty()) out->push_back(std::move(alternatives));
  }
}

bool InstallsIt(const nlohmann::json& parameters) {
  auto text = [&](const char* key) -> std::string {
    auto it = parameters.find(key);
    return it != parameters.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string provider = text("provider");
  if (!provider.empty() && provider != "apt" && provider != "aptitude") return false;
  if (parameters.contains("source")) return false;
  if (!parameters.contains("ensure")) return true;  // Puppet's default: present
  const std::string ensure = text("ensure");
  if (ensure == "present" || ensure == "installed" || ensure == "latest") return true;
  // A version: it starts with a digit (Debian versions do, after an optional epoch).
  return !ensure.empty() && std::isdigit(static_cast<unsigned char>(ensure.front())) != 0;
}

}  // namespace

bool IsDebianPackageName(std::string_view name) {
  if (name.size() < 2) return false;
  if (!std::isalnum(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
  });
}

absl::StatusOr<std::vector<std::string>> CatalogInstalls(std::string_view catalog_json) {
  nlohmann::json catalog = nlohmann::json::parse(catalog_json, nullptr, /*allow_exceptions=*/false);
  if (!catalog.is_object() || !catalog.contains("resources") || !catalog["resources"].is_array()) {
    return absl::InvalidArgumentError("not a catalog: no resources array");
  }
  std::set<std::string> names;
  for (const nlohmann::json& r : catalog["resources"]) {
    if (!r.is_object() || r.value("type", "") != "Package") continue;
    const nlohmann::json parameters = r.value("parameters", nlohmann::json::object());
    if (!parameters.is_object() || !InstallsIt(parameters)) continue;
    std::string name = parameters.contains("name") && parameters["name"].is_string()
                           ? parameters["name"].get<std::string>()
                           : r.value("title", "");
    name = name.substr(0, name.find(':'));
    if (IsDebianPackageName(name)) names.insert(std::move(name));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

std::vector<InstalledPackage> ParseDpkgQuery(std::string_view text) {
  std::vector<InstalledPackage> out;
  for (std::string_view line : base::Split(text, '\n')) {
    std::vector<std::string_view> f = base::Split(line, '\t');
    if (f.size() != 7 || !base::TrimBlanks(f[0]).starts_with("ii")) continue;
    InstalledPackage p;
    p.name = std::string(base::TrimBlanks(f[1]));
    if (!IsDebianPackageName(p.name)) continue;
    p.priority = std::string(base::TrimBlanks(f[2]));
    p.essential = base::TrimBlanks(f[3]) == "yes";
    AddRelations(f[4], &p.depends);
    AddRelations(f[5], &p.depends);
    std::vector<std::vector<std::string>> provides;
    AddRelations(f[6], &provides);
    for (auto& group : provides) p.provides.push_back(std::move(group.front()));
    out.push_back(std::move(p));
  }
  return out;
}

RemovalPlan PlanRemoval(const std::vector<std::string>& catalog_installs,
                        const std::vector<InstalledPackage>& installed) {
  std::map<std::string, const InstalledPackage*> by_name;
  std::map<std::string, std::vector<std::string>> providers;  // virtual or real name -> packages
  for (const InstalledPackage& p : installed) {
    by_name[p.name] = &p;
    providers[p.name].push_back(p.name);
    for (const std::string& v : p.provides) providers[v].push_back(p.name);
  }
  auto removable = [&](const InstalledPackage& p) {
    return !p.essential && p.priority != "required" && !IsProtected(p.name);
  };
  RemovalPlan plan;
  std::set<std::string> remove;
  for (const std::string& name : catalog_installs) {
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    const InstalledPackage& p = *it->second;
    if (p.essential) {
      plan.kept.push_back(name + ": essential");
    } else if (p.priority == "required") {
      plan.kept.push_back(name + ": priority required");
    } else if (IsProtected(name)) {
      plan.kept.push_back(name + ": the sandbox needs it");
    } else {
      remove.insert(name);
    }
  }
  // A dependency goes too when no package that stays depends on anything it alone satisfies:
  // repeated until nothing more goes (a dependency's own dependencies).
  for (bool grew = !remove.empty(); grew;) {
    grew = false;
    std::set<std::string> needed;  // what the packages that stay need, by name
    for (const InstalledPackage& p : installed) {
      if (remove.contains(p.name)) continue;
      for (const auto& group : p.depends) {
        for (const std::string& alternative : group) {
          for (const std::string& q : providers[alternative]) needed.insert(q);
        }
      }
    }
    for (const InstalledPackage& p : installed) {
      if (remove.contains(p.name) || needed.contains(p.name) || !removable(p)) continue;
      bool depended_on = false;
      for (const std::string& r : remove) {
        for (const auto& group : by_name[r]->depends) {
          for (const std::string& alternative : group) {
            const auto& q = providers[alternative];
            depended_on |= std::find(q.begin(), q.end(), p.name) != q.end();
          }
        }
      }
      if (depended_on) {
        remove.insert(p.name);
        grew = true;
      }
    }
  }
  plan.remove.assign(remove.begin(), remove.end());
  return plan;
}

std::set<std::string> SimulatedRemovals(std::string_view apt_output) {
  std::set<std::string> out;
  for (std::string_view line : base::Split(apt_output, '\n')) {
    for (std::string_view verb : {"Purg ", "Remv "}) {
      if (!line.starts_with(verb)) continue;
      std::string name = BareName(line.substr(verb.size()));
      if (!name.empty()) out.insert(std::move(name));
    }
  }
  return out;
}

}  // namespace fsmove::exec
