// The fault checker; see checker.h.
// The trace's accesses are first re-keyed by catalog resource (resource_accesses.h). Relations
// are then inferred per resource pair and judged, pair and evidence, by the rules registered in
// rules/registry.cc; what they leave becomes findings. fix_placement.h says where each
// finding's fix goes.
#include "fsmove/checker/checker.h"

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <tuple>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "fmt/format.h"
#include "fsmove/analysis/relations.h"
#include "fsmove/base/terminal_text.h"
#include "fsmove/catalog/managed_paths.h"
#include "fsmove/checker/fingerprint.h"
#include "fsmove/checker/fix_placement.h"
#include "fsmove/checker/path_filter.h"
#include "fsmove/checker/resource_accesses.h"
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/registry.h"
#include "fsmove/checker/rules/rule_context.h"

namespace fsmove::checker {

using analysis::Effect;
using catalog::ResourceId;

std::string_view FaultKindName(FaultKind k) {
  return k == FaultKind::kMissingOrdering ? "MOR" : "MN";
}
std::string_view FaultRuleId(FaultKind k) {
  return k == FaultKind::kMissingOrdering ? "missing-ordering" : "missing-notifier";
}

std::string_view ConfidenceName(Confidence c) { return c == Confidence::kHigh ? "high" : "low"; }

std::string_view FixVerdictName(FixVerdict v) {
  switch (v) {
    case FixVerdict::kNotRun:
      return "not-run";
    case FixVerdict::kVerified:
      return "verified";
    case FixVerdict::kFailed:
      return "failed";
  }
  return "not-run";
}

namespace {

// A Puppet string literal for `text`: single-quoted ('it\'s') when it holds nothing
// base::TerminalSafe would escape, else double-quoted with Puppet's escapes ("\\", "\"",
// "\$", "\n", "\r", "\t", "\u001B", "\u202E"): printable on a terminal as it is, and the same
// string to Puppet when a user copies a fix. A title with control or bidirectional characters
// is shown so in every fix and patch.
std::string PuppetString(std::string_view text) {
  if (base::IsTerminalSafe(text)) return SingleQuote(text);
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '$') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7F) {
      out += fmt::format("\\u{:04X}", byte);
    } else if (byte >= 0x80) {
      // Well-formed UTF-8 is kept, but for the controls a terminal or viewer would obey; a
      // stray byte (which no catalog Puppet wrote holds) as U+FFFD.
      const base::Utf8Char u = base::DecodeUtf8(text, i);
      if (u.length == 0) {
        out += "\\uFFFD";
        ++i;
        continue;
      }
      if (base::IsFormatControl(u.code_point)) {
        out += fmt::format("\\u{:04X}", static_cast<uint32_t>(u.code_point));
      } else {
        out.append(text.substr(i, u.length));
      }
      i += u.length;
      continue;
    } else {
      out += c;
    }
    ++i;
  }
  out += '"';
  return out;
}

}  // namespace

std::string PuppetReference(const catalog::Resource& r) {
  std::string title = r.title;
  if (r.type == "Class") {
    for (char& c : title) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return absl::StrCat(r.type, "[", PuppetString(title), "]");
}

std::string SingleQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

namespace {

// One check: walks the relations, asks the registered rules (rules/registry.h) about each pair
// and each piece of its evidence, keeps what they leave as findings and finishes them.
class CheckRun {
 public:
  CheckRun(const analysis::AnalysisResult& analysis, const catalog::Catalog& catalog,
           const graph::DependencyGraph& graph, const CheckOptions& options,
           const PathFilter& filter)
      : analysis_(analysis),
        catalog_(catalog),
        graph_(graph),
        options_(options),
        filter_(filter),
        managed_(catalog),
        rules_(Rules()),
        dropped_(rules_.size(), 0),
        capped_(rules_.size(), 0) {}

  absl::StatusOr<CheckResult> Run() {
    for (const std::string& ref : options_.ignore_resources) {
      auto id = catalog_.ResolveRef(ref);
      if (!id) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--ignore-resource ", ref, ": no such resource in ", catalog_.source_name()));
      }
      ignored_.insert(*id);
    }
    resources_.emplace(analysis_, catalog_, managed_, filter_, ignored_, &result_.stats);
    analysis::Relations rel = resources_->InferRelations();
    context_.emplace(catalog_, graph_, options_, *resources_);
    CheckNotifications(rel.notification);
    CheckOrderings(rel.ordering);
    CheckWriteWrites(rel.write_write);
    Finish();
    return std::move(result_);
  }

 private:
  bool IsPackage(ResourceId r) const { return catalog_.resource(r).type == "Package"; }
  bool IsService(ResourceId r) const { return checker::IsService(catalog_.resource(r)); }

  Finding& FindingFor(FaultKind kind, ResourceId src, ResourceId dst) {
    auto key = std::make_tuple(kind, src, dst);
    auto it = index_.find(key);
    if (it != index_.end()) return findings_[it->second];
    index_.emplace(key, findings_.size());
    Finding& f = findings_.emplace_back();
    f.kind = kind;
    f.source = src;
    f.target = dst;
    f.applied_in_reverse = resources_->first_line(dst) < resources_->first_line(src);
    f.source_declaration = src;
    f.target_declaration = dst;
    return f;
  }

  bool HasFinding(FaultKind kind, ResourceId src, ResourceId dst) const {
    return index_.contains(std::make_tuple(kind, src, dst));
  }

  // A piece of evidence the rules left, with its strength and the rows that weakened it.
  struct Kept {
    const analysis::Evidence* evidence;
    int strength;
    std::vector<Citation> citations;
  };

  static void AddEvidence(Finding& f, const Kept& k, bool swap) {
    const analysis::Evidence& e = *k.evidence;
    ++f.evidence_total;
    f.evidence.push_back(swap ? PathEvidence{e.path, e.second, e.first, k.strength, k.citations}
                              : PathEvidence{e.path, e.first, e.second, k.strength, k.citations});
  }

  // ---------------------------------------------------------------- asking the rules

  // True when a rule drops the pair; its verdict is counted in the stats.
  bool PairDropped(const PairQuery& q) {
    for (size_t i = 0; i < rules_.size(); ++i) {
      if (!rules_[i].Judges(q.kind)) continue;
      PairVerdict verdict = rules_[i].rule->JudgePair(q, *context_);
      if (verdict == PairVerdict::kKeep) continue;
      ++dropped_[i];
      CheckStats& stats = result_.stats;
      switch (verdict) {
        case PairVerdict::kGuaranteed:
          ++stats.guaranteed;
          break;
        case PairVerdict::kAgainstDeclaredOrder:
          ++stats.against_declared_order;
          break;
        case PairVerdict::kCommutes:
          ++stats.commuting_edits;
          break;
        case PairVerdict::kPackageManagerPair:
          ++stats.package_manager_pairs;
          break;
        case PairVerdict::kKeep:
        case PairVerdict::kDropped:
          break;
      }
      return true;
    }
    return false;
  }

  // The evidence's strength once every rule that judges its kind had its say: 0 when one
  // dropped it (the first to, in table order, is counted), else the lowest ceiling. The rules
  // that lowered it by a knowledge table's row go to `citations`.
  int Strength(const EvidenceQuery& q, std::vector<Citation>* citations) {
    int s = q.strength;
    for (size_t i = 0; i < rules_.size(); ++i) {
      if (!rules_[i].Judges(q.kind)) continue;
      int ceiling = rules_[i].rule->MaxStrength(q, *context_);
      const knowledge::Row* row = context_->TakeCitation();
      if (ceiling <= 0) {
        ++dropped_[i];
        return 0;
      }
      if (ceiling < s) {
        ++capped_[i];
        s = ceiling;
        if (row != nullptr) citations->push_back({rules_[i].id, row});
      }
    }
    return s;
  }

  // What an ordering's evidence shows before the rules: a removal needs the path most; a
  // listing shows an entry's existence at most; else what the consumer's access was.
  static int OrderingBaseStrength(const analysis::Access& c) {
    if (c.effect == Effect::kExpunged) return kStrongest;
    int s = analysis::AccessStrength(c);
    return c.listing ? std::min(s, 2) : s;
  }

  // ---------------------------------------------------------------- the three checks

  void CheckNotifications(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.notification_relations;
      if (PairDropped({kNotificationPair, r.first, r.second})) continue;
      std::vector<Kept> kept;
      for (const auto& e : r.evidence) {
        // A service keeps what it read; an entry made in a directory is weak (a log file).
        int base = e.second.parent ? 1 : analysis::AccessStrength(e.second);
        std::vector<Citation> cited;
        int s = Strength({kNotificationEvidence, e, r.first, r.second, base}, &cited);
        if (s > 0) kept.push_back({&e, s, std::move(cited)});
      }
      if (kept.empty()) {
        ++result_.stats.no_dependency;
        continue;
      }
      Finding& f = FindingFor(FaultKind::kMissingNotifier, r.first, r.second);
      for (const Kept& k : kept) AddEvidence(f, k, false);
    }
  }

  void CheckOrderings(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.ordering_relations;
      ResourceId src = r.first, dst = r.second;
      // Direction: a package that installs files into a directory another resource created
      // (because this run applied it first) is meant to come first.
      bool swap =
          !IsPackage(r.first) && IsPackage(r.second) &&
          std::all_of(r.evidence.begin(), r.evidence.end(), [&](const analysis::Evidence& e) {
            return resources_->WroteInto(r.second, e.path);
          });
      if (swap) std::swap(src, dst);
      // Two packages are never turned round, nor the pair of an MN (a Service's): their rule
      // (package-pair) sees them before this.
      if (HasFinding(FaultKind::kMissingNotifier, src, dst)) continue;  // its fix orders too
      if (PairDropped({kOrderingPair, src, dst})) continue;
      std::vector<Kept> kept;
      for (const auto& e : r.evidence) {
        std::vector<Citation> cited;
        int s = swap ? Strength({kInstallEvidence, e, src, dst, 2}, &cited)
                     : Strength({kOrderingEvidence, e, src, dst, OrderingBaseStrength(e.second)},
                                &cited);
        if (s > 0) kept.push_back({&e, s, std::move(cited)});
      }
      if (kept.empty()) {
        ++result_.stats.no_dependency;
        continue;
      }
      Finding& f = FindingFor(FaultKind::kMissingOrdering, src, dst);
      for (const Kept& k : kept) AddEvidence(f, k, swap);
    }
  }

  void CheckWriteWrites(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.write_write_pairs;
      ResourceId a = r.first, b = r.second;
      if (PairDropped({kWriteWritePair, a, b})) continue;
      std::vector<Kept> kept;
      for (const auto& e : r.evidence) {
        // Written by both: as strong as evidence goes whatever a rule's ceiling, and so cited
        // for nothing.
        std::vector<Citation> ignored;
        if (Strength({kWriteWriteEvidence, e, a, b, kStrongest}, &ignored) > 0) {
          kept.push_back({&e, kStrongest, {}});
        }
      }
      if (kept.empty()) {
        ++result_.stats.no_dependency;
        continue;
      }
      const bool swap = WriteWriteTurnsRound(a, b, *kept.front().evidence);
      ResourceId src = swap ? b : a, dst = swap ? a : b;
      FaultKind kind = HasFinding(FaultKind::kMissingNotifier, src, dst)
                           ? FaultKind::kMissingNotifier
                           : FaultKind::kMissingOrdering;
      if (kind == FaultKind::kMissingOrdering && HasFinding(kind, dst, src)) continue;
      Finding& f = FindingFor(kind, src, dst);
      if (f.evidence.empty()) f.write_write = true;
      for (const Kept& k : kept) AddEvidence(f, k, swap);
    }
  }

  // Direction of a write-write finding: the package ships the default; a service's daemon
  // comes after whatever sets up the files it writes (log owner and mode); an edit of one key
  // comes after whatever writes the whole file; the resource that manages the path has the
  // last word; otherwise the order this run used. True: `b` first.
  bool WriteWriteTurnsRound(ResourceId a, ResourceId b, const analysis::Evidence& e0) const {
    if (IsPackage(a) != IsPackage(b)) return IsPackage(b);
    if (IsService(a) != IsService(b)) return IsService(a);
    if (IsPartialEditor(catalog_.resource(a)) != IsPartialEditor(catalog_.resource(b))) {
      return IsPartialEditor(catalog_.resource(a));  // an edit of one key goes on top
    }
    if (resources_->Manages(a, e0.path) != resources_->Manages(b, e0.path)) {
      return resources_->Manages(a, e0.path);
    }
    return e0.second.line < e0.first.line;
  }

  static int MaxStrength(const Finding& f) {
    int s = 0;
    for (const PathEvidence& e : f.evidence) s = std::max(s, e.strength);
    return s;
  }

  void Finish() {
    // Never both A -> B and B -> A: the weaker direction goes (on a tie, the later one).
    std::vector<bool> drop(findings_.size(), false);
    for (size_t i = 0; i < findings_.size(); ++i) {
      const Finding& f = findings_[i];
      auto it = index_.find(std::make_tuple(FaultKind::kMissingOrdering, f.target, f.source));
      if (it == index_.end() || it->second == i || drop[i] || drop[it->second]) continue;
      const Finding& g = findings_[it->second];
      bool keep_f = f.kind == FaultKind::kMissingNotifier || MaxStrength(f) > MaxStrength(g) ||
                    (MaxStrength(f) == MaxStrength(g) && i < it->second);
      drop[keep_f ? it->second : i] = true;
      ++result_.stats.reverse_pairs_dropped;
    }
    DropFindings(drop, &findings_);
    FixPlacement placement(catalog_, graph_);
    for (Finding& f : findings_) {
      // The strongest evidence first: content read after a write, then a failed open, then
      // a lookup; paths in order within each rank.
      std::stable_sort(f.evidence.begin(), f.evidence.end(),
                       [](const PathEvidence& x, const PathEvidence& y) {
                         if (x.strength != y.strength) return x.strength > y.strength;
                         return x.path < y.path;
                       });
      f.confidence = MaxStrength(f) >= 2 ? Confidence::kHigh : Confidence::kLow;
      placement.Place(f);
      if (graph_.HappensBefore(f.target_declaration, f.source_declaration)) {
        ++result_.stats.fixes_closing_cycles;
      }
      for (const PathEvidence& e : f.evidence) f.paths.push_back(e.path);
      std::sort(f.paths.begin(), f.paths.end());
      f.paths.erase(std::unique(f.paths.begin(), f.paths.end()), f.paths.end());
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
    GroupInstances(catalog_, &findings_);
    FoldImpliedFixes(graph_, &findings_);
    for (const Finding& f : findings_) {
      if (f.confidence == Confidence::kLow) ++result_.stats.low_confidence;
    }
    result_.findings = std::move(findings_);
    for (size_t i = 0; i < rules_.size(); ++i) {
      const std::string id(rules_[i].id);
      if (dropped_[i] > 0) result_.stats.dropped_by_rule[id] = dropped_[i];
      if (capped_[i] > 0) result_.stats.capped_by_rule[id] = capped_[i];
    }
  }

  const analysis::AnalysisResult& analysis_;
  const catalog::Catalog& catalog_;
  const graph::DependencyGraph& graph_;
  const CheckOptions& options_;
  const PathFilter& filter_;
  catalog::ManagedPaths managed_;
  absl::flat_hash_set<ResourceId> ignored_;
  std::optional<ResourceAccesses> resources_;  // made by Run()
  std::optional<RuleContext> context_;         // made by Run(), after the relations
  std::span<const RegisteredRule> rules_;
  std::vector<size_t> dropped_;  // per rule: pairs and pieces of evidence it dropped
  std::vector<size_t> capped_;   // per rule: pieces of evidence it weakened
  std::vector<Finding> findings_;
  std::map<std::tuple<FaultKind, ResourceId, ResourceId>, size_t> index_;
  CheckResult result_;
};

}  // namespace

absl::StatusOr<CheckResult> Check(const analysis::AnalysisResult& analysis,
                                  const catalog::Catalog& catalog,
                                  const graph::DependencyGraph& graph,
                                  const CheckOptions& options) {
  auto filter = PathFilter::Create(options.ignore_paths, options.default_ignores);
  if (!filter.ok()) return filter.status();
  CheckRun run(analysis, catalog, graph, options, *filter);
  return run.Run();
}

}  // namespace fsmove::checker
