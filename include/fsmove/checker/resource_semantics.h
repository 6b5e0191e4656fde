// What Puppet resources establish and what they name, as far as ordering goes: which
// types edit one key or line of a shared file (such edits commute), which File resources
// establish a path's content or existence (rather than only look at it), which accounts a
// resource names (the only entries of the name-service databases it depends on), and
// which execs restart or reload a service (refresh relays Puppet's graph does not show).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "fsmove/checker/knowledge.h"

namespace fsmove::checker {

// Types whose resources each edit one key, line, entry or fragment of a file that other
// resources of such types edit too (File_line, Augeas, Ini_setting, Shellvar, Fm_*,
// *_config, Mailalias, Host, Cron, ...). Two such edits give the same file in either order.
bool IsPartialEditor(const catalog::Resource& r);

// A Service resource: what the notifier rule (MN) is about.
inline bool IsService(const catalog::Resource& r) { return r.type == "Service"; }

// A File that sets a path's content (content, source, a link target) or makes it exist as
// a file: its state matters to readers whether or not this run changed it. A directory, a
// File that only manages owner or mode, and `replace => false` establish no content.
bool EstablishesContent(const catalog::Resource& r);

// A File that only makes a plain file exist (no content, source or target): it commutes
// with the partial editors of that file.
bool OnlyEnsuresExistence(const catalog::Resource& r);

// Two Augeas resources whose edits do not commute although each edits its own entries: one
// makes a node (`set`, `clear` or `touch` of a path) that a change of the other selects below
// (`set target[. = 'pictures'] 'pictures'` and `set target[. = 'pictures']/comment ...`,
// rehanone-samba's share and its options). Run first, the other's change makes that node
// itself, without the value the first's path asks for, and the first then makes a second one
// (or Augeas cannot save the file). Paths are taken with each resource's `context`.
bool AugeasMakesWhatTheOtherSelects(const catalog::Resource& x, const catalog::Resource& y);
// The same over changes read once (a caller that compares one resource with many): an Augeas
// change's verb and its path, made absolute as Puppet's augeas provider does.
struct AugeasChange {
  std::string verb;
  std::string path;
};
std::vector<AugeasChange> AugeasChanges(const catalog::Resource& r);
bool AugeasMakesWhatTheOtherSelects(const std::vector<AugeasChange>& x,
                                    const std::vector<AugeasChange>& y);

// A File that makes the file exist and sets nothing else of its content: no content,
// source or target (an empty file where there was none, else owner and mode only).
bool MakesOnlyAnEmptyFile(const catalog::Resource& r);

// The path policies below are rows of the knowledge tables (knowledge.h): each returns the row
// that says so (a rule cites it: RuleContext::Cite), or null.

// A file Ruby's Tempfile made in /tmp or /var/tmp (Dir::Tmpname: PREFIX, the date, "-", the
// pid, "-", a base-36 random, optional suffix: openldap_dbindex20261124-76-93q0su). Its
// finalizer unlinks it when the garbage collector runs, during whatever resource Puppet is
// applying then. Table: ruby_tempfiles.tsv.
const knowledge::Row* IsRubyTempfile(std::string_view path);

// Settings every program reads in passing (time zone, locale, resolver, hosts, OpenSSL's
// defaults), and apt's configuration, which every apt, apt-get and apt-key call reads whatever
// it does: a program that is not a service reading them shows no dependency worth more than
// a low-confidence edge (a service does: it keeps what it read until restarted).
// Table: ambient_configuration.tsv.
const knowledge::Row* IsAmbientConfiguration(std::string_view path);

// A drop-in directory, whose entries its program reads all of by convention: a name ending in
// ".d" (sources.list.d, conf.d, rsyslog.d, cron.d, sudoers.d, ...) or Debian's
// *-enabled / *-available pairs. A listing of another directory (a lookup in /etc, a scan of
// a library directory) says nothing about which entries matter. Table: drop_in_directories.tsv.
const knowledge::Row* IsDropInDirectory(std::string_view path);

// A systemd unit file or drop-in, where PID 1 loads units from: /etc/systemd/system,
// /run/systemd/system, /lib/systemd/system, /usr/lib/systemd/system (and below).
// Table: unit_directories.tsv.
const knowledge::Row* IsUnitDefinition(std::string_view path);

// apt's sources lists (/etc/apt/sources.list, /etc/apt/sources.list.d/): an install uses them
// only through the indexes an update downloaded. Table: apt_sources.tsv.
const knowledge::Row* IsAptSourcesList(std::string_view path);

// What an apt install's candidates come from besides the sources lists: a package index an
// update downloaded (row kind "package-index") or dpkg's list of architectures
// ("architectures"). Table: package_indexes.tsv.
const knowledge::Row* IsPackageIndexInput(std::string_view path);

// Where a package manager parks the package's own version of the configuration file
// `conffile` when it keeps the one it found (dpkg's CONFFILE.dpkg-dist, ucf's .ucf-dist): each
// name with the row that says so. Table: parked_conffiles.tsv.
std::vector<std::pair<std::string, const knowledge::Row*>> ParkedVersionsOf(
    std::string_view conffile);

// A program `caller` runs only when it is installed, doing without it otherwise (apt-key's
// clean-up and gpgconf). Table: optional_programs.tsv (its `by` column is the caller).
const knowledge::Row* IsOptionalProgram(std::string_view caller, std::string_view program);

// A file `daemon` notices a change of and reads again by itself, needing no restart (cron and
// its crontabs). Table: rereading_daemons.tsv (its `by` column is the daemon's program).
const knowledge::Row* IsReadAgainByItself(std::string_view daemon, std::string_view path);

// Runtime state, made afresh at each boot or start: /run, /var/run, /tmp, /var/tmp, /dev/shm
// and below. Table: runtime_state.tsv.
const knowledge::Row* IsRuntimeState(std::string_view path);

// The shell variables a resource sets in an environment file (/etc/default/NAME), as the
// catalog says: a File's whole `content` of `NAME=VALUE` lines (comments and blank lines
// aside), an Augeas of `set NAME VALUE` changes, a File_line's `line`, a Shellvar. nullopt when
// it does anything else (a `source`, a removal, a path in a change) or sets nothing.
std::optional<std::vector<std::pair<std::string, std::string>>> ShellAssignments(
    const catalog::Resource& r);

// A variable of an environment file that only a SysV init script reads, as its switch to start
// the daemon (START_KNOCKD): the units systemd starts do not use it.
// Table: init_script_switches.tsv.
const knowledge::Row* IsInitScriptSwitch(std::string_view variable);

// An Exec that makes PID 1 reload its units: its command runs `systemctl daemon-reload`.
bool IsUnitReload(const catalog::Resource& r);

// /etc/passwd, group, shadow, gshadow, subuid, subgid, their backups, locks and temporary
// copies, and nsswitch.conf: the name-service databases, keyed by entry.
// Table: name_service_databases.tsv.
const knowledge::Row* IsNameServiceDatabase(std::string_view path);

// `user` is a User without a gid and `group` a Group of its name without one: Debian's useradd
// makes that group when the user comes first, Puppet's provider joins it when it exists, and
// either order ends the same. The row says so of `path` (/etc/group, /etc/gshadow), else null.
// Table: user_private_groups.tsv.
const knowledge::Row* IsUserPrivateGroup(const catalog::Resource& user,
                                         const catalog::Resource& group, std::string_view path);

// The accounts a resource names and so looks up (owner, group, user, gid, groups; a
// User's or Group's own name), without root and numeric ids, which need no entry made
// during the run.
std::vector<std::string> NamedAccounts(const catalog::Resource& r);

// The name Puppet's service provider uses (its `name`, else its title).
std::string ServiceName(const catalog::Resource& service);

// The Debian package a Package resource installs: its `name`, else its title, without an
// architecture qualifier (`libfoo1:amd64` is libfoo1).
std::string PackageName(const catalog::Resource& package);

// Whether an Exec's command restarts, reloads or signals the service named `name`
// (service/invoke-rc.d/systemctl/init script/rc-service, pkill/killall -HUP and friends).
bool CommandRestartsService(std::string_view command, std::string_view name);

// The row of control_programs.tsv by which an Exec's command makes the service named `name` take
// up its changed configuration (`syslog-ng-ctl reload`; `systemctl daemon-reload` for a timer),
// or null: a word of the command is a program of the row's file name, and a later word its verb.
const knowledge::Row* ControlProgramRefreshes(std::string_view command, std::string_view name);

// An Exec with `refreshonly => true`: it runs only when something notifies it.
bool IsRefreshOnly(const catalog::Resource& exec);

// An Exec that runs whenever the catalog is applied: not refreshonly, no onlyif, unless or
// creates.
bool RunsEveryApply(const catalog::Resource& exec);

// Whether an Exec's command stops the service named `name` and does not start it again
// (`service snmpd stop; sleep 5`, `systemctl stop app`; not `stop && start`, not restart).
bool CommandStopsService(std::string_view command, std::string_view name);

}  // namespace fsmove::checker
