// Where a finding's fix goes, and how findings are folded once found; see fix_placement.h.
#include "fsmove/checker/fix_placement.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace fsmove::checker {

using catalog::ResourceId;

namespace {

std::string Location(const catalog::Resource& r) {
  if (r.file.empty()) return "";
  return r.line ? absl::StrCat(" (", r.file, ":", *r.line, ")") : absl::StrCat(" (", r.file, ")");
}

// `src_named`: how the target's code names the source; `dst_named`: how the source's code
// names the target.
std::string FixFor(FaultKind kind, const catalog::Resource& src, const catalog::Resource& dst,
                   const catalog::Resource& src_named, const catalog::Resource& dst_named) {
  std::string s = PuppetReference(src), d = PuppetReference(dst);
  std::string sn = PuppetReference(src_named), dn = PuppetReference(dst_named);
  if (kind == FaultKind::kMissingOrdering) {
    return absl::StrCat("add `require => ", sn, "` to ", d, Location(dst), ", or `before => ", dn,
                        "` to ", s, Location(src), ", or the chain `", sn, " -> ", d, "`");
  }
  return absl::StrCat("add `subscribe => ", sn, "` to ", d, Location(dst), ", or `notify => ", dn,
                      "` to ", s, Location(src), ", or the chain `", sn, " ~> ", d, "`");
}

// The module directory a manifest belongs to (the path before its last `/manifests/`); empty
// for a manifest outside a module (a site.pp).
std::string_view ModuleDirOf(std::string_view file) {
  const size_t at = file.rfind("/manifests/");
  return at == std::string_view::npos ? std::string_view() : file.substr(0, at);
}

}  // namespace

// Containment deeper than this is no catalog Puppet compiles (a hostile one).
constexpr int kMaxContainmentDepth = 64;

ModuleInterfaces::ModuleInterfaces(const catalog::Catalog& catalog)
    : catalog_(catalog), container_(catalog.size()) {
  for (const catalog::ContainmentEdge& e : catalog.containment()) {
    container_[e.member] = e.container;
  }
}

std::optional<ResourceId> ModuleInterfaces::InnermostClass(ResourceId r) const {
  for (int depth = 0; depth < kMaxContainmentDepth; ++depth) {
    const std::optional<ResourceId> up = container_[r];
    if (!up) return std::nullopt;
    if (catalog_.resource(*up).type == "Class") return up;
    r = *up;
  }
  return std::nullopt;
}

bool ModuleInterfaces::Holds(ResourceId container, ResourceId r) const {
  for (int depth = 0; depth < kMaxContainmentDepth && container_[r]; ++depth) {
    r = *container_[r];
    if (r == container) return true;
  }
  return false;
}

ResourceId ModuleInterfaces::For(ResourceId r, ResourceId from) const {
  const std::string_view mine = ModuleDirOf(catalog_.resource(r).file);
  const std::string_view theirs = ModuleDirOf(catalog_.resource(from).file);
  if (mine.empty() || theirs.empty() || mine == theirs) return r;
  const std::optional<ResourceId> c = InnermostClass(r);
  if (!c) return r;
  const std::string& title = catalog_.resource(*c).title;
  if (absl::EqualsIgnoreCase(title, "main") || absl::EqualsIgnoreCase(title, "settings") ||
      Holds(*c, from)) {
    return r;
  }
  return *c;
}

FixPlacement::FixPlacement(const catalog::Catalog& catalog, const graph::DependencyGraph& graph)
    : catalog_(catalog), graph_(graph), parent_(catalog.size()), interfaces_(catalog) {
  for (const catalog::ContainmentEdge& e : catalog_.containment()) {
    parent_[e.member].push_back(e.container);
  }
}

bool FixPlacement::IsDefinedTypeInstance(ResourceId r) const {
  const catalog::Resource& res = catalog_.resource(r);
  return res.is_container && res.type != "Class" && res.type != "Stage";
}

bool FixPlacement::Contains(ResourceId container, ResourceId r) const {
  std::vector<ResourceId> stack{r};
  absl::flat_hash_set<ResourceId> seen;
  while (!stack.empty()) {
    ResourceId x = stack.back();
    stack.pop_back();
    if (x == container) return true;
    if (!seen.insert(x).second) continue;
    for (ResourceId p : parent_[x]) stack.push_back(p);
  }
  return false;
}

// The outermost defined-type instance holding `r` but not `other`; `r` itself if none.
ResourceId FixPlacement::Declaration(ResourceId r, ResourceId other) const {
  ResourceId best = r;
  ResourceId x = r;
  absl::flat_hash_set<ResourceId> seen;
  while (seen.insert(x).second) {
    ResourceId next = x;
    for (ResourceId p : parent_[x]) {
      if (IsDefinedTypeInstance(p)) {
        next = p;
        break;
      }
    }
    if (next == x || Contains(next, other)) break;
    best = x = next;
  }
  return best;
}

void FixPlacement::Place(Finding& f) const {
  ResourceId s = Declaration(f.source, f.target), d = Declaration(f.target, f.source);
  // The container's edge must not close a cycle the resources' own edge would not.
  if ((s != f.source || d != f.target) && graph_.HappensBefore(d, s)) {
    s = f.source;
    d = f.target;
  }
  f.source_declaration = s;
  f.target_declaration = d;
  ResourceId s_named = interfaces_.For(s, d), d_named = d;
  if (f.kind == FaultKind::kMissingOrdering) d_named = interfaces_.For(d, s);
  if (s_named != s && graph_.HappensBefore(d, s_named)) s_named = s;
  if (d_named != d && graph_.HappensBefore(d_named, s)) d_named = d;
  f.fix = FixFor(f.kind, catalog_.resource(s), catalog_.resource(d), catalog_.resource(s_named),
                 catalog_.resource(d_named));
  if (s != f.source || d != f.target) {
    absl::StrAppend(&f.fix, " (the declarations that hold ", catalog_.resource(f.source).ref,
                    " and ", catalog_.resource(f.target).ref, ")");
  }
}

void GroupInstances(const catalog::Catalog& catalog, std::vector<Finding>* findings) {
  std::vector<Finding>& list = *findings;
  std::map<std::tuple<FaultKind, std::string, int, std::string, int>, size_t> first;
  std::vector<bool> drop(list.size(), false);
  for (size_t i = 0; i < list.size(); ++i) {
    Finding& f = list[i];
    const catalog::Resource& s = catalog.resource(f.source);
    const catalog::Resource& d = catalog.resource(f.target);
    if (s.file.empty() || d.file.empty() || !s.line || !d.line) continue;
    auto key = std::make_tuple(f.kind, s.file, *s.line, d.file, *d.line);
    auto [it, fresh] = first.try_emplace(key, i);
    if (fresh) continue;
    Finding& g = list[it->second];
    g.instances.emplace_back(f.source, f.target);
    for (const auto& inst : f.instances) g.instances.push_back(inst);
    g.evidence_total += f.evidence_total;
    g.confidence = std::min(g.confidence, f.confidence);  // kHigh < kLow: high wins
    drop[i] = true;
  }
  DropFindings(drop, findings);
  for (Finding& f : list) {
    std::sort(f.instances.begin(), f.instances.end());
    if (f.instances.empty()) continue;
    absl::StrAppend(&f.fix, "; the same change at ", catalog.resource(f.source).file, ":",
                    *catalog.resource(f.source).line, " and ", catalog.resource(f.target).file, ":",
                    *catalog.resource(f.target).line, " fixes all ", f.instances.size() + 1,
                    " instances");
  }
}

void FoldImpliedFixes(const graph::DependencyGraph& graph, std::vector<Finding>* findings) {
  std::vector<Finding>& list = *findings;
  constexpr size_t kMaxCandidates = 256;  // per resource: keeps pathological inputs linear
  absl::flat_hash_map<ResourceId, std::vector<size_t>> by_source, by_target;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].kind != FaultKind::kMissingOrdering) continue;
    by_source[list[i].source].push_back(i);
    by_target[list[i].target].push_back(i);
  }
  auto implier_of = [&](size_t i) -> std::optional<size_t> {
    const Finding& f = list[i];
    if (f.kind != FaultKind::kMissingOrdering) return std::nullopt;
    auto usable = [&](size_t j) {
      const Finding& g = list[j];
      return j != i && g.confidence <= f.confidence;  // kHigh < kLow
    };
    const auto& same_source = by_source[f.source];
    for (size_t k = 0; k < same_source.size() && k < kMaxCandidates; ++k) {
      size_t j = same_source[k];
      if (usable(j) && graph.HappensBefore(list[j].target, f.target)) return j;
    }
    const auto& same_target = by_target[f.target];
    for (size_t k = 0; k < same_target.size() && k < kMaxCandidates; ++k) {
      size_t j = same_target[k];
      if (usable(j) && graph.HappensBefore(f.source, list[j].source)) return j;
    }
    return std::nullopt;
  };
  std::vector<std::optional<size_t>> implier(list.size());
  for (size_t i = 0; i < list.size(); ++i) implier[i] = implier_of(i);
  std::vector<bool> drop(list.size(), false);
  for (size_t i = 0; i < list.size(); ++i) {
    if (!implier[i]) continue;
    // Walk to a finding nothing implies (implications follow the graph: no cycles).
    size_t root = *implier[i];
    for (size_t steps = 0; implier[root] && steps < list.size(); ++steps) root = *implier[root];
    if (implier[root] || root == i) continue;
    Finding& g = list[root];
    g.also_fixes.emplace_back(list[i].source, list[i].target);
    for (const auto& inst : list[i].instances) g.also_fixes.push_back(inst);
    drop[i] = true;
  }
  DropFindings(drop, findings);
  for (Finding& f : list) std::sort(f.also_fixes.begin(), f.also_fixes.end());
}

void DropFindings(const std::vector<bool>& drop, std::vector<Finding>* findings) {
  std::vector<Finding> kept;
  for (size_t i = 0; i < findings->size(); ++i) {
    if (!drop[i]) kept.push_back(std::move((*findings)[i]));
  }
  *findings = std::move(kept);
}

}  // namespace fsmove::checker
