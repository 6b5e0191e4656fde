// The packages a catalog installs that the OS root already has. A pinned root is a Debian of
// priority important (cron, logrotate, nftables, ...), so a Package resource for one of them
// finds it installed and does nothing: what the package ships is in the root before the apply,
// no block of the trace produces it, and an ordering on it (`Package[cron] ->
// File[/etc/crontab]`) can be neither needed nor missing. Before the traced apply, the sandbox's
// preparation (untraced) therefore removes them, with the dependencies that only they need
// (cron's cron-daemon-common, which ships /etc/crontab), after downloading them, so that
// Puppet installs them under the trace as on a machine that lacks them. This file plans what
// to remove from what dpkg and apt say; the supervisor runs the commands (supervisor_catalog.h).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

// The Debian packages the catalog's Package resources install (its `name`, else its title,
// without an architecture qualifier): provider apt, aptitude or none given, ensure present,
// installed, latest or a version. Package names only (Debian's syntax): anything else is left
// out. Sorted, unique. An error when the text is not a catalog.
absl::StatusOr<std::vector<std::string>> CatalogInstalls(std::string_view catalog_json);

// One installed package, as `dpkg-query -W -f=kDpkgQueryFormat` prints it.
struct InstalledPackage {
  std::string name;
  std::string priority;  // required, important, standard, optional, extra
  bool essential = false;
  // Depends and Pre-Depends, each an alternatives group of package names (versions and
  // architecture qualifiers dropped); Provides: the virtual names it satisfies.
  std::vector<std::vector<std::string>> depends;
  std::vector<std::string> provides;
};
inline constexpr const char* kDpkgQueryFormat =
    "${db:Status-Abbrev}\\t${Package}\\t${Priority}\\t${Essential}\\t${Pre-Depends}\\t"
    "${Depends}\\t${Provides}\\n";
// The installed packages (status "ii") of that output; lines of other shapes are skipped.
std::vector<InstalledPackage> ParseDpkgQuery(std::string_view text);

// What to remove: the catalog's packages the root has, but none essential, of priority required
// or that the sandbox needs (kProtectedPackages), and then every installed dependency no longer
// needed by a package that stays. `kept` says, for each catalog package the root has and that
// is not removed, why ("cron: priority required").
struct RemovalPlan {
  std::vector<std::string> remove;  // sorted
  std::vector<std::string> kept;
};
RemovalPlan PlanRemoval(const std::vector<std::string>& catalog_installs,
                        const std::vector<InstalledPackage>& installed);

// The packages `apt-get -s purge` would remove ("Purg NAME ..." and "Remv NAME ..." lines).
std::set<std::string> SimulatedRemovals(std::string_view apt_output);

// Whether a name is a Debian package name (lower case, digits, + - .; two characters at least;
// starting with a letter or digit): what may be passed to apt-get as an argument.
bool IsDebianPackageName(std::string_view name);

}  // namespace fsmove::exec
