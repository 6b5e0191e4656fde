// The trace's accesses re-keyed by catalog resource, the first stage of a check: each block
// mapped to its resource (a generated resource's to its generator; containers, ignored
// resources and Puppet's own left out), each path canonicalised and filtered, and the
// catalog's view added (a resource that manages a path produces it whenever its block touches
// it). It also keeps what the rules ask of the directories: who made or removed entries where,
// and the relations a drop-in directory's listing adds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fsmove/analysis/analysis_result.h"
#include "fsmove/analysis/relations.h"
#include "fsmove/catalog/block_resolver.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/catalog/managed_paths.h"
#include "fsmove/checker/checker.h"
#include "fsmove/checker/path_filter.h"

namespace fsmove::checker {

class ResourceAccesses {
 public:
  // Reads `analysis` at once; the counts of blocks, unknown blocks, checked and not evaluated
  // resources and ignored accesses go to `stats`. All but `stats` must outlive this.
  ResourceAccesses(const analysis::AnalysisResult& analysis, const catalog::Catalog& catalog,
                   const catalog::ManagedPaths& managed, const PathFilter& filter,
                   const absl::flat_hash_set<catalog::ResourceId>& ignored, CheckStats* stats);

  // Keyed by path and resource id (an access's `block` is its resource).
  analysis::AccessMap& accesses() { return accesses_; }
  // One block per catalog resource, its id the resource's: what relations are inferred over.
  const analysis::BlockTable& resource_blocks() const { return resource_blocks_; }
  // The line of the resource's first begin marker (UINT64_MAX: never evaluated).
  uint64_t first_line(catalog::ResourceId r) const { return first_line_[r]; }
  // The Debian package dpkg unpacked `path` from (canonical), or null.
  const std::string* UnpackedFrom(const std::string& path) const {
    auto it = unpacked_from_.find(path);
    return it == unpacked_from_.end() ? nullptr : &it->second;
  }
  // The program that made `access`, then the one that ran that one, ... (at most `limit` of
  // them; analysis_result.h).
  std::vector<std::string_view> ProgramsAbove(const analysis::Access& access,
                                              size_t limit = 16) const {
    return analysis_.ProgramsAbove(access, limit);
  }
  bool Manages(catalog::ResourceId r, std::string_view path) const;
  // `r` created, replaced or removed an entry of directory `dir`.
  bool WroteInto(catalog::ResourceId r, std::string_view dir) const;
  // A directory listing (opendir) depends on every other resource that made or removed an
  // entry there, whether the listing saw the entry (it ran after) or missed it (before):
  // apt reading sources.list.d, a daemon loading conf.d/*.conf, a purge of unmanaged files.
  void AddListingRelations(analysis::Relations* rel);
  // Two Augeas resources of one file of which one makes the node the other selects below
  // (AugeasMakesWhatTheOtherSelects): a write-write pair even when other writers of the file
  // came between them, which the analysis's chain of writers (each with the next) leaves out.
  void AddAugeasNodeRelations(analysis::Relations* rel);
  // The check's relations: inferred over the accesses by resource (a Service's block is a
  // service's), then the listings' added; evidence uncapped (the rules filter it).
  analysis::Relations InferRelations();

 private:
  struct DirectoryEntry {
    std::string path;
    analysis::Access access;
  };
  static constexpr size_t kMaxEntriesPerDirectory = 4096;

  void MapBlocks();
  void BuildResourceAccesses();
  void NoteEntry(const analysis::Access& a, const std::string& path, std::string_view dir);
  void NoteWroteInto(catalog::ResourceId r, std::string_view dir);
  void PromoteManagers(analysis::PathId dst, const std::string& path);

  const analysis::AnalysisResult& analysis_;
  const catalog::Catalog& catalog_;
  const catalog::ManagedPaths& managed_;
  const PathFilter& filter_;
  const absl::flat_hash_set<catalog::ResourceId>& ignored_;
  CheckStats* stats_;
  catalog::BlockResolver resolver_;
  absl::flat_hash_set<std::string> wrote_into_;                 // "resource:directory"
  std::map<std::string, std::vector<DirectoryEntry>> entries_;  // directory -> entries made
  std::vector<std::optional<catalog::ResourceId>> block_resource_;
  std::vector<uint64_t> first_line_;  // per resource: its first begin marker
  analysis::AccessMap accesses_;      // keyed by resource id
  // The Debian package dpkg unpacked each path from, for the paths it wrote (canonical).
  absl::flat_hash_map<std::string, std::string> unpacked_from_;
  analysis::BlockTable resource_blocks_;
};

}  // namespace fsmove::checker
