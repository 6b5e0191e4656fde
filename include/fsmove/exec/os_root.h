// Pinned OS roots: the lower layer of the sandbox's overlay.
//
// `host` is this machine's own root file system (what the sandbox has always used). A named
// root (debian-12, debian-13) is a Debian system of priority important (what a Debian machine
// has: procps, iproute2, cron...) that mmdebstrap builds once, with puppet-agent, strace and
// systemd, and that is cached under the root cache directory (RootCacheDir()): every check on
// it starts from the same files, whatever happens to the host, and module code sees none of
// the host's files. Root builds with --mode=root; anyone else with --mode=unshare, whose files
// are owned on disk by the user's subordinate ids (OsRoot::id_base is the one of uid 0). A
// directory given by path is used as it is (a root built elsewhere, an unpacked image).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/diagnostic.h"
#include "fsmove/exec/user_namespace.h"
#include "nlohmann/json_fwd.hpp"

namespace fsmove::exec {

// A root fsmove knows how to build.
struct RootRecipe {
  std::string name;                   // debian-12
  std::string suite;                  // bookworm
  std::vector<std::string> packages;  // --include'd, beside priority important's
  std::string release;                // 12: as a module's operatingsystem_support names it
  // The Puppet its suite ships (puppet-agent's upstream version: a stable suite's updates keep
  // it), for --root auto before the root is built.
  std::string puppet;
};
const std::vector<RootRecipe>& KnownRoots();
const RootRecipe* FindRecipe(std::string_view name);
// "debian-12, debian-13": the known roots' names, for messages and help.
std::string KnownRootNames();

inline constexpr std::string_view kDefaultMirror = "http://deb.debian.org/debian";
inline constexpr std::string_view kHostRoot = "host";
// Where a pinned root's Puppet and strace are (Debian's packages).
inline constexpr const char* kRootPuppet = "/usr/bin/puppet";
inline constexpr const char* kRootRuby = "/usr/bin/ruby";  // its shebang's
inline constexpr const char* kRootStrace = "/usr/bin/strace";

// The format of a named root's metadata (RootCacheDir()/NAME.json) that this fsmove writes:
// 2 = priority important, with the installed packages ("installed") and "id_base"; 3 = with
// Puppet's core type modules. A root whose metadata has an older format (or none: minbase,
// before formats) is rebuilt.
inline constexpr int kRootFormat = 3;
// Where a Debian root's Puppet keeps the modules Debian packages (its basemodulepath's second
// directory; the core type modules of a pinned root): last on every modulepath fsmove gives
// Puppet, as Puppet's own packages put their vendored modules.
inline constexpr const char* kRootPuppetModules = "/usr/share/puppet/modules";

// Where built roots are kept: $FSMOVE_ROOT_CACHE if set, else /var/cache/fsmove/roots for root
// (euid 0), else $XDG_CACHE_HOME/fsmove/roots or $HOME/.cache/fsmove/roots.
std::string RootCacheDir();
// The same for the effective user id `euid` (RootCacheDir() passes geteuid()).
std::string RootCacheDirFor(uid_t euid);

// A root as a check uses it.
struct OsRoot {
  std::string name;            // "host", a known name, or the directory given
  std::string dir;             // "/" for the host
  std::string puppet_version;  // puppet-agent's (or puppet's) Debian package version; "" if unknown
  // The host uid that owns on disk what uid 0 owns inside the root: 0 for the host and roots
  // built by root, the first subordinate uid of the user for a root built with
  // mmdebstrap --mode=unshare. From the metadata's "id_base", else the owner of
  // DIR/usr/bin/puppet.
  uint32_t id_base = 0;
  size_t package_count = 0;  // installed packages (its dpkg status)
  // A named root built by an older fsmove (metadata format < kRootFormat: minbase, no package
  // list); ResolveRoot(build_missing) and BuildRoot rebuild it.
  bool outdated = false;
  bool host() const { return dir == "/"; }
};

// "name=version" of every package installed in a dpkg status file's text (Status ending in
// " installed"), sorted.
std::vector<std::string> InstalledPackages(std::string_view dpkg_status);

// A user's subordinate id range, as /etc/subuid or /etc/subgid lists it ("user:first:count").
using SubordinateIds = IdRange;
// The first range of `user` (by name, or by its uid) in the text of /etc/subuid or
// /etc/subgid: the one newuidmap and mmdebstrap use (user_namespace.h's parser, whatever its
// size). nullopt if it has none.
std::optional<SubordinateIds> FirstSubordinateIds(std::string_view subid_file,
                                                  std::string_view user, uid_t uid);
// What mmdebstrap --mode=unshare maps: inside uids 0..65535.
inline constexpr uint32_t kUnshareIds = kSandboxIdCount;

// The symbolic links directly in `root_dir` (name -> target, sorted by name): merged /usr's
// bin -> usr/bin and its kind, which the trace never shows being made. Unreadable: none.
std::vector<std::pair<std::string, std::string>> TopLevelSymlinks(const std::string& root_dir);

// The Debian version of the Puppet package installed in `root_dir` (from its dpkg status
// file: puppet-agent, else puppet), e.g. "7.23.0-1"; "" if there is none.
std::string PuppetPackageVersion(const std::string& root_dir);

// The version part of `puppet-agent`'s Debian version: "8.10.0-6" -> "8.10.0".
std::string UpstreamVersion(std::string_view debian_version);

struct RootBuildOptions {
  std::string mirror = std::string(kDefaultMirror);
  bool rebuild = false;  // build again even if the root is there
  // What building a root tells its user on the way (mmdebstrap's own output goes to stderr):
  // notes (the build starts, an outdated root is rebuilt) and a warning (the old root could
  // not be removed); unset: nowhere.
  base::DiagnosticSink say;
};

// "host", a known root's name, or a directory holding a root (it must hold /usr/bin/puppet
// and /usr/bin/strace). A known root that is not built yet is an error that says how to build
// it, unless `build_missing`: then it is built first with `build` (its mirror; its messages
// to build.say, mmdebstrap's progress on stderr), and an outdated one is rebuilt (without
// `build_missing` it is used as it is). build.rebuild is not read: a root that is there and
// up to date is used.
absl::StatusOr<OsRoot> ResolveRoot(const std::string& spec, bool build_missing,
                                   const RootBuildOptions& build = {});

// Builds (or, unless options.rebuild or it is outdated, reuses) the known root `name` with
// mmdebstrap, into RootCacheDir()/NAME, and writes its metadata (RootCacheDir()/NAME.json:
// format, suite, mirror, variant, mode, id_base, the installed packages...). Root builds with
// --mode=root; another user with --mode=unshare, which needs newuidmap (uidmap) and at least
// 65536 subordinate uids and gids (/etc/subuid, /etc/subgid): checked first. Built into a
// temporary directory and renamed into place, under a lock file, so concurrent checks and
// builds never see half a root.
absl::StatusOr<OsRoot> BuildRoot(const std::string& name, const RootBuildOptions& options);

// Removes a built root (as a user other than root, inside a user namespace that maps the
// user's subordinate ids: a root built with --mode=unshare is theirs). NotFound if it is not
// there.
absl::Status RemoveRoot(const std::string& name);

// The roots built in the cache, by name.
std::vector<OsRoot> BuiltRoots();

// Takes a shared lock on a named root for as long as the returned descriptor stays open, so
// that no `root build --rebuild` or `root remove` replaces it under a running check; -1 for
// the host or a directory given by path.
int LockRootShared(const OsRoot& root);

// The lock of the named root `name` (a file beside it in the cache), taken exclusively for as
// long as the returned descriptor stays open, once the checks that hold it shared are done:
// whoever builds, replaces or removes the root.
absl::StatusOr<base::UniqueFd> LockRootExclusive(const std::string& name);
// RootCacheDir()/NAME.json.
std::string RootMetadataPath(const std::string& name);
// Removes the tree `path` (as RemoveRoot does: inside a user namespace of the user's
// subordinate ids when not root).
absl::Status RemoveRootTree(const std::string& path);
// Puts the root made in `building` (a directory of the cache) into place as the named root
// `name`, with `meta` as its metadata: the metadata first, then the root renamed over the old
// one, which is removed (a warning to `say` when it cannot be). The caller holds the root's
// lock exclusively. On an error `building` is left for the caller to remove.
absl::Status InstallRoot(const std::string& name, const std::string& building,
                         const nlohmann::json& meta, const base::DiagnosticSink& say);

}  // namespace fsmove::exec
