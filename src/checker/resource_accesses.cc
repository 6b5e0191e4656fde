// The trace's accesses re-keyed by catalog resource; see resource_accesses.h.
#include "fsmove/checker/resource_accesses.h"

#include <algorithm>
#include <set>

#include "absl/container/node_hash_map.h"
#include "fsmove/checker/resource_semantics.h"

namespace fsmove::checker {

using analysis::Access;
using analysis::Effect;
using catalog::ResourceId;

namespace {

// Puppet's built-in schedules and its default filebucket: applied by Puppet for itself,
// whether or not the catalog lists them.
bool IsPuppetInternal(std::string_view ref) {
  return ref.starts_with("Schedule[") || ref == "Filebucket[puppet]";
}

// The directory holding `path` ("/" for a top-level name); empty for a relative path.
std::string_view DirectoryOf(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {};
  return slash == 0 ? std::string_view("/") : path.substr(0, slash);
}

}  // namespace

ResourceAccesses::ResourceAccesses(const analysis::AnalysisResult& analysis,
                                   const catalog::Catalog& catalog,
                                   const catalog::ManagedPaths& managed, const PathFilter& filter,
                                   const absl::flat_hash_set<ResourceId>& ignored,
                                   CheckStats* stats)
    : analysis_(analysis),
      catalog_(catalog),
      managed_(managed),
      filter_(filter),
      ignored_(ignored),
      stats_(stats),
      resolver_(catalog, managed) {
  MapBlocks();
  BuildResourceAccesses();
}

bool ResourceAccesses::Manages(ResourceId r, std::string_view path) const {
  for (ResourceId m : managed_.ManagersOf(path)) {
    if (m == r) return true;
  }
  return false;
}

void ResourceAccesses::MapBlocks() {
  const analysis::BlockTable& blocks = *analysis_.blocks;
  block_resource_.assign(blocks.size(), std::nullopt);
  first_line_.assign(catalog_.size(), UINT64_MAX);
  std::vector<bool> evaluated(catalog_.size(), false);
  for (analysis::BlockId b = 0; b < blocks.size(); ++b) {
    const analysis::BlockInfo& info = blocks.info(b);
    ++stats_->blocks;
    catalog::BlockResolution res = resolver_.Resolve(info.ref, info.source);
    if (res.how == catalog::BlockMatch::kUnknown || !res.resource) {
      if (!IsPuppetInternal(info.ref)) {
        stats_->unknown_blocks.push_back({info.ref, info.source});
      }
      continue;
    }
    if (res.how == catalog::BlockMatch::kGenerated) {
      ++stats_->blocks_generated;
    } else {
      ++stats_->blocks_in_catalog;
      if (blocks.info(b).begins > 0) evaluated[*res.resource] = true;
    }
    ResourceId r = *res.resource;
    if (catalog_.resource(r).is_container || ignored_.contains(r) ||
        IsPuppetInternal(catalog_.resource(r).ref)) {
      continue;
    }
    block_resource_[b] = r;
    first_line_[r] = std::min(first_line_[r], info.first_line);
  }
  for (ResourceId r = 0; r < catalog_.size(); ++r) {
    if (first_line_[r] != UINT64_MAX) stats_->checked_resources.push_back(r);
    if (!evaluated[r] && !IsPuppetInternal(catalog_.resource(r).ref)) {
      stats_->not_evaluated.push_back(r);
    }
  }
  for (ResourceId r = 0; r < catalog_.size(); ++r) {
    resource_blocks_.Intern(catalog_.resource(r).ref, catalog_.resource(r).ref);
  }
}

void ResourceAccesses::BuildResourceAccesses() {
  const analysis::AccessMap& src = *analysis_.accesses;
  accesses_.Reserve(src.path_count());
  for (analysis::PathId p = 0; p < src.path_count(); ++p) {
    const auto& list = src.accesses(p);
    if (list.empty()) continue;
    std::string path = analysis_.CanonicalPath(src.path(p));
    if (filter_.Ignored(path)) {
      stats_->ignored_accesses += list.size();
      continue;
    }
    analysis::PathId dst = accesses_.Intern(path);
    if (std::string_view package = analysis_.UnpackedFrom(p); !package.empty()) {
      unpacked_from_.insert_or_assign(path, std::string(package));
    }
    for (const Access& a : list) {
      if (a.block >= block_resource_.size() || !block_resource_[a.block]) continue;
      Access copy = a;
      copy.block = *block_resource_[a.block];
      accesses_.Record(dst, copy);
      const std::string_view dir = DirectoryOf(path);
      if (a.effect == Effect::kConsumed || dir.empty()) continue;
      NoteWroteInto(copy.block, dir);
      // An entry made or removed (not a metadata change), for the listings of `dir`.
      bool entry = (a.effect == Effect::kProduced && !a.shallow) || a.effect == Effect::kExpunged;
      if (entry && path != "/") NoteEntry(copy, path, dir);
    }
    PromoteManagers(dst, path);
  }
}

// An entry made or removed in directory `dir`, for the listings of that directory.
void ResourceAccesses::NoteEntry(const Access& a, const std::string& path, std::string_view dir) {
  std::vector<DirectoryEntry>& list = entries_[std::string(dir)];
  if (list.size() < kMaxEntriesPerDirectory) list.push_back({path, a});
}

analysis::Relations ResourceAccesses::InferRelations() {
  analysis::RelationOptions ro;
  ro.max_evidence = 1u << 20;  // filtered by the rules, then capped per finding
  ro.is_service = [this](analysis::BlockId b) { return IsService(catalog_.resource(b)); };
  analysis::Relations rel = analysis::InferRelations(accesses_, resource_blocks_, ro);
  AddListingRelations(&rel);
  AddAugeasNodeRelations(&rel);
  return rel;
}

void ResourceAccesses::AddListingRelations(analysis::Relations* rel) {
  std::map<std::pair<ResourceId, ResourceId>, size_t> ordering_index, notification_index;
  auto add = [&](std::vector<analysis::Relation>& list, auto& index, analysis::RelationKind kind,
                 ResourceId p, ResourceId c, const DirectoryEntry& e, const Access& listing) {
    auto [it, fresh] = index.try_emplace(std::make_pair(p, c), list.size());
    if (fresh) {
      analysis::Relation& r = list.emplace_back();
      r.kind = kind;
      r.first = p;
      r.second = c;
    }
    analysis::Relation& r = list[it->second];
    ++r.evidence_total;
    r.evidence.push_back(analysis::Evidence{e.path, e.access, listing});
  };
  for (const auto& [dir, entries] : entries_) {
    if (!IsDropInDirectory(dir)) continue;
    const auto& list = accesses_.accesses(accesses_.Intern(dir));
    for (const Access& l : list) {
      if (!l.listing) continue;
      for (const DirectoryEntry& e : entries) {
        if (e.access.block == l.block) continue;
        add(rel->ordering, ordering_index, analysis::RelationKind::kOrdering, e.access.block,
            l.block, e, l);
        if (IsService(catalog_.resource(l.block)) && e.access.effect == Effect::kProduced) {
          add(rel->notification, notification_index, analysis::RelationKind::kNotification,
              e.access.block, l.block, e, l);
        }
      }
    }
  }
}

void ResourceAccesses::AddAugeasNodeRelations(analysis::Relations* rel) {
  if (catalog_.ResourcesOfType("Augeas").size() < 2) return;
  // At most this many Augeas writers of one file are paired (quadratic in them).
  constexpr size_t kMaxWriters = 256;
  std::set<std::pair<ResourceId, ResourceId>> known;
  for (const analysis::Relation& r : rel->write_write) known.emplace(r.first, r.second);
  std::vector<const Access*> writers;
  // Each writer's changes, read once: a file's writers are compared pairwise (a node map:
  // the reference to the first stays while the second is read).
  absl::node_hash_map<ResourceId, std::vector<AugeasChange>> changes;
  auto changes_of = [&](ResourceId r) -> const std::vector<AugeasChange>& {
    auto [it, fresh] = changes.try_emplace(r);
    if (fresh) it->second = AugeasChanges(catalog_.resource(r));
    return it->second;
  };
  for (analysis::PathId p = 0; p < accesses_.path_count(); ++p) {
    writers.clear();
    for (const Access& a : accesses_.accesses(p)) {
      if (a.effect == Effect::kProduced && !a.shallow && writers.size() < kMaxWriters &&
          catalog_.resource(a.block).type == "Augeas") {
        writers.push_back(&a);
      }
    }
    if (writers.size() < 2) continue;
    std::sort(writers.begin(), writers.end(),
              [](const Access* x, const Access* y) { return x->line < y->line; });
    for (size_t i = 0; i < writers.size(); ++i) {
      for (size_t j = i + 1; j < writers.size(); ++j) {
        const Access* x = writers[i];
        const Access* y = writers[j];
        if (x->block == y->block) continue;
        if (x->block > y->block) std::swap(x, y);
        if (known.contains({x->block, y->block}) ||
            !AugeasMakesWhatTheOtherSelects(changes_of(x->block), changes_of(y->block))) {
          continue;
        }
        known.emplace(x->block, y->block);
        analysis::Relation& r = rel->write_write.emplace_back();
        r.kind = analysis::RelationKind::kWriteWrite;
        r.first = x->block;
        r.second = y->block;
        r.evidence_total = 1;
        r.evidence.push_back(analysis::Evidence{std::string(accesses_.path(p)), *x, *y});
      }
    }
  }
}

void ResourceAccesses::NoteWroteInto(ResourceId r, std::string_view dir) {
  std::string key = std::to_string(r) + ":";
  key.append(dir);
  wrote_into_.insert(std::move(key));
}

bool ResourceAccesses::WroteInto(ResourceId r, std::string_view dir) const {
  std::string key = std::to_string(r) + ":";
  key.append(dir);
  return wrote_into_.contains(key);
}

// The catalog's view: a resource that manages `path` on every machine produces it (or
// removes it, for ensure => absent) whenever its block touches it, even if this run found
// it already right. Its real producing call, when there is one, stays the evidence.
void ResourceAccesses::PromoteManagers(analysis::PathId dst, const std::string& path) {
  std::vector<Access> promoted;
  const auto& list = accesses_.accesses(dst);
  for (const Access& a : list) {
    // What a manager looked at, or whose owner or mode it set.
    bool looked = (a.effect == Effect::kConsumed && !a.parent) ||
                  (a.effect == Effect::kProduced && a.shallow);
    if (!looked || !Manages(a.block, path)) continue;
    const catalog::Resource& manager = catalog_.resource(a.block);
    auto ensure = manager.StringParameter("ensure");
    bool absent = ensure && *ensure == "absent";
    // Only what the resource establishes: content it manages, a file it makes exist, a
    // path it removes. A directory that was already there, or a File managing only owner
    // or mode, produces nothing for what is created inside or read from it.
    if (!absent && manager.type == "File" && !EstablishesContent(manager)) continue;
    Effect e = absent ? Effect::kExpunged : Effect::kProduced;
    bool has_real = std::any_of(list.begin(), list.end(), [&](const Access& o) {
      return o.block == a.block && o.effect == e && !o.shallow;
    });
    if (has_real) continue;
    Access copy = a;
    copy.effect = e;
    copy.managed = true;
    copy.failed = false;
    copy.shallow = false;
    promoted.push_back(copy);
  }
  for (const Access& a : promoted) accesses_.Record(dst, a);
}

}  // namespace fsmove::checker
