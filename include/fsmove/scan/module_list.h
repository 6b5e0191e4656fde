// Which modules a batch scan covers: paths given on the command line, read from a list file
// or found in a directory of modules, normalised, de-duplicated and sorted.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::scan {

// A module's identity in a scan: the path as given, lexically normalised ("./a/b/" -> "a/b").
// Two spellings of one path are one module; the identity is what summaries and shards use.
std::string NormalizeModulePath(std::string_view path);

// The module paths of a list file: one per line, blank lines and `#` comments ignored,
// surrounding spaces trimmed. Relative paths are relative to the current directory.
absl::StatusOr<std::vector<std::string>> ReadModuleList(const std::string& list_file);

// Every subdirectory of `dir` that is a Puppet module (it has a manifests/ directory or a
// metadata.json), as `dir/NAME`.
absl::StatusOr<std::vector<std::string>> DiscoverModules(const std::string& dir);

// Normalises, sorts and removes duplicates: the order the modules were given in never matters.
std::vector<std::string> CanonicalModuleList(std::vector<std::string> modules);

// The name of a module's folder in the results directory: its base name made file-system safe
// ([A-Za-z0-9._-], others as '_') and an 8-hex-digit hash of its identity, so that two modules
// with the same base name (vendor/a/nginx, other/nginx) never share a folder.
std::string ModuleDirName(std::string_view module);

// The runs a scan makes of one module, as its users use it: `include <module>` (the module
// directory itself) when its manifests/init.pp declares the class of its name, and each
// manifest under examples/ (the Forge and PDK convention; tests/, its name before PDK, when
// there is no examples/), each its own run, in name order, then the literal manifests of its
// acceptance specs (at most kMaxAcceptanceRuns; acceptance_specs.h). When the module has no
// class of its name, or that class has parameters without defaults (so that `include` alone
// cannot compile), `include CLASS` of up to kMaxClassRuns of its public classes whose
// parameters all have defaults (module_classes.h), each named MODULE#CLASS. A module with none
// of these gets its include run, which the scan records as nothing-to-apply with the reason.
// A .pp path, or a MODULE#CLASS, is one run as it is (a list file may name a manifest or a
// class per module). A control repo (exec::LooksLikeControlRepo) is ControlRepoRuns.
inline constexpr size_t kMaxAcceptanceRuns = 4;
inline constexpr size_t kMaxClassRuns = 3;
std::vector<std::string> ExpandModuleRuns(const std::string& module);

// The runs a scan makes of a control repo, as onceover tests one: each role, REPO#role::NAME
// (`fsmove check REPO --class role::NAME`, with the repo's Hiera data and its Puppetfile's
// modules), for the classes of the first `role` module of the repo's own modulepath
// directories (environment.conf; `site/role` by convention) that a user can include as they
// are (module_classes.h), at most kMaxRoleRuns; a repo without roles is one run, the repo
// itself (its site.pp, as `fsmove check REPO` compiles it).
inline constexpr size_t kMaxRoleRuns = 40;
std::vector<std::string> ControlRepoRuns(const std::string& repo);

// Whether `run` is an `include CLASS` of a module's class: MODULE#CLASS.
bool IsClassRun(std::string_view run);
// The class of such a run ("" for any other run).
std::string_view ClassRunClass(std::string_view run);

// Where a run comes from: "include", "example" (MODULE/examples/X.pp, MODULE/tests/X.pp),
// "acceptance" (MODULE/spec/acceptance/X_spec.rb:LINE), "class" (MODULE#CLASS) or "manifest"
// (any other .pp).
std::string_view RunSource(std::string_view run);

// The module directory of a run: the run itself for an include, MODULE for an example, an
// acceptance spec's manifest or a class, "" for a manifest of no module.
std::string RunModule(std::string_view run);

// Why a module's include run has nothing to apply (no class of the module's name to include),
// with what else was looked for; empty when it has that class.
std::string NothingToApply(const std::string& module);

}  // namespace fsmove::scan
