// The git repositories a module's .fixtures.yml names (puppetlabs_spec_helper's
// `fixtures: repositories:`), the modules its tests are run with: fetched into a cache so that
// `fsmove check MODULE` finds them with no --modulepath, before --module-source directories
// and Debian's packages.
//
// The module is code under check, so what it makes fsmove fetch is bounded: public URLs only
// (https, http, git), with no credentials of whoever runs fsmove (no SSH, no credential
// helpers or ~/.gitconfig, no terminal prompt), a time limit, and a `file://` repository only
// inside the module or a --module-source directory (module code would see any other).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fsmove/exec/module_sources.h"

namespace fsmove::exec {

struct FixtureRepository {
  std::string name;  // the key: the module's directory name in the tests' fixtures
  std::string repo;  // its URL
  std::string ref;   // ref: or branch: ("": the default branch)
  int line = 0;      // of the entry in .fixtures.yml
  bool operator==(const FixtureRepository&) const = default;
};

// The `key: value` lines of a YAML file of .fixtures.yml's fixed shape, in order: the line's
// number and indentation, its key and value unquoted (a trailing comment removed). Comments,
// blank lines and lines with no key are skipped; a full YAML parser is not needed for this
// file, and what is not of its shape (anchors, flow maps) is never misread as an entry.
struct YamlKeyLine {
  int number = 0;
  int indent = 0;
  std::string_view key;
  std::string_view value;
};
std::vector<YamlKeyLine> YamlKeyLines(std::string_view yaml);

// The entries under fixtures: repositories: (`name: URL`, or `name:` with `repo:` and `ref:`
// or `branch:` below it), in order. As FixtureModuleNames, for the file's fixed shape: what
// is not that shape is skipped, never misread.
std::vector<FixtureRepository> FixtureRepositories(std::string_view yaml);

struct FetchedFixtures {
  std::vector<SourceModule> modules;  // each checkout as a module source (source: its URL)
  std::vector<std::string> notes;     // repositories skipped or not fetched, and why
};

// Each repository fetched (`git fetch --depth 1` of its ref) into `cache_root`, a directory
// per URL and ref, reused without fetching when its ref is a commit or a version tag and
// within one fsmove process otherwise; a repository that cannot be fetched now but was before
// is used as cached (said in a note). `module_dir` and `local_sources` are where a file://
// repository may be; `shown` names .fixtures.yml in notes.
FetchedFixtures FetchFixtureRepositories(const std::vector<FixtureRepository>& repositories,
                                         const std::string& module_dir,
                                         const std::vector<std::string>& local_sources,
                                         const std::string& cache_root, const std::string& shown);

// Where fetched fixtures are kept: beside the Puppetfile deployments (PuppetfileCacheRoot()),
// in their `fixtures` directory.
std::string FixturesCacheRoot();

}  // namespace fsmove::exec
