// A control repo: the directory of a Puppet environment as r10k deploys it, and what Puppet
// teams gate in CI. It holds an `environment.conf` (its modulepath, e.g. `site:modules:
// $basemodulepath`, and its manifest), a `Puppetfile` (the modules r10k deploys into
// `modules/`), Hiera 5 data (`hiera.yaml`, `data/`) and `manifests/site.pp`. fsmove checks it as
// Puppet compiles an environment: the sandbox gets an environment of that name whose
// environment.conf fsmove writes from the repo's (the modulepath made absolute, the deployed
// modules in place of `modules`, no config_version script), with the repo's own files beside.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

// environment.conf's settings fsmove uses, as written.
struct EnvironmentConf {
  std::vector<std::string> modulepath = {"modules", "$basemodulepath"};  // Puppet's default
  std::string manifest = "manifests";
};

// Parses environment.conf (an INI file of `key = value` lines, `#` and `;` comments, and a
// `[main]` section at most). `name` names the file in errors, with the line: a line that is no
// setting, a setting fsmove does not know is skipped (Puppet warns of it), and a modulepath
// entry that leads out of the repo (an absolute path, `..`) is refused, since the sandbox shows
// the repo alone.
absl::StatusOr<EnvironmentConf> ParseEnvironmentConf(std::string_view text, std::string_view name);

// The environment.conf of the control repo `repo`, read beneath it (never through a link) and
// parsed; Puppet's default settings when the repo has none.
absl::StatusOr<EnvironmentConf> ReadEnvironmentConf(const std::filesystem::path& repo);

// A Puppetfile's modules. r10k evaluates a Puppetfile as Ruby, so fsmove hands it only a
// Puppetfile of the declarative statements r10k documents, each checked here: `forge URL`,
// `moduledir 'DIR'` and `mod 'NAME'[, 'VERSION' | :latest][, KEY => VALUE ...]` (also
// `KEY: VALUE`), with string, symbol, true/false values and `#` comments, a statement going on
// while a line ends in a comma. Anything else (a method call, interpolation, a constant) is
// refused with the file and line: it could run code on this machine.
struct PuppetfileModule {
  std::string name;           // "puppetlabs/stdlib", "puppetlabs-stdlib" or "motd"
  std::string version;        // a Forge module's version ("" latest or none)
  std::string git;            // :git's URL ("" a Forge module)
  std::string local;          // :git when it names this machine's files: the path
  int line = 0;               // of its `mod`
  int end_line = 0;           // the statement's last line
  bool pinned = false;        // a git module at a :tag or :commit (a branch or :ref may move)
  bool install_path = false;  // :install_path given
};
struct Puppetfile {
  std::vector<PuppetfileModule> modules;
};
absl::StatusOr<Puppetfile> ParsePuppetfile(std::string_view text, std::string_view name);

// Whether `dir` is a control repo: an environment.conf in it, or a Puppetfile without a
// module's manifests/init.pp; never with a metadata.json (a module).
bool LooksLikeControlRepo(const std::filesystem::path& dir);

// The Puppetfile of `repo` deployed by r10k (`r10k puppetfile install`) into a directory of
// `cache_root` named by the SHA-256 of the Puppetfile's text (first deployed into a fresh
// directory, renamed into place): reused as it is while every module is pinned (a Forge
// version, a git :tag or :commit), synced again by r10k when one names a branch.
// Returns that modules directory. Errors name the Puppetfile and say what r10k printed: a
// Puppetfile that does not parse, a module it could not fetch (with how to give it locally).
// A module from this machine's files (`:git => 'file:///...'` or a path) must be in the repo
// or in one of `local_sources` (--module-source): module code would see anything else it
// names (a private repository of whoever runs fsmove).
absl::StatusOr<std::string> DeployPuppetfile(const std::filesystem::path& repo,
                                             const std::string& cache_root,
                                             const std::vector<std::string>& local_sources);

// Where deployed Puppetfiles are kept: $FSMOVE_PUPPETFILE_CACHE when set (absolute), else
// /var/cache/fsmove/puppetfile as root, else $XDG_CACHE_HOME/fsmove/puppetfile
// (~/.cache/fsmove/puppetfile).
std::string PuppetfileCacheRoot();

}  // namespace fsmove::exec
