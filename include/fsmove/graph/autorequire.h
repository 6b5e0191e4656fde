// The automatic relationships Puppet adds at apply time (autorequire/autobefore), one
// function per resource type, each mirroring that type's Ruby block.
#ifndef FSMOVE_GRAPH_AUTOREQUIRE_H_
#define FSMOVE_GRAPH_AUTOREQUIRE_H_

#include <string_view>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "fsmove/catalog/managed_paths.h"

namespace fsmove::graph {

// source is applied before target. For an autorequire the source is the required
// resource; for an autobefore (mount -> files under it) the source is the resource itself.
struct AutoRelation {
  catalog::ResourceId source = 0;
  catalog::ResourceId target = 0;
  std::string_view rule;  // static name, e.g. "file:parent-directory"

  friend bool operator==(const AutoRelation&, const AutoRelation&) = default;
};

struct AutorelationContext {
  const catalog::Catalog& catalog;
  const catalog::ManagedPaths& paths;
};

// Every name an autorelation block returns is looked up with Puppet's catalog.resource
// (title, alias, namevar; see Catalog::Find); names of unmanaged resources give nothing.
// Self-relations are dropped. Rules of Puppet 7.23's core types:

// file: nearest managed ancestor directory File (one, walking up from the parent); the
// `target` File of a link; `owner` User and `group` Group unless numeric.
std::vector<AutoRelation> FileAutorequires(catalog::ResourceId self,
                                           const AutorelationContext& context);
// exec: `cwd` File; Files at `^(/\S+)` and `^"([^"]+)"` in the command (the first element
// when it is an array), `^` being any line start; `^(/\S+)` in each `onlyif`/`unless`
// line; `user` User unless numeric.
std::vector<AutoRelation> ExecAutorequires(catalog::ResourceId self,
                                           const AutorelationContext& context);
// package: `responsefile`, `adminfile` and an absolute `source` File.
std::vector<AutoRelation> PackageAutorequires(catalog::ResourceId self,
                                              const AutorelationContext& context);
// user: `gid` Group (a numeric gid finds the Group whose `gid` equals it), each `groups`
// Group, each `roles` User (comma-separated strings are split, as Puppet does).
std::vector<AutoRelation> UserAutorequires(catalog::ResourceId self,
                                           const AutorelationContext& context);

// Types from Forge modules (puppetlabs cron_core, mount_core, sshkeys_core, stdlib, concat,
// inifile, mysql, postgresql, apt, java_ks, vcsrepo, selinux_core):

// cron: `user` User.
std::vector<AutoRelation> CronAutorequires(catalog::ResourceId self,
                                           const AutorelationContext& context);
// mount: every Mount at an ancestor of its name; and autobefore every File strictly under
// the mount point (a mount at "/" matches none: Puppet's pattern is "^//.").
std::vector<AutoRelation> MountAutorelations(catalog::ResourceId self,
                                             const AutorelationContext& context);
// ssh_authorized_key: `user` User.
std::vector<AutoRelation> SshAuthorizedKeyAutorequires(catalog::ResourceId self,
                                                       const AutorelationContext& context);
// file_line: `path` File.
std::vector<AutoRelation> FileLineAutorequires(catalog::ResourceId self,
                                               const AutorelationContext& context);
// concat_file: `path` (default: title) File.
std::vector<AutoRelation> ConcatFileAutorequires(catalog::ResourceId self,
                                                 const AutorelationContext& context);
// tidy: Puppet adds nothing for the tidy itself, but the Files it generates to remove what
// lies under its `path` (default: title) autorequire the File of that path or, unmanaged, the
// nearest File above it; their blocks are charged to the tidy.
std::vector<AutoRelation> TidyAutorequires(catalog::ResourceId self,
                                           const AutorelationContext& context);
// ini_setting: the File of the parent directory of `path` (not the file itself).
std::vector<AutoRelation> IniSettingAutorequires(catalog::ResourceId self,
                                                 const AutorelationContext& context);
// mysql_database, mysql_user, mysql_plugin, mysql_grant: File[/root/.my.cnf];
// mysql_grant also its `user` Mysql_user.
std::vector<AutoRelation> MysqlAutorequires(catalog::ResourceId self,
                                            const AutorelationContext& context);
// mysql_datadir: Package[mysql-server].
std::vector<AutoRelation> MysqlDatadirAutorequires(catalog::ResourceId self,
                                                   const AutorelationContext& context);
// postgresql_psql: Anchor[postgresql::server::service::end::<instance>] (instance "main").
std::vector<AutoRelation> PostgresqlPsqlAutorequires(catalog::ResourceId self,
                                                     const AutorelationContext& context);
// apt_key: an absolute `source` File.
std::vector<AutoRelation> AptKeyAutorequires(catalog::ResourceId self,
                                             const AutorelationContext& context);
// java_ks: `private_key`, `certificate`, `chain` Files and the directory of `target`.
std::vector<AutoRelation> JavaKsAutorequires(catalog::ResourceId self,
                                             const AutorelationContext& context);
// vcsrepo: Packages git, git-core, mercurial, subversion.
std::vector<AutoRelation> VcsrepoAutorequires(catalog::ResourceId self,
                                              const AutorelationContext& context);
// selmodule: `selmodulepath` File, else <selmoduledir>/<name>.pp
// (selmoduledir defaults to /usr/share/selinux/targeted).
std::vector<AutoRelation> SelmoduleAutorequires(catalog::ResourceId self,
                                                const AutorelationContext& context);
// puppetlabs-apache (older, as Debian ships it) a2mod: `autorequire(:package) {
// catalog.resource(:package, 'httpd') }`.
std::vector<AutoRelation> A2modAutorequires(catalog::ResourceId self,
                                            const AutorelationContext& context);

using AutorelationRule = std::vector<AutoRelation> (*)(catalog::ResourceId,
                                                       const AutorelationContext&);

// The rule for a type (canonical spelling), or nullptr when Puppet adds nothing for it
// (group, service, notify, anchor, concat_fragment, augeas, ... and unknown types).
AutorelationRule AutorelationRuleFor(std::string_view type);

// AutorelationRuleFor(type of self) applied to self.
std::vector<AutoRelation> AutorelationsOf(catalog::ResourceId self,
                                          const AutorelationContext& context);

}  // namespace fsmove::graph

#endif  // FSMOVE_GRAPH_AUTOREQUIRE_H_
