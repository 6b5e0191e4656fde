// --root auto: the pinned OS root a module's metadata.json asks for. Its `requirements` (a
// `puppet` or `openvox` version range) and its `operatingsystem_support` (Debian's releases)
// are matched against what each known root has (os_root.h's recipes: the Debian release and
// the Puppet its suite ships). Of the roots that fit both, the preferred one (check's
// default, debian-12) is taken when it fits, else the first that does: code that supports
// only Puppet 8 or Debian 13 gets debian-13, code that supports only Puppet 7 gets debian-12.
// When none fits, the preferred root is taken with a warning that says what was asked.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

struct RootChoice {
  std::string name;     // a known root's name
  std::string why;      // "metadata.json asks for puppet >= 8.0.0 < 9.0.0; Debian 12, 13"
  std::string warning;  // when no root fits what metadata.json asks (checked on `name` anyway)
};

// `metadata` is the module's metadata.json text, empty when the target has none; `source`
// names it in messages. An error for a version range that does not parse (naming `source`).
absl::StatusOr<RootChoice> ChooseRoot(std::string_view metadata, std::string_view source,
                                      std::string_view preferred);

// The root for code that holds many modules (a control repo's modulepath): `modules` are each
// module's name (for messages) and metadata.json text. The preferred root when every module that
// asks for a Puppet version or a Debian release admits it, else the first root that every one
// admits; when none does, the one the most admit, with a warning naming the others and what
// they ask. Metadata that does not parse counts as asking nothing.
RootChoice ChooseRootForModules(const std::vector<std::pair<std::string, std::string>>& modules,
                                std::string_view what, std::string_view preferred);

}  // namespace fsmove::exec
