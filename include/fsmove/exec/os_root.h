// Pinned OS roots: the lower layer of the sandbox's overlay.
//
// `host` is this machine's own root file system (what the sandbox has always used). A named
// root (debian-12, debian-13) is a minbase Debian system that mmdebstrap builds once, with
// puppet-agent, strace and systemd, and that is cached under the root cache directory
// (/var/cache/fsmove/roots, or $FSMOVE_ROOT_CACHE): every check on it starts from the same
// files, whatever happens to the host, and module code sees none of the host's files. A
// directory given by path is used as it is (a root built elsewhere, an unpacked image).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

// A root fsmove knows how to build.
struct RootRecipe {
  std::string name;   // debian-12
  std::string suite;  // bookworm
  std::vector<std::string> packages;
};
const std::vector<RootRecipe>& KnownRoots();
const RootRecipe* FindRecipe(std::string_view name);
// "debian-12, debian-13": the known roots' names, for messages and help.
std::string KnownRootNames();

inline constexpr std::string_view kDefaultMirror = "http://deb.debian.org/debian";
inline constexpr std::string_view kHostRoot = "host";
// Where a pinned root's Puppet and strace are (Debian's packages).
inline constexpr const char* kRootPuppet = "/usr/bin/puppet";
inline constexpr const char* kRootStrace = "/usr/bin/strace";

// Where built roots are kept: $FSMOVE_ROOT_CACHE, else /var/cache/fsmove/roots.
std::string RootCacheDir();

// A root as a check uses it.
struct OsRoot {
  std::string name;            // "host", a known name, or the directory given
  std::string dir;             // "/" for the host
  std::string puppet_version;  // puppet-agent's (or puppet's) Debian package version; "" if unknown
  bool host() const { return dir == "/"; }
};

// The Debian version of the Puppet package installed in `root_dir` (from its dpkg status
// file: puppet-agent, else puppet), e.g. "7.23.0-1"; "" if there is none.
std::string PuppetPackageVersion(const std::string& root_dir);

// The version part of `puppet-agent`'s Debian version: "8.10.0-6" -> "8.10.0".
std::string UpstreamVersion(std::string_view debian_version);

// "host", a known root's name, or a directory holding a root (it must hold /usr/bin/puppet
// and /usr/bin/strace). A known root that is not built yet is an error that says how to build
// it, unless `build_missing`: then it is built first (its progress on stderr).
absl::StatusOr<OsRoot> ResolveRoot(const std::string& spec, bool build_missing,
                                   std::string_view mirror = kDefaultMirror);

struct RootBuildOptions {
  std::string mirror = std::string(kDefaultMirror);
  bool rebuild = false;  // build again even if the root is there
};

// Builds (or, unless options.rebuild, reuses) the known root `name` with mmdebstrap, into
// RootCacheDir()/NAME. Built into a temporary directory and renamed into place, under a lock
// file, so concurrent checks and builds never see half a root.
absl::StatusOr<OsRoot> BuildRoot(const std::string& name, const RootBuildOptions& options);

// Removes a built root. NotFound if it is not there.
absl::Status RemoveRoot(const std::string& name);

// The roots built in the cache, by name.
std::vector<OsRoot> BuiltRoots();

// Takes a shared lock on a named root for as long as the returned descriptor stays open, so
// that no `root build --rebuild` or `root remove` replaces it under a running check; -1 for
// the host or a directory given by path.
int LockRootShared(const OsRoot& root);

}  // namespace fsmove::exec
