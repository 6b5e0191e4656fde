// The automatic relationships Puppet adds at apply time (autorequire/autobefore), one
// function per resource type, each mirroring that type's Ruby block.
#include "fsmove/graph/autorequire.h"

#include <charconv>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "fsmove/catalog/file_path.h"

namespace fsmove::graph {
namespace {

using catalog::ResourceId;

// Collects relations for one resource, dropping unmanaged names and self-relations.
std::optional<std::string> AccountName(const catalog::Resource& resource,
                                       std::string_view parameter);

class Relations {
 public:
  Relations(ResourceId self, const AutorelationContext& context) : self_(self), context_(context) {}

  // autorequire: the named resource comes first.
  void Require(std::string_view type, std::string_view name, std::string_view rule) {
    if (std::optional<ResourceId> other = context_.catalog.Find(type, name)) {
      Add(*other, self_, rule);
    } else if (type == "File") {
      RequireGeneratedFile(name);
    }
  }
  void RequireId(ResourceId other, std::string_view rule) { Add(other, self_, rule); }
  // What a File of `path` that this resource generates at apply time autorequires (the
  // generated File's block is charged to this resource): the nearest File above `path`, and
  // the User and Group named by this resource's `owner_parameter` and `group_parameter`
  // (empty: none).
  void RequireAsGeneratedFile(std::string_view path, std::string_view owner_parameter,
                              std::string_view group_parameter) {
    if (!catalog::IsAbsolutePath(path)) return;
    const std::string canonical = catalog::CanonicalFilePath(path);
    if (std::optional<ResourceId> parent = context_.paths.NearestFileAncestor(canonical)) {
      Add(*parent, self_, "generated-file:parent-directory");
    }
    if (!owner_parameter.empty()) {
      if (std::optional<std::string> owner = AccountName(self(), owner_parameter)) {
        if (std::optional<ResourceId> user = context_.catalog.Find("User", *owner))
          Add(*user, self_, "generated-file:owner");
      }
    }
    if (!group_parameter.empty()) {
      if (std::optional<std::string> group = AccountName(self(), group_parameter)) {
        if (std::optional<ResourceId> g = context_.catalog.Find("Group", *group))
          Add(*g, self_, "generated-file:group");
      }
    }
  }
  // autobefore: this resource comes first.
  void BeforeId(ResourceId other, std::string_view rule) { Add(self_, other, rule); }

  const catalog::Resource& self() const { return context_.catalog.resource(self_); }
  std::vector<AutoRelation> Take() { return std::move(relations_); }

 private:
  // File[path] that no catalog resource is but a Concat_file generates before Puppet builds
  // its graph (puppetlabs-concat's `generate`: File[path] with the Concat_file's path, owner
  // and group, after the Concat_file). What requires it comes after the Concat_file and after
  // what the generated File autorequires itself: the nearest File above path, its owner
  // and group. (Seen in apache's vhosts: a symlink File whose target is a concat.)
  void RequireGeneratedFile(std::string_view name) {
    if (!catalog::IsAbsolutePath(name)) return;
    const std::string path = catalog::CanonicalFilePath(name);
    for (const ResourceId generator : context_.paths.ManagersOf(path)) {
      if (generator == self_ || context_.catalog.resource(generator).type != "Concat_file") {
        continue;
      }
      Add(generator, self_, "concat_file:generated-file");
      if (std::optional<ResourceId> parent = context_.paths.NearestFileAncestor(path)) {
        Add(*parent, self_, "concat_file:generated-file-parent");
      }
      const catalog::Resource& concat = context_.catalog.resource(generator);
      if (std::optional<std::string> owner = AccountName(concat, "owner")) {
        if (std::optional<ResourceId> user = context_.catalog.Find("User", *owner))
          Add(*user, self_, "concat_file:generated-file-owner");
      }
      if (std::optional<std::string> group = AccountName(concat, "group")) {
        if (std::optional<ResourceId> g = context_.catalog.Find("Group", *group))
          Add(*g, self_, "concat_file:generated-file-group");
      }
      return;
    }
  }

  void Add(ResourceId source, ResourceId target, std::string_view rule) {
    if (source != target) relations_.push_back(AutoRelation{source, target, rule});
  }

  ResourceId self_;
  const AutorelationContext& context_;
  std::vector<AutoRelation> relations_;
};

bool IsAllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A user or group attribute names a resource only when it is a non-numeric string
// (Puppet: `val.is_a?(Integer) or val =~ /^\d+$/` gives nothing).
std::optional<std::string> AccountName(const catalog::Resource& resource,
                                       std::string_view parameter) {
  const nlohmann::json* value = resource.FindParameter(parameter);
  if (value != nullptr && value->is_array() && !value->empty()) value = &(*value)[0];
  if (value == nullptr || !value->is_string()) return std::nullopt;
  std::string name = value->get<std::string>();
  if (IsAllDigits(name)) return std::nullopt;
  return name;
}

std::vector<std::string> SplitCommas(const std::vector<std::string>& values) {
  std::vector<std::string> parts;
  for (const std::string& value : values) {
    std::size_t start = 0;
    while (start <= value.size()) {
      std::size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      if (comma > start) parts.push_back(value.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return parts;
}

bool IsRubyNonSpace(char c) {
  return c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v';
}

// Ruby's text.scan(/^(\/\S+)/): '^' matches at the start and after every newline.
std::vector<std::string> ScanLineStartPaths(std::string_view text) {
  std::vector<std::string> paths;
  std::size_t line = 0;
  while (line < text.size()) {
    if (text[line] == '/') {
      std::size_t end = line + 1;
      while (end < text.size() && IsRubyNonSpace(text[end])) ++end;
      if (end > line + 1) paths.emplace_back(text.substr(line, end - line));
    }
    const std::size_t newline = text.find('\n', line);
    if (newline == std::string_view::npos) break;
    line = newline + 1;
  }
  return paths;
}

// Ruby's text.scan(/^"([^"]+)"/): a quoted command at a line start (it may span lines;
// scanning resumes after the closing quote).
std::vector<std::string> ScanLineStartQuoted(std::string_view text) {
  std::vector<std::string> quoted;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '"') {
      const std::size_t close = text.find('"', pos + 1);
      if (close != std::string_view::npos && close > pos + 1) {
        quoted.emplace_back(text.substr(pos + 1, close - pos - 1));
        // The next match needs a line start after the closing quote.
        const std::size_t newline = text.find('\n', close + 1);
        if (newline == std::string_view::npos) break;
        pos = newline + 1;
        continue;
      }
    }
    const std::size_t newline = text.find('\n', pos);
    if (newline == std::string_view::npos) break;
    pos = newline + 1;
  }
  return quoted;
}

// A command attribute: a string, or an array whose first element is the command.
std::optional<std::string> CommandText(const nlohmann::json& value) {
  const nlohmann::json* command = &value;
  if (command->is_array()) {
    if (command->empty()) return std::nullopt;
    command = &(*command)[0];
  }
  if (!command->is_string()) return std::nullopt;
  return command->get<std::string>();
}

}  // namespace

std::vector<AutoRelation> FileAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  const catalog::Resource& file = relations.self();
  const std::optional<std::string> path_parameter = file.StringParameter("path");
  const std::string path =
      catalog::CanonicalFilePath(path_parameter ? *path_parameter : file.title);
  if (catalog::IsAbsolutePath(path)) {
    // Only the nearest managed ancestor, not every managed ancestor.
    for (std::string_view dir = catalog::ParentDirectory(path); !dir.empty();
         dir = catalog::ParentDirectory(dir)) {
      if (std::optional<ResourceId> parent = context.catalog.Find("File", dir)) {
        relations.RequireId(*parent, "file:parent-directory");
        break;
      }
    }
  }
  if (std::optional<std::string> target = file.StringParameter("target");
      target && *target != "notlink") {
    relations.Require("File", *target, "file:link-target");
  }
  if (std::optional<std::string> owner = AccountName(file, "owner")) {
    relations.Require("User", *owner, "file:owner");
  }
  if (std::optional<std::string> group = AccountName(file, "group")) {
    relations.Require("Group", *group, "file:group");
  }
  return relations.Take();
}

std::vector<AutoRelation> ExecAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  const catalog::Resource& exec = relations.self();
  if (std::optional<std::string> cwd = exec.StringParameter("cwd")) {
    relations.Require("File", *cwd, "exec:cwd");
  }
  if (const nlohmann::json* command = exec.FindParameter("command")) {
    if (std::optional<std::string> text = CommandText(*command)) {
      for (const std::string& path : ScanLineStartPaths(*text))
        relations.Require("File", path, "exec:command");
      for (const std::string& path : ScanLineStartQuoted(*text))
        relations.Require("File", path, "exec:command");
    }
  }
  for (const std::string_view check : {"onlyif", "unless"}) {
    const nlohmann::json* value = exec.FindParameter(check);
    if (value == nullptr) continue;
    const std::string_view rule = check == "onlyif" ? "exec:onlyif" : "exec:unless";
    // A string, or an array of commands each of which is a string or an argv array.
    std::vector<const nlohmann::json*> lines;
    if (value->is_array()) {
      for (const nlohmann::json& line : *value) lines.push_back(&line);
    } else {
      lines.push_back(value);
    }
    for (const nlohmann::json* line : lines) {
      if (std::optional<std::string> text = CommandText(*line)) {
        for (const std::string& path : ScanLineStartPaths(*text))
          relations.Require("File", path, rule);
      }
    }
  }
  if (std::optional<std::string> user = AccountName(exec, "user")) {
    relations.Require("User", *user, "exec:user");
  }
  return relations.Take();
}

std::vector<AutoRelation> PackageAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  const catalog::Resource& package = relations.self();
  if (std::optional<std::string> file = package.StringParameter("responsefile")) {
    relations.Require("File", *file, "package:responsefile");
  }
  if (std::optional<std::string> file = package.StringParameter("adminfile")) {
    relations.Require("File", *file, "package:adminfile");
  }
  if (std::optional<std::string> source = package.StringParameter("source");
      source && catalog::IsAbsolutePath(*source)) {
    relations.Require("File", *source, "package:source");
  }
  return relations.Take();
}

std::vector<AutoRelation> UserAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  const catalog::Resource& user = relations.self();
  if (const nlohmann::json* gid = user.FindParameter("gid")) {
    std::vector<const nlohmann::json*> values;
    if (gid->is_array()) {
      for (const nlohmann::json& value : *gid) values.push_back(&value);
    } else {
      values.push_back(gid);
    }
    for (const nlohmann::json* value : values) {
      std::optional<long long> number;
      if (value->is_number_integer()) {
        number = value->get<long long>();
      } else if (value->is_string() && IsAllDigits(value->get_ref<const std::string&>())) {
        const std::string& digits = value->get_ref<const std::string&>();
        long long parsed = 0;
        if (std::from_chars(digits.data(), digits.data() + digits.size(), parsed).ec ==
            std::errc()) {
          number = parsed;
        }
      } else if (value->is_string()) {
        relations.Require("Group", value->get<std::string>(), "user:gid");
        continue;
      }
      if (!number) continue;
      // Puppet scans the catalog for the managed Group with that gid.
      for (const ResourceId group : context.catalog.ResourcesOfType("Group")) {
        const nlohmann::json* group_gid = context.catalog.resource(group).FindParameter("gid");
        if (group_gid == nullptr) continue;
        const bool same =
            (group_gid->is_number_integer() && group_gid->get<long long>() == *number) ||
            (group_gid->is_string() && group_gid->get<std::string>() == std::to_string(*number));
        if (same) {
          relations.RequireId(group, "user:gid");
          break;
        }
      }
    }
  }
  for (const std::string& group : SplitCommas(user.StringListParameter("groups"))) {
    relations.Require("Group", group, "user:groups");
  }
  for (const std::string& role : SplitCommas(user.StringListParameter("roles"))) {
    relations.Require("User", role, "user:roles");
  }
  return relations.Take();
}

std::vector<AutoRelation> CronAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  if (std::optional<std::string> user = relations.self().StringParameter("user")) {
    relations.Require("User", *user, "cron:user");
  }
  return relations.Take();
}

std::vector<AutoRelation> MountAutorelations(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  const catalog::Resource& mount = relations.self();
  const std::optional<std::string> name_parameter = mount.StringParameter("name");
  // The name munge: gsub(%r{^(.+?)/*$}, '\1') strips trailing slashes but keeps "/".
  std::string name = name_parameter ? *name_parameter : mount.title;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  if (catalog::IsAbsolutePath(name)) {
    const std::string canonical = catalog::CanonicalFilePath(name);
    for (std::string_view dir = catalog::ParentDirectory(canonical); !dir.empty();
         dir = catalog::ParentDirectory(dir)) {
      relations.Require("Mount", dir, "mount:parent-mount");
    }
  }
  // autobefore(:file): File.expand_path(file[:path]) =~ %r{^#{name}/.}
  const std::string prefix = name + "/";
  for (const ResourceId file : context.catalog.ResourcesOfType("File")) {
    for (const std::string& path : context.paths.PathsOf(file)) {
      if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) {
        relations.BeforeId(file, "mount:file-under-mount-point");
      }
    }
  }
  return relations.Take();
}

std::vector<AutoRelation> SshAuthorizedKeyAutorequires(ResourceId self,
                                                       const AutorelationContext& context) {
  Relations relations(self, context);
  if (std::optional<std::string> user = relations.self().StringParameter("user")) {
    relations.Require("User", *user, "ssh_authorized_key:user");
  }
  return relations.Take();
}

std::vector<AutoRelation> FileLineAutorequires(ResourceId self,
                                               const AutorelationContext& context) {
  Relations relations(self, context);
  if (std::optional<std::string> path = relations.self().StringParameter("path")) {
    relations.Require("File", *path, "file_line:path");
  }
  return relations.Take();
}

std::vector<AutoRelation> ConcatFileAutorequires(ResourceId self,
                                                 const AutorelationContext& context) {
  Relations relations(self, context);
  const std::optional<std::string> path = relations.self().StringParameter("path");
  const std::string& target = path ? *path : relations.self().title;
  relations.Require("File", target, "concat_file:path");
  // Concat_file#generate makes File[target] with its owner and group; Puppet orders that File
  // after what it autorequires, and the File's block (the write) is charged here.
  relations.RequireAsGeneratedFile(target, "owner", "group");
  return relations.Take();
}

std::vector<AutoRelation> TidyAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  const std::optional<std::string> path = relations.self().StringParameter("path");
  const std::string& dir = path ? *path : relations.self().title;
  if (!catalog::IsAbsolutePath(dir)) return relations.Take();
  // The Files Tidy generates (ensure => absent) for what it removes under `dir` autorequire
  // the File of `dir` or, unmanaged, the nearest File above it.
  if (std::optional<ResourceId> file = context.paths.FileAt(catalog::CanonicalFilePath(dir))) {
    relations.RequireId(*file, "generated-file:parent-directory");
  } else {
    relations.RequireAsGeneratedFile(catalog::CanonicalFilePath(dir) + "/x", "", "");
  }
  return relations.Take();
}

std::vector<AutoRelation> IniSettingAutorequires(ResourceId self,
                                                 const AutorelationContext& context) {
  Relations relations(self, context);
  if (std::optional<std::string> path = relations.self().StringParameter("path");
      path && catalog::IsAbsolutePath(*path)) {
    const std::string canonical = catalog::CanonicalFilePath(*path);
    const std::string_view parent = catalog::ParentDirectory(canonical);
    if (!parent.empty()) relations.Require("File", parent, "ini_setting:parent-directory");
  }
  return relations.Take();
}

std::vector<AutoRelation> MysqlAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  relations.Require("File", "/root/.my.cnf", "mysql:my.cnf");
  if (relations.self().type == "Mysql_grant") {
    if (std::optional<std::string> user = relations.self().StringParameter("user")) {
      relations.Require("Mysql_user", *user, "mysql_grant:user");
    }
  }
  return relations.Take();
}

std::vector<AutoRelation> MysqlDatadirAutorequires(ResourceId self,
                                                   const AutorelationContext& context) {
  Relations relations(self, context);
  relations.Require("Package", "mysql-server", "mysql_datadir:package");
  return relations.Take();
}

std::vector<AutoRelation> PostgresqlPsqlAutorequires(ResourceId self,
                                                     const AutorelationContext& context) {
  Relations relations(self, context);
  const std::optional<std::string> instance = relations.self().StringParameter("instance");
  relations.Require(
      "Anchor", "postgresql::server::service::end::" + (instance ? *instance : std::string("main")),
      "postgresql_psql:service-anchor");
  return relations.Take();
}

std::vector<AutoRelation> AptKeyAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  if (std::optional<std::string> source = relations.self().StringParameter("source");
      source && catalog::IsAbsolutePath(*source)) {
    relations.Require("File", *source, "apt_key:source");
  }
  return relations.Take();
}

std::vector<AutoRelation> JavaKsAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  const catalog::Resource& keystore = relations.self();
  for (const std::string_view parameter : {"private_key", "certificate", "chain"}) {
    if (std::optional<std::string> file = keystore.StringParameter(parameter)) {
      relations.Require("File", *file, "java_ks:key-material");
    }
  }
  if (std::optional<std::string> target = keystore.StringParameter("target");
      target && catalog::IsAbsolutePath(*target)) {
    const std::string canonical = catalog::CanonicalFilePath(*target);
    const std::string_view dir = catalog::ParentDirectory(canonical);
    if (!dir.empty()) relations.Require("File", dir, "java_ks:target-directory");
  }
  return relations.Take();
}

std::vector<AutoRelation> VcsrepoAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  for (const std::string_view package : {"git", "git-core", "mercurial", "subversion"}) {
    relations.Require("Package", package, "vcsrepo:package");
  }
  return relations.Take();
}

std::vector<AutoRelation> SelmoduleAutorequires(ResourceId self,
                                                const AutorelationContext& context) {
  Relations relations(self, context);
  const catalog::Resource& module = relations.self();
  if (std::optional<std::string> path = module.StringParameter("selmodulepath")) {
    relations.Require("File", *path, "selmodule:module-file");
  } else {
    const std::optional<std::string> dir = module.StringParameter("selmoduledir");
    const std::optional<std::string> name = module.StringParameter("name");
    relations.Require("File",
                      (dir ? *dir : std::string("/usr/share/selinux/targeted")) + "/" +
                          (name ? *name : module.title) + ".pp",
                      "selmodule:module-file");
  }
  return relations.Take();
}

std::vector<AutoRelation> A2modAutorequires(ResourceId self, const AutorelationContext& context) {
  Relations relations(self, context);
  relations.Require("Package", "httpd", "a2mod:httpd-package");
  return relations.Take();
}

AutorelationRule AutorelationRuleFor(std::string_view type) {
  static const absl::flat_hash_map<std::string, AutorelationRule> kRules = {
      {"File", &FileAutorequires},
      {"Exec", &ExecAutorequires},
      {"Package", &PackageAutorequires},
      {"User", &UserAutorequires},
      {"Cron", &CronAutorequires},
      {"Mount", &MountAutorelations},
      {"Ssh_authorized_key", &SshAuthorizedKeyAutorequires},
      {"File_line", &FileLineAutorequires},
      {"Concat_file", &ConcatFileAutorequires},
      {"Tidy", &TidyAutorequires},
      {"Ini_setting", &IniSettingAutorequires},
      {"Mysql_database", &MysqlAutorequires},
      {"Mysql_user", &MysqlAutorequires},
      {"Mysql_plugin", &MysqlAutorequires},
      {"Mysql_grant", &MysqlAutorequires},
      {"Mysql_datadir", &MysqlDatadirAutorequires},
      {"Postgresql_psql", &PostgresqlPsqlAutorequires},
      {"Apt_key", &AptKeyAutorequires},
      {"Java_ks", &JavaKsAutorequires},
      {"Vcsrepo", &VcsrepoAutorequires},
      {"Selmodule", &SelmoduleAutorequires},
      {"A2mod", &A2modAutorequires},
  };
  const auto it = kRules.find(absl::string_view(type.data(), type.size()));
  return it == kRules.end() ? nullptr : it->second;
}

std::vector<AutoRelation> AutorelationsOf(ResourceId self, const AutorelationContext& context) {
  const AutorelationRule rule = AutorelationRuleFor(context.catalog.resource(self).type);
  return rule == nullptr ? std::vector<AutoRelation>{} : rule(self, context);
}

}  // namespace fsmove::graph
