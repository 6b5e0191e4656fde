// The fault checker; see checker.h.
// Trace blocks are first mapped to catalog resources (generated resources to their
// generator), accesses re-keyed by resource, and the catalog's view added: a resource that
// manages a path produces it whenever its block touches it. Relations are then inferred per
// resource pair and checked against the dependency graph.
#include "fsmove/check/checker.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "fsmove/analysis/relations.h"
#include "fsmove/catalog/block_resolver.h"
#include "fsmove/catalog/managed_paths.h"
#include "fsmove/check/fingerprint.h"
#include "fsmove/check/path_filter.h"

namespace fsmove::check {

using analysis::Access;
using analysis::Effect;
using catalog::ResourceId;

std::string_view FaultKindName(FaultKind k) {
  return k == FaultKind::kMissingOrdering ? "MOR" : "MN";
}
std::string_view FaultRuleId(FaultKind k) {
  return k == FaultKind::kMissingOrdering ? "missing-ordering" : "missing-notifier";
}

std::string PuppetReference(const catalog::Resource& r) {
  std::string title = r.title;
  if (r.type == "Class") {
    for (char& c : title) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::string quoted;
  for (char c : title) {
    if (c == '\'' || c == '\\') quoted.push_back('\\');
    quoted.push_back(c);
  }
  return absl::StrCat(r.type, "['", quoted, "']");
}

namespace {

std::string Location(const catalog::Resource& r) {
  if (r.file.empty()) return "";
  return r.line ? absl::StrCat(" (", r.file, ":", *r.line, ")") : absl::StrCat(" (", r.file, ")");
}

std::string FixFor(FaultKind kind, const catalog::Resource& src, const catalog::Resource& dst) {
  std::string s = PuppetReference(src), d = PuppetReference(dst);
  if (kind == FaultKind::kMissingOrdering) {
    return absl::StrCat("add `require => ", s, "` to ", d, Location(dst), ", or `before => ", d,
                        "` to ", s, Location(src), ", or the chain `", s, " -> ", d, "`");
  }
  return absl::StrCat("add `subscribe => ", s, "` to ", d, Location(dst), ", or `notify => ", d,
                      "` to ", s, Location(src), ", or the chain `", s, " ~> ", d, "`");
}

class CheckRun {
 public:
  CheckRun(const analysis::Analyzer& analyzer, const catalog::Catalog& catalog,
           const graph::DependencyGraph& graph, const CheckOptions& options,
           const PathFilter& filter)
      : analyzer_(analyzer),
        catalog_(catalog),
        graph_(graph),
        options_(options),
        filter_(filter),
        managed_(catalog),
        resolver_(catalog, managed_) {}

  absl::StatusOr<CheckResult> Run() {
    for (const std::string& ref : options_.ignore_resources) {
      auto id = catalog_.ResolveRef(ref);
      if (!id) {
        return absl::InvalidArgumentError(
            absl::StrCat("--ignore-resource ", ref, ": no such resource in ", catalog_.source_name()));
      }
      ignored_.insert(*id);
    }
    MapBlocks();
    BuildResourceAccesses();
    analysis::RelationOptions ro;
    ro.max_evidence = 1u << 20;  // filtered below, then capped per finding
    ro.is_service = [this](analysis::BlockId b) { return catalog_.resource(b).type == "Service"; };
    analysis::Relations rel = analysis::InferRelations(accesses_, resource_blocks_, ro);
    CheckNotifications(rel.notification);
    CheckOrderings(rel.ordering);
    CheckWriteWrites(rel.write_write);
    Finish();
    return std::move(result_);
  }

 private:
  bool IsPackage(ResourceId r) const { return catalog_.resource(r).type == "Package"; }
  bool IsService(ResourceId r) const { return catalog_.resource(r).type == "Service"; }

  bool Manages(ResourceId r, std::string_view path) const {
    for (ResourceId m : managed_.ManagersOf(path)) {
      if (m == r) return true;
    }
    return false;
  }

  void MapBlocks() {
    const analysis::BlockTable& blocks = analyzer_.interpreter().blocks();
    block_resource_.assign(blocks.size(), std::nullopt);
    first_line_.assign(catalog_.size(), UINT64_MAX);
    for (analysis::BlockId b = 0; b < blocks.size(); ++b) {
      const analysis::BlockInfo& info = blocks.info(b);
      ++result_.stats.blocks;
      catalog::BlockResolution res = resolver_.Resolve(info.ref, info.source);
      if (res.how == catalog::BlockMatch::kUnknown || !res.resource) {
        result_.stats.unknown_blocks.push_back({info.ref, info.source});
        continue;
      }
      if (res.how == catalog::BlockMatch::kGenerated) {
        ++result_.stats.blocks_generated;
      } else {
        ++result_.stats.blocks_in_catalog;
      }
      ResourceId r = *res.resource;
      if (catalog_.resource(r).is_container || ignored_.contains(r)) continue;
      block_resource_[b] = r;
      first_line_[r] = std::min(first_line_[r], info.first_line);
    }
    for (ResourceId r = 0; r < catalog_.size(); ++r) {
      if (first_line_[r] != UINT64_MAX) result_.stats.checked_resources.push_back(r);
    }
    for (ResourceId r = 0; r < catalog_.size(); ++r) {
      resource_blocks_.Intern(catalog_.resource(r).ref, catalog_.resource(r).ref);
    }
  }

  void BuildResourceAccesses() {
    const analysis::AccessMap& src = analyzer_.interpreter().accesses();
    for (analysis::PathId p = 0; p < src.path_count(); ++p) {
      const auto& list = src.accesses(p);
      if (list.empty()) continue;
      std::string path = analyzer_.interpreter().CanonicalPath(src.path(p));
      if (filter_.Ignored(path)) {
        result_.stats.ignored_accesses += list.size();
        continue;
      }
      analysis::PathId dst = accesses_.Intern(path);
      for (const Access& a : list) {
        if (a.block >= block_resource_.size() || !block_resource_[a.block]) continue;
        Access copy = a;
        copy.block = *block_resource_[a.block];
        accesses_.Record(dst, copy);
        if (a.effect != Effect::kConsumed) NoteWroteInto(copy.block, path);
      }
      PromoteManagers(dst, path);
    }
  }

  // `r` created, replaced or removed an entry of directory dirname(path).
  void NoteWroteInto(ResourceId r, std::string_view path) {
    size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) return;
    std::string key = std::to_string(r) + ":";
    key.append(slash == 0 ? std::string_view("/") : path.substr(0, slash));
    wrote_into_.insert(std::move(key));
  }
  bool WroteInto(ResourceId r, std::string_view dir) const {
    std::string key = std::to_string(r) + ":";
    key.append(dir);
    return wrote_into_.contains(key);
  }

  // The catalog's view: a resource that manages `path` on every machine produces it (or
  // removes it, for ensure => absent) whenever its block touches it, even if this run found
  // it already right. Its real producing call, when there is one, stays the evidence.
  void PromoteManagers(analysis::PathId dst, const std::string& path) {
    std::vector<Access> promoted;
    const auto& list = accesses_.accesses(dst);
    for (const Access& a : list) {
      if (a.effect != Effect::kConsumed || a.parent || !Manages(a.block, path)) continue;
      auto ensure = catalog_.resource(a.block).StringParameter("ensure");
      Effect e = ensure && *ensure == "absent" ? Effect::kExpunged : Effect::kProduced;
      bool has_real = std::any_of(list.begin(), list.end(), [&](const Access& o) {
        return o.block == a.block && o.effect == e;
      });
      if (has_real) continue;
      Access copy = a;
      copy.effect = e;
      copy.managed = true;
      copy.failed = false;
      promoted.push_back(copy);
    }
    for (const Access& a : promoted) accesses_.Record(dst, a);
  }

  Finding& FindingFor(FaultKind kind, ResourceId src, ResourceId dst) {
    auto key = std::make_tuple(kind, src, dst);
    auto it = index_.find(key);
    if (it != index_.end()) return findings_[it->second];
    index_.emplace(key, findings_.size());
    Finding& f = findings_.emplace_back();
    f.kind = kind;
    f.source = src;
    f.target = dst;
    f.applied_in_reverse = first_line_[dst] < first_line_[src];
    f.fix = FixFor(kind, catalog_.resource(src), catalog_.resource(dst));
    return f;
  }

  bool HasFinding(FaultKind kind, ResourceId src, ResourceId dst) const {
    return index_.contains(std::make_tuple(kind, src, dst));
  }

  static void AddEvidence(Finding& f, const analysis::Evidence& e, bool swap) {
    ++f.evidence_total;
    f.evidence.push_back(swap ? PathEvidence{e.path, e.second, e.first}
                              : PathEvidence{e.path, e.first, e.second});
  }

  void CheckNotifications(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.notification_relations;
      if (IsPackage(r.first) && !options_.package_notify) continue;
      if (graph_.Notifies(r.first, r.second)) {
        ++result_.stats.guaranteed;
        continue;
      }
      Finding& f = FindingFor(FaultKind::kMissingNotifier, r.first, r.second);
      for (const auto& e : r.evidence) AddEvidence(f, e, false);
    }
  }

  void CheckOrderings(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.ordering_relations;
      std::vector<const analysis::Evidence*> evidence;
      bool both_packages = IsPackage(r.first) && IsPackage(r.second);
      for (const auto& e : r.evidence) {
        // Two packages sharing dpkg's databases or a directory: apt orders them, not Puppet.
        if (both_packages &&
            (PathFilter::IsPackageManagerState(e.path) || WroteInto(r.second, e.path))) {
          continue;
        }
        evidence.push_back(&e);
      }
      if (evidence.empty()) {
        ++result_.stats.package_manager_pairs;
        continue;
      }
      ResourceId src = r.first, dst = r.second;
      // Direction: a package that installs files into a directory another resource created
      // (because this run applied it first) is meant to come first.
      bool swap = !IsPackage(r.first) && IsPackage(r.second) &&
                  std::all_of(evidence.begin(), evidence.end(), [&](const analysis::Evidence* e) {
                    return WroteInto(r.second, e->path);
                  });
      if (swap) std::swap(src, dst);
      if (HasFinding(FaultKind::kMissingNotifier, src, dst)) continue;  // its fix orders too
      if (graph_.HappensBefore(src, dst)) {
        ++result_.stats.guaranteed;
        continue;
      }
      Finding& f = FindingFor(FaultKind::kMissingOrdering, src, dst);
      for (const analysis::Evidence* e : evidence) AddEvidence(f, *e, swap);
    }
  }

  void CheckWriteWrites(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.write_write_pairs;
      ResourceId a = r.first, b = r.second;
      if (IsPackage(a) && IsPackage(b)) {  // dpkg refuses real file conflicts itself
        ++result_.stats.package_manager_pairs;
        continue;
      }
      if (graph_.HappensBefore(a, b) || graph_.HappensBefore(b, a)) {
        ++result_.stats.guaranteed;
        continue;
      }
      // Direction: the package ships the default; a service's daemon comes after whatever
      // sets up the files it writes (log owner and mode); the resource that manages the path
      // has the last word; otherwise the order this run used.
      const analysis::Evidence& e0 = r.evidence.front();
      bool swap;
      if (IsPackage(a) != IsPackage(b)) {
        swap = IsPackage(b);
      } else if (IsService(a) != IsService(b)) {
        swap = IsService(a);
      } else if (Manages(a, e0.path) != Manages(b, e0.path)) {
        swap = Manages(a, e0.path);
      } else {
        swap = e0.second.line < e0.first.line;
      }
      ResourceId src = swap ? b : a, dst = swap ? a : b;
      FaultKind kind = HasFinding(FaultKind::kMissingNotifier, src, dst)
                           ? FaultKind::kMissingNotifier
                           : FaultKind::kMissingOrdering;
      Finding& f = FindingFor(kind, src, dst);
      if (f.evidence.empty()) f.write_write = true;
      for (const auto& e : r.evidence) AddEvidence(f, e, swap);
    }
  }

  void Finish() {
    for (Finding& f : findings_) {
      std::stable_sort(f.evidence.begin(), f.evidence.end(),
                       [](const PathEvidence& x, const PathEvidence& y) { return x.path < y.path; });
      for (const PathEvidence& e : f.evidence) {
        if (f.paths.empty() || f.paths.back() != e.path) f.paths.push_back(e.path);
      }
      f.fingerprint = FindingFingerprint(f.kind, catalog_.resource(f.source).ref,
                                         catalog_.resource(f.target).ref, f.paths);
      if (f.evidence.size() > options_.max_evidence) f.evidence.resize(options_.max_evidence);
    }
    std::sort(findings_.begin(), findings_.end(), [this](const Finding& x, const Finding& y) {
      if (x.kind != y.kind) return x.kind < y.kind;
      const std::string& xs = catalog_.resource(x.source).ref;
      const std::string& ys = catalog_.resource(y.source).ref;
      if (xs != ys) return xs < ys;
      return catalog_.resource(x.target).ref < catalog_.resource(y.target).ref;
    });
    result_.findings = std::move(findings_);
  }

  const analysis::Analyzer& analyzer_;
  const catalog::Catalog& catalog_;
  const graph::DependencyGraph& graph_;
  const CheckOptions& options_;
  const PathFilter& filter_;
  catalog::ManagedPaths managed_;
  catalog::BlockResolver resolver_;
  absl::flat_hash_set<ResourceId> ignored_;
  absl::flat_hash_set<std::string> wrote_into_;  // "resource:directory"
  std::vector<std::optional<ResourceId>> block_resource_;
  std::vector<uint64_t> first_line_;  // per resource: its first begin marker
  analysis::AccessMap accesses_;      // keyed by resource id
  analysis::BlockTable resource_blocks_;
  std::vector<Finding> findings_;
  std::map<std::tuple<FaultKind, ResourceId, ResourceId>, size_t> index_;
  CheckResult result_;
};

}  // namespace

absl::StatusOr<CheckResult> Check(const analysis::Analyzer& analyzer,
                                  const catalog::Catalog& catalog,
                                  const graph::DependencyGraph& graph,
                                  const CheckOptions& options) {
  auto filter = PathFilter::Create(options.ignore_paths, options.default_ignores);
  if (!filter.ok()) return filter.status();
  CheckRun run(analyzer, catalog, graph, options, *filter);
  return run.Run();
}

}  // namespace fsmove::check
