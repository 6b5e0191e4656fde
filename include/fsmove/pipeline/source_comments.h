// The checked code's `# fsmove:ignore:RULE reason` comments (gating/source_suppressions.h),
// read from the manifests the catalog names, with fix's Puppet tokenizer (so that a `#` in a
// string or a heredoc is no comment).
#pragma once

#include <string>
#include <string_view>

#include "fsmove/catalog/catalog.h"
#include "fsmove/fix/fix_planner.h"
#include "fsmove/gating/source_suppressions.h"

namespace fsmove::pipeline {

// Every manifest the catalog names that lies in `scope` (the module's directory, or the one
// manifest checked; located on this machine as fixes are), read beneath the scope's root,
// never through a symbolic link: the catalog's file names are the compiled code's to set.
// Nothing without a root (code given with -e). A manifest that cannot be read or tokenized
// while it holds a directive is named in a warning.
gating::SourceSuppressions ReadSourceSuppressions(const catalog::Catalog& cat,
                                                  const fix::FixScope& scope);

// The directives of one manifest's `text`, `file` as the catalog names it and `path` where it
// was read.
void AddSourceSuppressions(std::string_view file, std::string_view path, std::string text,
                           gating::SourceSuppressions* out);

}  // namespace fsmove::pipeline
