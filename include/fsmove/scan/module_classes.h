// The classes a module declares, read from its manifests: whether it has a class of its own
// name to include, and which of its other classes a user can include as they are (public,
// every parameter with a default). A scan runs those when the module's own include cannot.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::scan {

struct ClassDeclaration {
  std::string name;  // as declared, without a leading "::"
  int line = 0;      // of the `class` keyword
  // Parameters declared without a default value: an `include` of the class fails on them.
  std::vector<std::string> required;
  // Not for users: the body calls assert_private(), or the comment above it says
  // `@api private`.
  bool is_private = false;
};

// The classes a manifest's text declares (`class NAME (...) inherits X {`), in order; an
// error when the text does not tokenize (an unterminated string, unbalanced brackets).
absl::StatusOr<std::vector<ClassDeclaration>> DeclaredClasses(std::string text);

// The name Puppet knows a module directory by, as `fsmove check` names it: metadata.json's
// "name" after its author ("puppetlabs-ntp" -> "ntp"), else the directory's base name after
// its author ("saz-rsyslog" -> "rsyslog").
std::string ModuleName(const std::string& module_dir);

// The class of the module's own name that manifests/init.pp declares, or why there is none
// to include (no init.pp, a define rather than a class). An init.pp that does not tokenize
// (an unterminated string) counts as found: its include run lets Puppet say what is wrong.
struct IncludeClass {
  bool found = false;
  ClassDeclaration declaration;  // when found
  std::string why_not;           // when not
};
IncludeClass ModuleIncludeClass(const std::string& module_dir);

// A module's classes a user may `include` as they are: declared in manifests/**.pp but not in
// init.pp, public (not private as above, not a `params` class), with no required parameter.
// The shallowest first (`m::server` before `m::server::config`), then by name; at most
// `max_classes`.
std::vector<std::string> IncludableClasses(const std::string& module_dir, size_t max_classes);

}  // namespace fsmove::scan
