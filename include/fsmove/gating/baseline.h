// Baselines: the fingerprints of findings a project has accepted for now (legacy code), so
// CI fails only on new ones. `--write-baseline FILE` writes one, `--baseline FILE` reads it.
// Findings match by fingerprint only, never by line: moving code keeps them baselined.
//
//   {
//     "fsmove_baseline": 1,
//     "findings": [
//       {"fingerprint": "3f2a...(32 hex digits)", "rule": "missing-ordering", "kind": "MOR",
//        "source": {"resource": "File[/etc/app.conf]", "file": "...", "line": 10},
//        "target": {"resource": "Exec[use config]", "file": "...", "line": 15},
//        "paths": ["/etc/app.conf"]}
//     ]
//   }
//
// Everything but "fingerprint" is there for the people who review the file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "nlohmann/json.hpp"

namespace fsmove::gating {

inline constexpr int kBaselineFormat = 1;

struct BaselineEntry {
  std::string fingerprint;
  std::string rule;    // as written; informational
  std::string source;  // resource references, informational
  std::string target;
};

class Baseline {
 public:
  // Errors name the file and the JSON pointer.
  static absl::StatusOr<Baseline> Parse(std::string_view text, std::string_view source_name);
  static absl::StatusOr<Baseline> LoadFile(const std::string& path);

  const std::string& source_name() const { return source_name_; }
  const std::vector<BaselineEntry>& entries() const { return entries_; }
  // The entry with this fingerprint, or null.
  const BaselineEntry* Find(std::string_view fingerprint) const;

 private:
  std::string source_name_;
  std::vector<BaselineEntry> entries_;
  absl::flat_hash_map<std::string, size_t> index_;
};

// The baseline document for `findings` (in their order), keys in the order shown above.
nlohmann::ordered_json BaselineToJson(const std::vector<const checker::Finding*>& findings,
                                      const catalog::Catalog& catalog);

}  // namespace fsmove::gating
