// What `fsmove check TARGET` applies: a module directory (`include <module>`), a manifest
// file, Puppet code given with -e, or a control repo (an environment: control_repo.h); and the
// modulepath Puppet compiles it with.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/exec/fixture_repositories.h"
#include "fsmove/exec/module_sources.h"

namespace fsmove::exec {

struct TargetRequest {
  std::string path;                     // module directory or .pp file (empty with -e)
  std::string code;                     // -e 'puppet code'
  std::vector<std::string> modulepath;  // --modulepath DIR, in order
  // --with-module DIR: a module directory the manifest or code uses, on the modulepath as for
  // a module target (a scan's acceptance-spec manifest lives outside its module).
  std::string with_module;
  // --module-source DIR: directories of modules the dependencies no modulepath directory has
  // are taken from (module_sources.h), then `debian_modules` ("": not looked in).
  std::vector<std::string> module_sources;
  std::string debian_modules = kDebianModulesDir;
  // A control repo: --class NAME, the class to include instead of its manifest (site.pp).
  std::string include_class;
};

struct ResolvedTarget {
  enum class Kind { kModule, kManifest, kCode, kEnvironment };
  Kind kind = Kind::kManifest;
  std::string display;  // for reports: the module directory, the manifest, or "-e"
  // kModule, and kManifest of a module's examples/ or tests/: from metadata.json's "name",
  // else the directory
  std::string module_name;
  std::string module_dir;  // the same: absolute
  // The module's metadata.json (read beneath module_dir) and where it is; empty when it has
  // none (--root auto reads its requirements).
  std::string metadata_text;
  std::string metadata_path;
  // kModule and kCode: the manifest text to write into the work directory; kManifest: empty.
  std::string manifest_text;
  std::string manifest_path;  // kManifest: absolute path of the .pp file
  // kModule whose directory is not named after the module (a Forge checkout such as
  // `puppetlabs-ntp/`): Puppet only finds modules by directory name, so the executor links
  // <work dir>/modules/<module_name> to module_dir and puts that directory first.
  bool link_module = false;
  std::vector<std::string> modulepath;  // absolute directories, in Puppet's search order
  // metadata.json's dependency names, then the modules .fixtures.yml names
  std::vector<std::string> dependencies;
  // metadata.json's version_requirement of each dependency that has one (full name, range).
  std::vector<std::pair<std::string, std::string>> dependency_ranges;
  // Those found in no directory of the modulepath (by their short name) nor in a module
  // source: for hints.
  std::vector<std::string> missing_dependencies;
  // Dependencies taken from a module source (module_sources.h), with theirs: short name and
  // directory, linked into the work directory's modules/ on the modulepath; and what each is
  // ("puppetlabs-stdlib 9.4.1 from /usr/share/puppet/modules"), for the run's notes.
  std::vector<std::pair<std::string, std::string>> dependency_links;
  std::vector<std::string> resolved_dependencies;
  // .fixtures.yml's git repositories (fixture_repositories.h), fetched for the dependencies no
  // modulepath directory has, before the module sources; and what could not be, for notes.
  std::vector<FixtureRepository> fixture_repositories;
  std::vector<std::string> dependency_notes;
  std::vector<std::string> input_paths;  // host paths Puppet reads (made visible in a sandbox)
  // Where a sandbox shows input_paths[i] when not at that path ("": there). A module that is
  // a symlink in a modulepath directory (Debian's /usr/share/puppet/modules/concat, through
  // /etc/alternatives) is the directory its link resolves to, shown at the link's path: the
  // link itself would lead out of what the sandbox shows.
  std::vector<std::string> input_at;
  // Every modulepath directory: a sandbox shows each as a read-only directory of its own with
  // only the modules bound in it (input_paths), never the directory itself: of a
  // --modulepath directory each module (a directory with a module's name holding
  // metadata.json, manifests/, lib/puppet/, functions/, types/, files/ or templates/, or a link
  // to one); of a module's own parent, the module and the modules it declares it needs
  // (metadata.json's dependencies, .fixtures.yml's modules, and theirs).
  std::vector<std::string> linked_module_dirs;
  // Modules beside the checked one that it does not declare, so not shown: for the hint when
  // Puppet does not find one.
  std::vector<std::string> unshown_modules;
  // kEnvironment: the control repo (absolute), the modulepath of its environment.conf
  // (absolute directories, its deployed modules for `modules`, and "$basemodulepath" as
  // written), its manifest (absolute; with --class, manifest_text instead), and where its
  // Puppetfile's modules were deployed ("": it has none).
  std::string environment_dir;
  std::vector<std::string> environment_modulepath;
  std::string environment_manifest;
  std::string deployed_modules;
};

// Checks the target and builds the request Puppet gets. Errors name the path and say what
// was expected; nothing here runs Puppet. A symbolic link in a directory shown to the sandbox
// that leads out of everything shown (its module, the other modules) is refused, named
// relative to its module.
absl::StatusOr<ResolvedTarget> ResolveTarget(const TargetRequest& request);

// The module names .fixtures.yml lists under repositories:, forge_modules: and symlinks:,
// sorted and without repeats.
std::vector<std::string> FixtureModuleNames(std::string_view yaml);

// The dependencies ("puppetlabs/stdlib", "puppetlabs-stdlib" or "stdlib") whose short name is
// a directory in no modulepath entry; `self` (the module's own name) never counts.
std::vector<std::string> MissingModules(const std::vector<std::string>& dependencies,
                                        const std::vector<std::string>& modulepath,
                                        std::string_view self);

// Opens `path`, an input fsmove resolved (absolute, canonical), O_PATH with no symbolic link
// followed anywhere in it: a directory swapped for a link after it was resolved is refused,
// not followed (the caller owns the descriptor).
absl::StatusOr<int> OpenResolvedInput(const std::string& path);

// Whether the directory `dir_fd` (O_PATH will do) looks like a Puppet module: metadata.json,
// manifests/, lib/puppet/, functions/, types/, files/ or templates/ in it (a module of files
// alone, as a site module of keys, is one for Puppet).
bool LooksLikeModule(int dir_fd);

// A module's short name: "puppetlabs-ntp", "puppetlabs/ntp" -> "ntp"; a bare "ntp" stays.
std::string ShortModuleName(std::string_view full);

// Puppet's module-name rule: a lower-case letter, then lower-case letters, digits, '_'.
bool IsValidModuleName(std::string_view name);

// Puppet's class-name rule: module-name segments joined by "::" (role::web; no leading "::").
bool IsValidClassName(std::string_view name);

// Where the symbolic link `link` leads, when every link on the way is owned by root (Debian's
// /usr/share/puppet/modules, through /etc/alternatives); an error naming `given` otherwise.
absl::StatusOr<std::filesystem::path> ResolveRootOwnedLink(const std::filesystem::path& link,
                                                           const std::string& given);

}  // namespace fsmove::exec
