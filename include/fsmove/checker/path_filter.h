// Which paths the checker ignores: Puppet's own state, virtual file systems and caches every
// resource touches and none orders (documented defaults, overridable), plus user globs.
// Also knows the package manager's state, where Package-Package conflicts do not matter.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/checker/knowledge.h"
#include "re2/re2.h"

namespace fsmove::checker {

// The defaults, each with the reason it is safe to ignore (shown by --help and docs/analyze.md).
struct DefaultIgnore {
  std::string_view glob;
  std::string_view reason;
};
const std::vector<DefaultIgnore>& DefaultIgnores();

// Shell-like globs on absolute paths: `*` and `?` stay within one path component, `**`
// crosses components, and a trailing `/**` also matches the directory itself.
absl::StatusOr<std::string> GlobToRegex(std::string_view glob);

class PathFilter {
 public:
  static absl::StatusOr<PathFilter> Create(const std::vector<std::string>& globs,
                                           bool with_defaults);
  bool Ignored(std::string_view path) const;
  // dpkg/apt databases, caches and logs, the user databases package scripts rewrite, and
  // the enablement links: the row that says so (enablement_links.tsv, then
  // package_manager_state.tsv), or null.
  static const knowledge::Row* IsPackageManagerState(std::string_view path);
  // The init system's enablement links: /etc/rc[0-6S].d/[SK]NNname (update-rc.d, Puppet's
  // debian service provider) and /etc/systemd/system/UNIT.wants|.requires/ (systemctl enable,
  // deb-systemd-helper). Each is the boot order of its own service; what lists them (insserv,
  // update-rc.d, a provider's `enabled?`, the sysv generator) is the init system's bookkeeping.
  // The row of enablement_links.tsv that says so, or null.
  static const knowledge::Row* IsEnablementLink(std::string_view path);

 private:
  // What every path a glob matches starts and ends with: its literal text before the first
  // wildcard and after the last (without a '/' next to the wildcard, which "dir/**" and "**/"
  // may leave out). A path none of them fits is not ignored, without RE2's match (about
  // 1,500 instructions a path; the check asks once for each path of the trace).
  struct Bounds {
    std::string prefix;
    std::string suffix;
  };
  static Bounds BoundsOf(std::string_view glob);

  std::unique_ptr<RE2> ignored_;  // one alternation of every glob; null when none
  std::vector<Bounds> bounds_;    // one per glob
};

}  // namespace fsmove::checker
