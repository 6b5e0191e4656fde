// Serving `puppet:///modules/...` file sources from the modulepath, as `puppet apply` does.
// A catalog applied with `puppet apply --catalog FILE` gets a remote environment without a
// modulepath, so Puppet cannot serve those sources and every File (and concat fragment, ...)
// that uses one fails, with everything that depends on it skipped. The executor applies a
// copy of the compiled catalog whose such sources name the module's file directly: the very
// file Puppet's `modules` mount would serve (MODULE/files/PATH in the first modulepath entry
// that has it).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

struct LocalizedSources {
  std::string catalog_json;             // the catalog to apply
  size_t rewritten = 0;                 // sources now naming a local file
  std::vector<std::string> unresolved;  // puppet:/// sources no modulepath entry has
};

// `exists(path)` says whether a path (as the applying Puppet sees it) exists. Only the
// `source` parameter of each resource is rewritten (a string or an array of them); the
// catalog is otherwise unchanged. An error only if the text is not a JSON object.
absl::StatusOr<LocalizedSources> LocalizePuppetSources(
    std::string_view catalog_json, const std::vector<std::string>& modulepath,
    const std::function<bool(const std::string&)>& exists);

// The file a `puppet://[server]/modules/MODULE/PATH` URI names in the modulepath, or "" if
// the URI is not of that form or no entry has the file.
std::string LocalModuleFile(std::string_view uri, const std::vector<std::string>& modulepath,
                            const std::function<bool(const std::string&)>& exists);

}  // namespace fsmove::exec
