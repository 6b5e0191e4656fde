// From findings to patches of the checked code's own manifests (issue 25). For each finding:
// where the fix goes (the consumer's declaration: `require` for an ordering, `subscribe` for
// a notification, moved out of its `require`; the producer's `before`/`notify` when only that
// one is in the checked code or the code already says it there), how the other resource is
// named (the title's expression when both sit in one class or define body, else the
// catalog's title quoted), and the edit. Findings that edit one declaration merge into one
// edit; nothing outside the checked code is ever read or changed: files are opened beneath
// its root, never through a symbolic link (base/beneath.h).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/base/beneath.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/checker.h"
#include "fsmove/checker/fix_placement.h"
#include "fsmove/fix/declaration_edit.h"
#include "fsmove/fix/puppet_source.h"

namespace fsmove::fix {

// The code fixes may change.
struct FixScope {
  // An absolute directory: the module's (or the manifest's, or analyze's --source-root). Diffs
  // name files relative to it.
  std::string root;
  // A manifest check: the one file fixes may change (absolute). Empty: any file under `root`.
  std::string only_file;
  // Where a manifest the catalog names is on this machine (a run recorded in another
  // checkout); null: where the catalog says.
  std::function<std::string(const std::string&)> locate;
  // A manifest check: the manifest (absolute), where a chain goes between resources that other
  // code declares. A manifest of the checked module (its examples/) is one, under `root`.
  std::string manifest;
  // Code the run used that is not the checked code, by directory (absolute) and what it is
  // ("the module puppetlabs-apt 9.1.0 the Puppetfile deployed"): a fix declared there is that
  // code's own, and the patch's reason says whose.
  std::vector<std::pair<std::string, std::string>> others;
};

// One file the fixes change.
struct ChangedFile {
  std::string path;      // on this machine
  std::string relative;  // to FixScope::root
  std::string old_text;
  std::string new_text;
  std::vector<checker::FixEdit> edits;
};

struct RenderedFix {
  std::vector<ChangedFile> files;  // sorted by relative path
  std::string diff;                // every file's unified diff, in that order
  std::vector<checker::FixEdit> edits;
};

class FixPlanner {
 public:
  FixPlanner(const catalog::Catalog& cat, FixScope scope);
  ~FixPlanner();
  FixPlanner(const FixPlanner&) = delete;
  FixPlanner& operator=(const FixPlanner&) = delete;

  // Plans the fix of each finding of `which` and sets its patch: the edits, diff, root and
  // description (verdict kNotRun), or, when no fix can be made in the checked code, an empty
  // patch with verdict kFailed and the reason.
  void Plan(std::vector<checker::Finding>* findings, const std::vector<size_t>& which);
  // Whether finding `i` got a fix from Plan.
  bool Planned(size_t i) const;
  // The change of the findings `which` (planned ones) together: one edit per declaration.
  absl::StatusOr<RenderedFix> Render(const std::vector<size_t>& which) const;

  const FixScope& scope() const { return scope_; }

 private:
  struct Change {
    std::string file;  // on this machine
    catalog::ResourceId declaration = 0;
    ReferenceChange change;
    // Not empty: instead, this relationship chain is appended to `file` (a manifest check
    // whose two resources are both declared in other modules' classes).
    std::string chain;
  };
  struct Located {
    std::string file;  // on this machine
    const PuppetSource* source = nullptr;
    ResourceBody body;
  };

  absl::StatusOr<Located> Locate(catalog::ResourceId r) const;
  absl::StatusOr<std::string> ReadInScope(const std::string& file) const;
  absl::StatusOr<const PuppetSource*> Source(const std::string& file) const;
  std::string InScope(const std::string& file) const;     // empty when it may change
  std::string OutOfScope(const std::string& file) const;  // why a file outside it may not
  absl::StatusOr<std::string> Reference(catalog::ResourceId r, const Located& edited,
                                        const checker::Finding& f) const;
  absl::StatusOr<std::vector<Change>> PlanOne(const checker::Finding& f,
                                              std::string* description) const;
  std::string Relative(const std::string& file) const;
  absl::StatusOr<Change> ChainInManifest(const checker::Finding& f, std::string* description) const;
  absl::Status AppendChains(const std::vector<size_t>& which,
                            std::map<std::string, std::vector<TextReplacement>>* by_file) const;

  const catalog::Catalog& cat_;
  checker::ModuleInterfaces interfaces_;  // how the checked code names other modules' resources
  FixScope scope_;
  absl::StatusOr<base::UniqueFd> root_fd_;  // scope_.root, where every file is read beneath
  std::map<size_t, std::vector<Change>> planned_;
  mutable std::map<std::string, absl::StatusOr<std::unique_ptr<PuppetSource>>> sources_;
  mutable std::map<std::string, std::string> catalog_names_;  // this machine's path -> catalog's
};

}  // namespace fsmove::fix
