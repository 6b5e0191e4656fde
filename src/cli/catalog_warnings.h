// What a loaded catalog holds that Puppet would refuse or that makes the graph incomplete
// (references to resources it does not contain, clashing aliases, ...): one stderr warning
// each, naming the catalog file and the JSON pointer, so that none goes unseen.
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "commands.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/catalog/catalog.h"

namespace fsmove::cli {

inline void PrintCatalogWarnings(const catalog::Catalog& cat) {
  for (const catalog::CatalogWarning& w : cat.warnings()) {
    Say({run::Warning(absl::StrCat(cat.source_name(), ": ", base::TerminalSafe(w.json_pointer),
                                   ": ", base::TerminalSafe(w.message)))});
  }
}

}  // namespace fsmove::cli
