// The checker's rules, by id, in the order the driver asks them; see registry.h.
//
// The policies they judge by: the path policies of path_filter.h and resource_semantics.h look
// up the knowledge tables (src/checker/knowledge/*.tsv, knowledge.h: each row with its source,
// each table naming the rules that read it; a rule cites the row it used), and the resource
// types and commands are still code there; each is named here by the rule that owns it (the one
// that decides what a change to it means for the findings). The defaults of --ignore-path
// (DefaultIgnores) are no rule: their accesses never reach the rules (resource_accesses.h).
//   enablement-link          PathFilter::IsEnablementLink (enablement_links.tsv)
//   package-manager-state    PathFilter::IsPackageManagerState (package_manager_state.tsv)
//   name-service-entries     IsNameServiceDatabase (name_service_databases.tsv), NamedAccounts
//   transient-file           IsRubyTempfile (ruby_tempfiles.tsv)
//   commuting-edits          IsPartialEditor (also cited by overwritten-before-read,
//                            one-key-edit), OnlyEnsuresExistence
//   unit-directory-walk      IsUnitDefinition (unit_directories.tsv; also read by
//                            reloaded-by-another)
//   reloaded-by-another      IsUnitReload
//   restart-relay            CommandRestartsService, ServiceName; service_relays.h
//   stop-edit-start          CommandStopsService, RunsEveryApply
//   refresh-guaranteed       IsRefreshOnly
//   runtime-state-entry      IsRuntimeState (runtime_state.tsv; also read by
//                            runtime-directory-of-another, made-at-another-start)
//   ambient-configuration    IsAmbientConfiguration (ambient_configuration.tsv)
//   init-script-switch       ShellAssignments, IsInitScriptSwitch (init_script_switches.tsv)
//   empty-file               MakesOnlyAnEmptyFile
//   dependency-package       PackageName
//   conffile-kept            ParkedVersionsOf (parked_conffiles.tsv)
//   package-indexes-unchanged IsPackageIndexInput (package_indexes.tsv), IsAptSourcesList
#include "fsmove/checker/rules/registry.h"

#include <vector>

#include "rule_factories.h"

namespace fsmove::checker {
namespace {

constexpr uint8_t kMor = kOrderingEvidence;
constexpr uint8_t kMn = kNotificationEvidence;
constexpr uint8_t kWw = kWriteWriteEvidence;

std::vector<RegisteredRule> MakeRules() {
  std::vector<RegisteredRule> rules;
  auto add = [&](std::string_view id, std::string_view summary, uint8_t judges,
                 std::unique_ptr<Rule> rule) {
    rules.push_back({id, summary, judges, std::move(rule)});
  };
  // Pairs. restart-relay before refresh-guaranteed: a relay's own pair is no refresh.
  add("package-notifier", "a Package notifies no service without --package-notify",
      kNotificationPair, MakePackageNotifierRule());
  add("package-pair", "apt and dpkg order two Packages and refuse their file conflicts",
      kOrderingPair | kWriteWritePair, MakePackagePairRule());
  add("restart-relay", "an Exec that restarts a service is that service's own doing",
      kNotificationPair | kMor, MakeRestartRelayRule());
  add("refresh-guaranteed", "the graph or a relay refreshes the service after the change",
      kNotificationPair | kOrderingPair, MakeRefreshGuaranteedRule());
  add("stop-edit-start", "an Exec stops the service before the change, and it starts after",
      kNotificationPair | kMor, MakeStopEditStartRule());
  add("graph-orders-pair", "the dependency graph already orders the pair",
      kOrderingPair | kWriteWritePair, MakeGraphOrdersPairRule());
  add("ordered-the-other-way", "the graph orders the pair the other way: a fix closes a cycle",
      kNotificationPair | kOrderingPair, MakeOrderedTheOtherWayRule());
  add("commuting-edits", "edits of distinct entries of one file commute",
      kOrderingPair | kWriteWritePair, MakeCommutingEditsRule());
  // Evidence.
  add("enablement-link", "a service's enablement link is the init system's bookkeeping",
      kMor | kInstallEvidence | kMn | kWw, MakeEnablementLinkRule());
  add("package-manager-state", "dpkg's and apt's state: the package manager orders its own work",
      kMor | kInstallEvidence | kMn | kWw, MakePackageManagerStateRule());
  add("name-service-entries", "passwd and group are needed only for the accounts one names",
      kMor | kMn | kWw, MakeNameServiceEntriesRule());
  add("transient-file", "a file its producer made and removed leaves nothing behind",
      kMor | kMn | kWw, MakeTransientFileRule());
  add("entry-edits-of-one-type", "resources of one editing type edit the entries they name",
      kMor | kWw, MakeEntryEditsOfOneTypeRule());
  add("unit-directory-walk", "a Package's scripts walking the unit directories need no unit", kMor,
      MakeUnitDirectoryWalkRule());
  add("reloaded-by-another", "another daemon-reload after the unit file already loads it", kMor,
      MakeReloadedByAnotherRule());
  add("metadata-only-change", "owner or mode matter only to a lookup, never to a service",
      kMor | kMn | kWw, MakeMetadataOnlyChangeRule());
  add("lookup-is-no-configuration", "a service's lookup of a path reads no configuration", kMn,
      MakeLookupIsNoConfigurationRule());
  add("conffile-kept", "dpkg read a conffile it kept (FILE.dpkg-dist): the package needs no writer",
      kMor, MakeConffileKeptRule());
  add("provided-by-another-before", "another resource before the consumer makes the path exist",
      kMor, MakeProvidedByAnotherBeforeRule());
  add("overwritten-before-read", "another writer replaces the content before it is read",
      kMor | kMn, MakeOverwrittenBeforeReadRule());
  add("runtime-state-entry", "a daemon's pid file or socket in /run is no configuration", kMn,
      MakeRuntimeStateEntryRule());
  add("runtime-directory-of-another",
      "a daemon makes its own directories in /run, which boot empties: another's start is weak",
      kMor, MakeRuntimeDirectoryOfAnotherRule());
  add("made-at-another-start",
      "what a daemon's start made when missing its restart does not change: another's notify is "
      "weak",
      kMn | kWw, MakeMadeAtAnotherStartRule());
  add("init-script-switch",
      "an init script's switch in an environment file means nothing to the unit systemd starts",
      kMor | kMn, MakeInitScriptSwitchRule());
  add("one-key-edit", "a one-key edit read by what is not a service is weak", kMor,
      MakeOneKeyEditRule());
  add("ambient-configuration", "time zone, locale, resolver read in passing are weak", kMor,
      MakeAmbientConfigurationRule());
  add("empty-file", "a File that makes only an empty file sets no setting: weak", kMor | kMn,
      MakeEmptyFileRule());
  add("sources-list-install", "a Package installs from the indexes an update fetched: weak", kMor,
      MakeSourcesListInstallRule());
  add("package-indexes-unchanged",
      "an apt update that wrote no package index, with no source changed, gives an install nothing",
      kMor, MakePackageIndexesUnchangedRule());
  add("dependency-package", "a file of a dependency another Package installs first",
      kMor | kMn | kWw, MakeDependencyPackageRule());
  add("optional-program", "what a program runs only when it is installed is not needed: weak",
      kMor | kMn, MakeOptionalProgramRule());
  add("rereads-on-its-own", "a daemon that rereads a changed file by itself needs no notify",
      kMor | kMn, MakeRereadsOnItsOwnRule());
  return rules;
}

}  // namespace

std::span<const RegisteredRule> Rules() {
  static const auto* rules = new std::vector<RegisteredRule>(MakeRules());
  return *rules;
}

const RegisteredRule* FindRule(std::string_view id) {
  for (const RegisteredRule& r : Rules()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

}  // namespace fsmove::checker
