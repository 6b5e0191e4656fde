// The fault checker; see checker.h.
// The trace's accesses are first re-keyed by catalog resource (resource_accesses.h). Relations
// are then inferred per resource pair and checked against the dependency graph by the three
// rules here; fix_placement.h says where each finding's fix goes.
#include "fsmove/checker/checker.h"

#include <algorithm>
#include <map>
#include <optional>
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
#include "fsmove/fstrace/lowering.h"

namespace fsmove::checker {

using analysis::Access;
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
        managed_(catalog) {}

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
    analysis::RelationOptions ro;
    ro.max_evidence = 1u << 20;  // filtered below, then capped per finding
    ro.is_service = [this](analysis::BlockId b) { return IsService(b); };
    analysis::Relations rel =
        analysis::InferRelations(resources_->accesses(), resources_->resource_blocks(), ro);
    resources_->AddListingRelations(&rel);
    FindRestartRelays();
    CheckNotifications(rel.notification);
    CheckOrderings(rel.ordering);
    CheckWriteWrites(rel.write_write);
    Finish();
    return std::move(result_);
  }

 private:
  // The accesses of `path`, by resource.
  const absl::InlinedVector<Access, 1>& Accesses(std::string_view path) {
    analysis::AccessMap& map = resources_->accesses();
    return map.accesses(map.Intern(path));
  }

  bool IsPackage(ResourceId r) const { return catalog_.resource(r).type == "Package"; }
  bool IsService(ResourceId r) const { return checker::IsService(catalog_.resource(r)); }

  // The Execs that make PID 1 reload its units (`systemctl daemon-reload`), once.
  const std::vector<ResourceId>& UnitReloads() {
    if (!unit_reloads_) {
      unit_reloads_.emplace();
      for (ResourceId r = 0; r < catalog_.size(); ++r) {
        if (IsUnitReload(catalog_.resource(r))) unit_reloads_->push_back(r);
      }
    }
    return *unit_reloads_;
  }

  // A reload of PID 1 reads every unit file and drop-in, so it "needs" each one written
  // before it; but a unit file needs only *a* reload after it. When another reload is
  // ordered after the producer already (the drop-in notifies its own), this one's order
  // against the producer changes nothing systemd loads.
  bool ReloadedByAnother(ResourceId producer, ResourceId consumer, std::string_view path) {
    if (!IsUnitDefinition(path) || !IsUnitReload(catalog_.resource(consumer))) return false;
    for (ResourceId other : UnitReloads()) {
      if (other != consumer && graph_.HappensBefore(producer, other)) return true;
    }
    return false;
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
    f.applied_in_reverse = resources_->first_line(dst) < resources_->first_line(src);
    f.source_declaration = src;
    f.target_declaration = dst;
    return f;
  }

  bool HasFinding(FaultKind kind, ResourceId src, ResourceId dst) const {
    return index_.contains(std::make_tuple(kind, src, dst));
  }

  static void AddEvidence(Finding& f, const analysis::Evidence& e, bool swap, int strength) {
    ++f.evidence_total;
    f.evidence.push_back(swap ? PathEvidence{e.path, e.second, e.first, strength}
                              : PathEvidence{e.path, e.first, e.second, strength});
  }

  // ---------------------------------------------------------------- evidence semantics

  // A path every resource may consume but whose producers the pair does not depend on.
  bool PackageManagerNoise(ResourceId producer, std::string_view path) const {
    // Another service's enablement link, whoever made it (a Package's maintainer scripts, a
    // Service's `enable`, an Exec running systemctl enable).
    if (PathFilter::IsEnablementLink(path)) return true;
    // dpkg's and apt's databases and caches as a package install rewrites them: apt and
    // dpkg order their own work. An apt update (an Exec) that rewrites apt's lists stays.
    return IsPackage(producer) && PathFilter::IsPackageManagerState(path) &&
           !IsNameServiceDatabase(path);  // by entry instead: see NamesNoAccountMadeHere
  }

  // The name-service databases are keyed by entry: the consumer depends on the producer
  // only through the accounts it names (owner => mysql after the package that adds mysql).
  // An account the catalog manages (User[git], Group[git]) is made by that resource, which
  // Puppet autorequires; other writers of the databases add other entries.
  bool NamesNoAccountMadeHere(ResourceId producer, ResourceId consumer,
                              std::string_view path) const {
    if (!IsNameServiceDatabase(path)) return false;
    for (const std::string& account : NamedAccounts(catalog_.resource(consumer))) {
      std::optional<ResourceId> user = catalog_.Find("User", account);
      std::optional<ResourceId> group = catalog_.Find("Group", account);
      if ((!user && !group) || user == producer || group == producer) return false;
    }
    return true;
  }

  // Every resource (other than `except`) that establishes `path` for what comes after it:
  // a real producer of its content or existence, or a package whose install used the path
  // (it ships it, or ships files inside it).
  bool ProvidedByAnotherBefore(std::string_view path, ResourceId except, ResourceId consumer) {
    const auto& list = Accesses(path);
    for (const Access& a : list) {
      if (a.block == except || a.block == consumer) continue;
      bool provides = (a.effect == Effect::kProduced && !a.shallow) ||
                      (IsPackage(a.block) && !a.failed && a.effect == Effect::kConsumed);
      if (provides && graph_.HappensBefore(a.block, consumer)) return true;
    }
    return false;
  }

  // Another whole-content writer of `path` that always runs after `producer` and before
  // `consumer`: the consumer never reads `producer`'s version.
  bool OverwrittenBeforeRead(std::string_view path, ResourceId producer, ResourceId consumer) {
    const auto& list = Accesses(path);
    for (const Access& a : list) {
      if (a.block == producer || a.block == consumer || a.effect != Effect::kProduced ||
          a.shallow || IsPartialEditor(catalog_.resource(a.block))) {
        continue;
      }
      if (graph_.HappensBefore(producer, a.block) && graph_.HappensBefore(a.block, consumer)) {
        return true;
      }
    }
    return false;
  }

  // Edits of distinct keys or lines of one file commute, and so does a File that only
  // makes the file exist with the editors of its lines.
  bool Commute(ResourceId a, ResourceId b) const {
    const catalog::Resource& x = catalog_.resource(a);
    const catalog::Resource& y = catalog_.resource(b);
    bool ex = IsPartialEditor(x), ey = IsPartialEditor(y);
    return (ex && ey) || (ex && OnlyEnsuresExistence(y)) || (ey && OnlyEnsuresExistence(x));
  }

  // Two resources of one type that is not File, Exec, Package, Service, User or Group, the
  // producer looking at or reading the file before it writes it: edits of the entries their
  // distinct titles name (an ini_setting subtype whatever its name: openstacklib's
  // Neutron_agent_ovs['DEFAULT/x']). What the other reads of the file is its own entry.
  bool EntryEditsOfOneType(ResourceId producer, ResourceId other, std::string_view path) {
    const catalog::Resource& x = catalog_.resource(producer);
    if (x.type != catalog_.resource(other).type) return false;
    for (std::string_view t : {"File", "Exec", "Package", "Service", "User", "Group"}) {
      if (x.type == t) return false;
    }
    uint64_t read = 0;
    for (const Access& a : Accesses(path)) {
      if (a.block != producer) continue;
      // A read of it, or the look that found none (the first edit creates the file).
      if (a.effect == Effect::kConsumed && !a.parent && read == 0) read = a.line;
      if (a.effect == Effect::kProduced && !a.shallow && read != 0 && a.line > read) return true;
    }
    return false;
  }

  // How strongly one piece of ordering evidence shows that `consumer` needs `producer`
  // first: 0 when it does not (see the rules inside), else AccessStrength-like ranks:
  // 3 content read after a write or an entry made in a directory the producer created,
  // 2 a failed open, 1 a lookup or metadata only.
  int OrderingStrength(const analysis::Evidence& e, ResourceId producer, ResourceId consumer) {
    const Access& p = e.first;
    const Access& c = e.second;
    if (PackageManagerNoise(producer, e.path)) return 0;
    if (NamesNoAccountMadeHere(producer, consumer, e.path)) return 0;
    if (Transient(producer, e.path)) return 0;
    if (IsRestartRelay(producer, consumer) || IsRestartRelay(consumer, producer)) return 0;
    if (EntryEditsOfOneType(producer, consumer, e.path)) return 0;
    // deb-systemd-helper (purge, update-state) and systemctl walk every unit directory from
    // a package's maintainer scripts, looking at each entry: what a unit's start reads of its
    // definition is content, and stays.
    if (IsPackage(consumer) && IsUnitDefinition(e.path) && c.effect == Effect::kConsumed &&
        (c.listing || c.shallow || c.parent)) {
      return 0;
    }
    if (ReloadedByAnother(producer, consumer, e.path)) return 0;
    // A stop acts on the daemon the last start made: the configuration it reads now is not
    // what that daemon runs with. Only the programs it runs are its needs.
    if (stopped_by_.contains(consumer) && fstrace::SyscallName(c.syscall) != "execve") return 0;
    if (p.shallow) {  // only metadata changed: only a lookup of it can depend on that
      return c.effect == Effect::kConsumed && c.shallow && !c.failed ? 1 : 0;
    }
    bool existence_only = c.effect == Effect::kConsumed && (c.parent || c.failed || c.shallow);
    if (existence_only && ProvidedByAnotherBefore(e.path, producer, consumer)) return 0;
    if (c.effect == Effect::kConsumed && !existence_only &&
        OverwrittenBeforeRead(e.path, producer, consumer)) {
      return 0;
    }
    if (c.effect == Effect::kExpunged) return 3;
    int s = analysis::AccessStrength(c);
    if (c.listing) s = std::min(s, 2);  // the entry's existence, seen in a listing
    // A one-key edit of a file that already existed, read by something other than a
    // service: the reader works in either order and sees one setting differ. Weak.
    if (s == 3 && IsPartialEditor(catalog_.resource(producer)) && !IsService(consumer)) s = 1;
    if (IsAmbientConfiguration(e.path) && !IsService(consumer)) s = std::min(s, 1);
    if (std::optional<int> d = DependencyPackageStrength(producer, consumer, e.path)) {
      s = std::min(s, *d);
    }
    return s;
  }

  // A file apt unpacked for a Package resource from another Debian package than the one it
  // names: a dependency it pulled in (the shared library package of a client). Whoever else
  // installs that package gets the file too: nothing (0) when a Package resource naming it is
  // ordered before the consumer; weak (1) when another Package resource is, whose package may
  // depend on it as well (apt knows, the trace does not); not this rule's case otherwise.
  std::optional<int> DependencyPackageStrength(ResourceId producer, ResourceId consumer,
                                               const std::string& path) const {
    if (!IsPackage(producer)) return std::nullopt;
    const std::string* package = resources_->UnpackedFrom(path);
    if (package == nullptr || *package == PackageName(catalog_.resource(producer))) {
      return std::nullopt;
    }
    auto [memo, fresh] =
        dependency_strength_.try_emplace(std::make_tuple(producer, consumer, *package));
    if (!fresh) return memo->second;
    bool another_before = false;
    for (ResourceId r = 0; r < catalog_.size(); ++r) {
      if (r == producer || !IsPackage(r) || !graph_.HappensBefore(r, consumer)) continue;
      if (PackageName(catalog_.resource(r)) == *package) return memo->second = 0;
      another_before = true;
    }
    if (another_before) memo->second = 1;
    return memo->second;
  }

  // The producer created the path and removed it again (a scratch or temporary file): it
  // leaves nothing behind for anyone. A Ruby Tempfile the producer made is its scratch file
  // whoever's block its finalizer ran in.
  bool Transient(ResourceId producer, std::string_view path) {
    const auto& list = Accesses(path);
    const bool tempfile = IsRubyTempfile(path);
    uint64_t produced = 0, expunged = 0;
    for (const Access& a : list) {
      if (a.effect == Effect::kExpunged && (a.block == producer || tempfile)) {
        expunged = std::max(expunged, a.line);
      }
      if (a.block != producer) continue;
      if (a.effect == Effect::kProduced && !a.shallow) produced = std::max(produced, a.line);
    }
    return produced != 0 && expunged > produced;
  }

  // A refreshonly exec runs only when something notifies it; if everything that does also
  // refreshes `service`, the service is refreshed whenever the exec changes anything.
  bool TriggersRefreshService(ResourceId exec, ResourceId service) const {
    const catalog::Resource& r = catalog_.resource(exec);
    if (r.type != "Exec" || !IsRefreshOnly(r)) return false;
    size_t triggers = 0;
    for (const catalog::Relationship& rel : catalog_.relationships()) {
      if (rel.target != exec || rel.kind != catalog::RelationshipKind::kNotify) continue;
      ++triggers;
      if (!Refreshes(rel.source, service)) return false;
    }
    return triggers > 0;
  }

  // ---------------------------------------------------------------- refresh relays

  // Execs that restart, reload or signal a service: by their command, or because their
  // processes ran the service's init script. A notify that reaches such an exec refreshes
  // the service, and the exec's own writes are the service's restart.
  void FindRestartRelays() {
    for (ResourceId s : catalog_.ResourcesOfType("Service")) {
      std::string name = ServiceName(catalog_.resource(s));
      absl::flat_hash_set<ResourceId> ran_script;
      for (const Access& a : Accesses("/etc/init.d/" + name)) {
        if (fstrace::SyscallName(a.syscall) == "execve") ran_script.insert(a.block);
      }
      for (ResourceId e : catalog_.ResourcesOfType("Exec")) {
        std::optional<std::string> command = catalog_.resource(e).CommandLine();
        if (command && CommandStopsService(*command, name)) {  // ran the script to stop
          stop_execs_[s].push_back(e);
          stopped_by_.insert(e);
        } else if (ran_script.contains(e) || (command && CommandRestartsService(*command, name))) {
          restart_relays_[s].push_back(e);
        }
      }
    }
  }

  bool RestartsService(ResourceId exec, ResourceId service) const {
    auto it = restart_relays_.find(service);
    return it != restart_relays_.end() &&
           std::find(it->second.begin(), it->second.end(), exec) != it->second.end();
  }

  // The stop-edit-start idiom: an exec that runs on every apply stops service `s` before
  // `producer` changes anything, and `s` is applied after it. The daemon never runs with
  // the old content while the new is in place, so no refresh is missing.
  bool StoppedAround(ResourceId producer, ResourceId s) const {
    auto it = stop_execs_.find(s);
    if (it == stop_execs_.end() || !graph_.HappensBefore(producer, s)) return false;
    return std::any_of(it->second.begin(), it->second.end(), [&](ResourceId e) {
      return RunsEveryApply(catalog_.resource(e)) && graph_.HappensBefore(e, producer);
    });
  }

  // `a` refreshes service `s`: through the graph, or through an exec that restarts it.
  bool Refreshes(ResourceId a, ResourceId s) const {
    if (graph_.Notifies(a, s)) return true;
    auto it = restart_relays_.find(s);
    if (it == restart_relays_.end()) return false;
    for (ResourceId e : it->second) {
      if (e == a || graph_.Notifies(a, e)) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- the three checks

  void CheckNotifications(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.notification_relations;
      if (IsPackage(r.first) && !options_.package_notify) continue;
      // The exec is the service's own restart: what it writes is the daemon's doing.
      if (IsRestartRelay(r.first, r.second)) {
        ++result_.stats.guaranteed;
        continue;
      }
      if (Refreshes(r.first, r.second) || TriggersRefreshService(r.first, r.second)) {
        ++result_.stats.guaranteed;
        refreshed_.insert(std::make_pair(r.first, r.second));
        continue;
      }
      if (StoppedAround(r.first, r.second)) {
        ++result_.stats.guaranteed;
        continue;
      }
      // The service is applied before the producer on purpose: a notify would close a cycle.
      if (graph_.HappensBefore(r.second, r.first)) {
        ++result_.stats.against_declared_order;
        continue;
      }
      std::vector<std::pair<const analysis::Evidence*, int>> kept;
      for (const auto& e : r.evidence) {
        if (PackageManagerNoise(r.first, e.path) ||
            NamesNoAccountMadeHere(r.first, r.second, e.path)) {
          continue;
        }
        if (e.first.shallow) continue;  // a changed owner or mode needs no restart
        // A service runs stale only on content it read: a lookup is no configuration.
        if (e.second.shallow || e.second.failed) continue;
        if (Transient(r.first, e.path)) continue;
        if (OverwrittenBeforeRead(e.path, r.first, r.second)) continue;
        // A directory it made an entry in: its log file in a log directory the producer made
        // (the paper's "log files": a daemon that keeps the old one open writes where the new
        // one is not) is kept, low; its pid file or socket in runtime state (/run, /tmp) is
        // no configuration.
        if (e.second.parent && IsRuntimeState(e.path)) continue;
        int strength = e.second.parent ? 1 : analysis::AccessStrength(e.second);
        // A File with no content, source or target makes at most an empty file: the
        // daemon reads no setting from it. Kept, weak: a flag file's existence may matter.
        if (MakesOnlyAnEmptyFile(catalog_.resource(r.first))) strength = std::min(strength, 1);
        if (std::optional<int> d = DependencyPackageStrength(r.first, r.second, e.path)) {
          if (*d == 0) continue;
          strength = std::min(strength, *d);
        }
        kept.emplace_back(&e, strength);
      }
      if (kept.empty()) {
        ++result_.stats.no_dependency;
        continue;
      }
      Finding& f = FindingFor(FaultKind::kMissingNotifier, r.first, r.second);
      for (const auto& [e, s] : kept) AddEvidence(f, *e, false, s);
    }
  }

  bool IsRestartRelay(ResourceId a, ResourceId service) const {
    return catalog_.resource(a).type == "Exec" && RestartsService(a, service);
  }

  void CheckOrderings(const std::vector<analysis::Relation>& list) {
    for (const analysis::Relation& r : list) {
      ++result_.stats.ordering_relations;
      // Two packages: apt and dpkg order them (dependencies, triggers), not Puppet.
      if (IsPackage(r.first) && IsPackage(r.second)) {
        ++result_.stats.package_manager_pairs;
        continue;
      }
      ResourceId src = r.first, dst = r.second;
      // Direction: a package that installs files into a directory another resource created
      // (because this run applied it first) is meant to come first.
      bool swap =
          !IsPackage(r.first) && IsPackage(r.second) &&
          std::all_of(r.evidence.begin(), r.evidence.end(), [&](const analysis::Evidence& e) {
            return resources_->WroteInto(r.second, e.path);
          });
      if (swap) std::swap(src, dst);
      if (HasFinding(FaultKind::kMissingNotifier, src, dst)) continue;  // its fix orders too
      // The service is refreshed after every change of src (see CheckNotifications).
      if (graph_.HappensBefore(src, dst) || refreshed_.contains(std::make_pair(src, dst))) {
        ++result_.stats.guaranteed;
        continue;
      }
      // Ordered the other way on purpose: the suggested edge would close a cycle.
      if (graph_.HappensBefore(dst, src)) {
        ++result_.stats.against_declared_order;
        continue;
      }
      if (Commute(src, dst)) {
        ++result_.stats.commuting_edits;
        continue;
      }
      std::vector<std::pair<const analysis::Evidence*, int>> kept;
      for (const auto& e : r.evidence) {
        int s = swap ? (PackageManagerNoise(src, e.path) ? 0 : 2) : OrderingStrength(e, src, dst);
        if (s > 0) kept.emplace_back(&e, s);
      }
      if (kept.empty()) {
        ++result_.stats.no_dependency;
        continue;
      }
      Finding& f = FindingFor(FaultKind::kMissingOrdering, src, dst);
      for (const auto& [e, s] : kept) AddEvidence(f, *e, swap, s);
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
      if (Commute(a, b)) {
        ++result_.stats.commuting_edits;
        continue;
      }
      std::vector<const analysis::Evidence*> kept;
      for (const auto& e : r.evidence) {
        // Caches and databases both rebuild; owner or mode set twice is no content race;
        // the name-service databases are keyed by entry.
        if (PathFilter::IsPackageManagerState(e.path) || IsNameServiceDatabase(e.path)) continue;
        if (e.first.shallow || e.second.shallow) continue;
        if (Transient(a, e.path) || Transient(b, e.path)) continue;  // scratch files
        if (EntryEditsOfOneType(a, b, e.path) && EntryEditsOfOneType(b, a, e.path)) continue;
        kept.push_back(&e);
      }
      if (kept.empty()) {
        ++result_.stats.no_dependency;
        continue;
      }
      // Direction: the package ships the default; a service's daemon comes after whatever
      // sets up the files it writes (log owner and mode); an edit of one key comes after
      // whatever writes the whole file; the resource that manages the path has the last
      // word; otherwise the order this run used.
      const analysis::Evidence& e0 = *kept.front();
      bool swap;
      if (IsPackage(a) != IsPackage(b)) {
        swap = IsPackage(b);
      } else if (IsService(a) != IsService(b)) {
        swap = IsService(a);
      } else if (IsPartialEditor(catalog_.resource(a)) != IsPartialEditor(catalog_.resource(b))) {
        swap = IsPartialEditor(catalog_.resource(a));  // an edit of one key goes on top
      } else if (resources_->Manages(a, e0.path) != resources_->Manages(b, e0.path)) {
        swap = resources_->Manages(a, e0.path);
      } else {
        swap = e0.second.line < e0.first.line;
      }
      ResourceId src = swap ? b : a, dst = swap ? a : b;
      FaultKind kind = HasFinding(FaultKind::kMissingNotifier, src, dst)
                           ? FaultKind::kMissingNotifier
                           : FaultKind::kMissingOrdering;
      if (kind == FaultKind::kMissingOrdering && HasFinding(kind, dst, src)) continue;
      Finding& f = FindingFor(kind, src, dst);
      if (f.evidence.empty()) f.write_write = true;
      for (const analysis::Evidence* e : kept) AddEvidence(f, *e, swap, 3);
    }
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
  }

  const analysis::AnalysisResult& analysis_;
  const catalog::Catalog& catalog_;
  const graph::DependencyGraph& graph_;
  const CheckOptions& options_;
  const PathFilter& filter_;
  std::optional<std::vector<ResourceId>> unit_reloads_;
  catalog::ManagedPaths managed_;
  absl::flat_hash_set<ResourceId> ignored_;
  std::optional<ResourceAccesses> resources_;  // made by Run()
  // DependencyPackageStrength by (producer, consumer, dependency package).
  mutable absl::flat_hash_map<std::tuple<ResourceId, ResourceId, std::string>, std::optional<int>>
      dependency_strength_;
  std::vector<Finding> findings_;
  absl::flat_hash_map<ResourceId, std::vector<ResourceId>> restart_relays_;  // service -> execs
  absl::flat_hash_map<ResourceId, std::vector<ResourceId>> stop_execs_;      // service -> execs
  absl::flat_hash_set<ResourceId> stopped_by_;                        // execs that stop a service
  absl::flat_hash_set<std::pair<ResourceId, ResourceId>> refreshed_;  // (changer, service)
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
