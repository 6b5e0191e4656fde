// Relation inference over the access map; see relations.h.
// Paths are grouped by canonical name first, so /lib/x and /usr/lib/x count as one file.
#include "fsmove/analysis/relations.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace fsmove::analysis {
namespace {

struct Builder {
  std::vector<Relation>* out;
  RelationKind kind;
  size_t max_evidence;
  absl::flat_hash_map<uint64_t, size_t> index;

  void Add(BlockId a, BlockId b, const std::string& path, const Access& x, const Access& y) {
    uint64_t key = (uint64_t{a} << 32) | b;
    auto [it, fresh] = index.try_emplace(key, out->size());
    if (fresh) {
      Relation& r = out->emplace_back();
      r.kind = kind;
      r.first = a;
      r.second = b;
    }
    Relation& r = (*out)[it->second];
    ++r.evidence_total;
    if (r.evidence.size() < max_evidence) r.evidence.push_back(Evidence{path, x, y});
  }
};

// The accesses of one canonical path: one per (block, effect), the earliest line winning
// when several recorded paths merged into it. Searched in place while short, as most are;
// indexed past kScanned: a path can have thousands of them.
struct MergedAccesses {
  static constexpr size_t kScanned = 8;
  std::vector<Access> list;
  absl::flat_hash_map<uint64_t, size_t> index;  // (block, effect) -> position in list

  static uint64_t Key(const Access& a) {
    return (uint64_t{a.block} << 2) | static_cast<uint64_t>(a.effect);
  }
  void Merge(const Access& a) {
    const uint64_t key = Key(a);
    Access* kept = nullptr;
    if (list.size() <= kScanned) {
      auto it =
          std::find_if(list.begin(), list.end(), [&](const Access& b) { return Key(b) == key; });
      if (it != list.end()) kept = &*it;
    } else if (auto it = index.find(key); it != index.end()) {
      kept = &list[it->second];
    }
    if (kept != nullptr) {
      if (a.line < kept->line) *kept = a;
      return;
    }
    list.push_back(a);
    if (list.size() == kScanned + 1) {  // from now on indexed
      for (size_t i = 0; i < list.size(); ++i) index.emplace(Key(list[i]), i);
    } else if (list.size() > kScanned + 1) {
      index.emplace(key, list.size() - 1);
    }
  }
};

}  // namespace

std::string_view RelationKindName(RelationKind k) {
  switch (k) {
    case RelationKind::kOrdering:
      return "ordering";
    case RelationKind::kNotification:
      return "notification";
    case RelationKind::kWriteWrite:
      return "write-write";
  }
  return "?";
}

Relations InferRelations(const AccessMap& accesses, const BlockTable& blocks,
                         const RelationOptions& options) {
  // Group recorded paths under their canonical names (ordered: deterministic output). Only a
  // name some block produces can relate two blocks: the others (most paths of a trace, all
  // of them only read) are never grouped, so memory follows the produced paths.
  auto canonical = [&](PathId id) {
    return options.canonical_path ? options.canonical_path(accesses.path(id))
                                  : std::string(accesses.path(id));
  };
  auto has_producer = [&](PathId id) {
    const auto& list = accesses.accesses(id);
    return std::any_of(list.begin(), list.end(),
                       [](const Access& a) { return a.effect == Effect::kProduced; });
  };
  absl::flat_hash_set<std::string> produced;
  for (PathId id = 0; id < accesses.path_count(); ++id) {
    if (has_producer(id)) produced.insert(canonical(id));
  }
  std::map<std::string, MergedAccesses> by_path;
  for (PathId id = 0; id < accesses.path_count() && !produced.empty(); ++id) {
    const auto& list = accesses.accesses(id);
    if (list.empty()) continue;
    std::string name = canonical(id);
    if (!produced.contains(name)) continue;
    MergedAccesses& merged = by_path[name];
    for (const Access& a : list) merged.Merge(a);
  }
  absl::flat_hash_set<std::string>().swap(produced);
  auto is_service = [&](BlockId b) {
    return options.is_service ? options.is_service(b) : blocks.info(b).type() == "Service";
  };

  Relations rel;
  Builder ordering{&rel.ordering, RelationKind::kOrdering, options.max_evidence, {}};
  Builder notification{&rel.notification, RelationKind::kNotification, options.max_evidence, {}};
  Builder write_write{&rel.write_write, RelationKind::kWriteWrite, options.max_evidence, {}};
  std::vector<const Access*> producers;
  std::vector<const Access*> others;  // consuming or expunging blocks that do not produce
  absl::flat_hash_set<BlockId> producing;
  for (const auto& [path, merged] : by_path) {
    const std::vector<Access>& list = merged.list;
    producers.clear();
    producing.clear();
    for (const Access& a : list) {
      if (a.effect == Effect::kProduced) {
        producers.push_back(&a);
        producing.insert(a.block);
      }
    }
    if (producers.empty()) continue;
    auto produces = [&](BlockId b) { return producing.contains(b); };
    others.clear();
    for (const Access& a : list) {
      if (a.effect != Effect::kProduced && !produces(a.block)) others.push_back(&a);
    }
    for (const Access* p : producers) {
      for (const Access* a : others) {
        ordering.Add(p->block, a->block, path, *p, *a);
        // A service that writes the path itself (its log, its pid file) produces it: it does
        // not read it as input, so a change there needs no restart (ordering still applies).
        if (a->effect == Effect::kConsumed && is_service(a->block)) {
          notification.Add(p->block, a->block, path, *p, *a);
        }
      }
    }
    // Writers of one path: a chain in trace order (w1, w2), (w2, w3), ... is the order to
    // fix; all pairs would be quadratic in the number of writers and say nothing more.
    std::sort(producers.begin(), producers.end(),
              [](const Access* x, const Access* y) { return x->line < y->line; });
    for (size_t i = 0; i + 1 < producers.size(); ++i) {
      const Access* x = producers[i];
      const Access* y = producers[i + 1];
      if (x->block == y->block) continue;
      if (x->block < y->block) {
        write_write.Add(x->block, y->block, path, *x, *y);
      } else {
        write_write.Add(y->block, x->block, path, *y, *x);
      }
    }
  }
  auto order = [&](std::vector<Relation>& v) {
    std::sort(v.begin(), v.end(), [&](const Relation& x, const Relation& y) {
      const std::string& xa = blocks.info(x.first).ref;
      const std::string& ya = blocks.info(y.first).ref;
      if (xa != ya) return xa < ya;
      return blocks.info(x.second).ref < blocks.info(y.second).ref;
    });
  };
  order(rel.ordering);
  order(rel.notification);
  order(rel.write_write);
  return rel;
}

}  // namespace fsmove::analysis
