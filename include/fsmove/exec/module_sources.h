// Where a module's dependencies come from when no modulepath directory has them: the
// directories given with --module-source (each holding module directories, as a Forge
// checkout or `puppet module install --target-dir` leaves them) and Debian's installed
// puppet-module-* packages (/usr/share/puppet/modules). A dependency is the highest version
// there that its dependent's metadata.json range (version_requirement) admits; --modulepath
// and the module's own parent directory come first, as before.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

// Debian's puppet-module-* packages install their modules here (a link each, through
// /etc/alternatives).
inline constexpr const char* kDebianModulesDir = "/usr/share/puppet/modules";

struct SourceModule {
  std::string name;  // metadata.json's "author-name" (lower-case), else the directory's
  std::string short_name;
  std::string version;   // metadata.json's; empty when it has none
  std::string dir;       // the module's directory, links resolved
  std::string source;    // the directory it was found in
  std::string metadata;  // its metadata.json's text ("" when it has none)
};

// The modules of `sources`, in order (a directory that does not exist holds none); a module
// directory has a valid module name and looks like one (target.h's LooksLikeModule). A link is
// followed only when root owns every link on the way (ResolveRootOwnedLink: Debian's
// packages); another's link is passed over, since module code would see where it leads.
std::vector<SourceModule> ListSourceModules(const std::vector<std::string>& sources);

// The one of `available` named `name` ("author-name", "author/name" or a short name) of the
// highest version that `range` admits (empty: any; a module of no version only then). Null
// when none has that name; an error, naming `wanted_by` and what there is, when some do and
// none fits the range, or the range does not parse.
absl::StatusOr<const SourceModule*> PickSourceModule(const std::vector<SourceModule>& available,
                                                     std::string_view name, std::string_view range,
                                                     std::string_view wanted_by);

}  // namespace fsmove::exec
