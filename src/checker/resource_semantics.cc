// Resource semantics for the checker; see resource_semantics.h.
#include "fsmove/checker/resource_semantics.h"

#include <algorithm>
#include <cctype>
#include <span>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "fsmove/base/blanks.h"
#include "fsmove/base/split.h"

namespace fsmove::checker {
namespace {

bool IsNumeric(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A shell word boundary around `word` in `text` at `at`.
bool IsWordAt(std::string_view text, size_t at, size_t len) {
  auto boundary = [](char c) {
    return !(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
             c == '@');
  };
  if (at > 0 && !boundary(text[at - 1]) && text[at - 1] != '/') return false;
  size_t end = at + len;
  if (end < text.size() && !boundary(text[end])) {
    // "name.service" names the unit of the same service.
    return text.substr(end).starts_with(".service");
  }
  return true;
}

// `NAME=VALUE` or `export NAME=VALUE`, the value unquoted ('...' or "..." around all of it).
std::optional<std::pair<std::string, std::string>> ParseAssignment(std::string_view line) {
  line = base::TrimBlanks(line);
  if (line.starts_with("export ")) line = base::TrimBlanks(line.substr(7));
  const size_t eq = line.find('=');
  if (eq == 0 || eq == std::string_view::npos) return std::nullopt;
  std::string_view name = line.substr(0, eq), value = line.substr(eq + 1);
  if (std::isdigit(static_cast<unsigned char>(name.front())) ||
      !std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      })) {
    return std::nullopt;
  }
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
      value.back() == value.front()) {
    value = value.substr(1, value.size() - 2);
  }
  return std::pair{std::string(name), std::string(value)};
}

}  // namespace

std::optional<std::vector<std::pair<std::string, std::string>>> ShellAssignments(
    const catalog::Resource& r) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](std::string_view line) {
    auto assignment = ParseAssignment(line);
    if (assignment) out.push_back(std::move(*assignment));
    return assignment.has_value();
  };
  std::optional<std::string> ensure = r.StringParameter("ensure");
  if (ensure && (*ensure == "absent" || *ensure == "unset")) return std::nullopt;
  if (r.type == "File") {
    std::optional<std::string> content = r.StringParameter("content");
    if (!content || r.FindParameter("source") != nullptr) return std::nullopt;
    for (std::string_view line : base::Split(*content, '\n')) {
      std::string_view text = base::TrimBlanks(line);
      if (!text.empty() && !text.starts_with('#') && !add(text)) return std::nullopt;
    }
  } else if (r.type == "Augeas") {
    for (const std::string& change : r.StringListParameter("changes")) {
      std::vector<std::string_view> words = base::Words(change);
      if (words.size() != 3 || words[0] != "set" ||
          !add(std::string(words[1]) + "=" + std::string(words[2]))) {
        return std::nullopt;
      }
    }
  } else if (r.type == "File_line") {
    std::optional<std::string> line = r.StringParameter("line");
    if (!line || !add(*line)) return std::nullopt;
  } else if (r.type == "Shellvar") {
    std::optional<std::string> variable = r.StringParameter("variable");
    std::optional<std::string> value = r.StringParameter("value");
    if (!value || !add((variable ? *variable : r.title) + "=" + *value)) return std::nullopt;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

const knowledge::Row* IsInitScriptSwitch(std::string_view variable) {
  static const knowledge::Table& table = knowledge::TableNamed("init_script_switches");
  return table.Find(variable);
}

// Puppet's augeas provider (parse_commands): the path of a change runs to the first blank outside
// brackets and outside quotes, each quote character toggling its own state (`"target[. =
// "global"]/workgroup"` is one path); quotes around it are taken off and a trailing '/' too; a
// relative path follows the resource's `context`, or "/files" and its `incl`.
std::vector<AugeasChange> AugeasChanges(const catalog::Resource& r) {
  std::vector<AugeasChange> out;
  std::string context = r.StringParameter("context").value_or("");
  if (context.empty()) {
    if (std::optional<std::string> incl = r.StringParameter("incl")) context = "/files" + *incl;
  }
  while (!context.empty() && context.back() == '/') context.pop_back();
  for (const std::string& changes : r.StringListParameter("changes")) {
    for (std::string_view line : base::Split(changes, '\n')) {
      line = base::TrimBlanks(line);
      const size_t blank = line.find_first_of(" \t");
      if (line.empty() || blank == std::string_view::npos) continue;
      AugeasChange change{std::string(line.substr(0, blank)), ""};
      std::string_view rest = base::TrimBlanks(line.substr(blank));
      int brackets = 0;
      bool single = false, twice = false;
      size_t end = 0;
      for (; end < rest.size(); ++end) {
        const char c = rest[end];
        if (c == '\\') {
          ++end;  // an escaped character
        } else if (c == '[') {
          ++brackets;
        } else if (c == ']') {
          --brackets;
        } else if (c == '\'') {
          single = !single;
        } else if (c == '"') {
          twice = !twice;
        } else if ((c == ' ' || c == '\t') && brackets <= 0 && !single && !twice) {
          break;
        }
      }
      std::string_view path = rest.substr(0, std::min(end, rest.size()));
      if (path.size() >= 2 && (path.front() == '\'' || path.front() == '"')) {
        path = path.substr(1, path.size() - 2);
      }
      if (!path.empty() && path.back() == '/') path.remove_suffix(1);
      if (path.empty()) continue;
      change.path = path.front() == '/' || path.front() == '$' || context.empty()
                        ? std::string(path)
                        : context + "/" + std::string(path);
      out.push_back(std::move(change));
    }
  }
  return out;
}

namespace {

bool MakesWhatTheOtherSelects(const std::vector<AugeasChange>& maker,
                              const std::vector<AugeasChange>& other) {
  for (const AugeasChange& m : maker) {
    if (m.verb != "set" && m.verb != "clear" && m.verb != "touch") continue;
    for (const AugeasChange& o : other) {
      if (o.path.size() > m.path.size() + 1 && o.path.starts_with(m.path) &&
          o.path[m.path.size()] == '/') {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool AugeasMakesWhatTheOtherSelects(const std::vector<AugeasChange>& x,
                                    const std::vector<AugeasChange>& y) {
  return MakesWhatTheOtherSelects(x, y) || MakesWhatTheOtherSelects(y, x);
}

bool AugeasMakesWhatTheOtherSelects(const catalog::Resource& x, const catalog::Resource& y) {
  if (x.type != "Augeas" || y.type != "Augeas") return false;
  return AugeasMakesWhatTheOtherSelects(AugeasChanges(x), AugeasChanges(y));
}

bool IsPartialEditor(const catalog::Resource& r) {
  static constexpr std::string_view kTypes[] = {"File_line",
                                                "Augeas",
                                                "Ini_setting",
                                                "Ini_subsetting",
                                                "Shellvar",
                                                "Mailalias",
                                                "Maillist",
                                                "Host",
                                                "Sshkey",
                                                "Ssh_authorized_key",
                                                "Cron",
                                                "Mount",
                                                "Sysctl",
                                                "Kernel_parameter",
                                                "Debconf",
                                                "Concat_fragment",
                                                "Xml_fragment",
                                                "Yaml_setting",
                                                "Hocon_setting",
                                                "Json_setting",
                                                "Pam",
                                                "K5login",
                                                "Selboolean",
                                                "Sshd_config",
                                                "Ssh_config",
                                                "Sshd_config_match",
                                                "Sshd_config_subsystem",
                                                "Nsswitch",
                                                "Puppet_authorization::rule",
                                                "Postgresql_conf",
                                                "Mysql_config"};
  for (std::string_view t : kTypes) {
    if (r.type == t) return true;
  }
  std::string_view type = r.type;
  if (type.starts_with("Fm_")) return true;  // puppet-filemagic: fm_prepend, fm_replace, ...
  // The naming conventions of one-entry editors: ini_setting's subtypes (openstacklib's
  // Nova_config, Aodh_api_paste_ini, ...), augeas-based *_entry, ...
  static constexpr std::string_view kSuffixes[] = {"_config",     "_conf",      "_setting",
                                                   "_subsetting", "_option",    "_entry",
                                                   "_param",      "_parameter", "_ini"};
  for (std::string_view s : kSuffixes) {
    if (type.size() > s.size() && type.ends_with(s)) return true;
  }
  return false;
}

bool EstablishesContent(const catalog::Resource& r) {
  if (r.type != "File") return false;
  std::optional<std::string> ensure = r.StringParameter("ensure");
  if (ensure && (*ensure == "directory" || *ensure == "absent")) return false;
  if (auto replace = r.FindParameter("replace");
      replace != nullptr && ((replace->is_boolean() && !replace->get<bool>()) ||
                             (replace->is_string() && (*replace == "false" || *replace == "no")))) {
    return false;
  }
  if (r.FindParameter("content") != nullptr || r.FindParameter("source") != nullptr ||
      r.FindParameter("target") != nullptr) {
    return true;
  }
  return ensure && (*ensure == "file" || *ensure == "present" || *ensure == "link" ||
                    (!ensure->empty() && ensure->front() == '/'));
}

bool OnlyEnsuresExistence(const catalog::Resource& r) {
  if (r.type != "File") return false;
  std::optional<std::string> ensure0 = r.StringParameter("ensure");
  if (ensure0 && (*ensure0 == "directory" || *ensure0 == "absent" || *ensure0 == "link")) {
    return false;
  }
  // replace => false: the content is written only where the file is missing.
  if (!EstablishesContent(r) &&
      (r.FindParameter("content") != nullptr || r.FindParameter("source") != nullptr)) {
    return true;
  }
  if (r.FindParameter("content") != nullptr || r.FindParameter("source") != nullptr ||
      r.FindParameter("target") != nullptr) {
    return false;
  }
  std::optional<std::string> ensure = r.StringParameter("ensure");
  return !ensure || *ensure == "file" || *ensure == "present";
}

bool MakesOnlyAnEmptyFile(const catalog::Resource& r) {
  return OnlyEnsuresExistence(r) && r.FindParameter("content") == nullptr &&
         r.FindParameter("source") == nullptr;
}

const knowledge::Row* IsRubyTempfile(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("ruby_tempfiles");
  return table.Find(path);
}

const knowledge::Row* IsAmbientConfiguration(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("ambient_configuration");
  return table.Find(path);
}

const knowledge::Row* IsUnitDefinition(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("unit_directories");
  return table.Find(path);
}

const knowledge::Row* IsAptSourcesList(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("apt_sources");
  return table.Find(path);
}

const knowledge::Row* IsPackageIndexInput(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("package_indexes");
  return table.Find(path);
}

std::vector<std::pair<std::string, const knowledge::Row*>> ParkedVersionsOf(
    std::string_view conffile) {
  static const knowledge::Table& table = knowledge::TableNamed("parked_conffiles");
  std::vector<std::pair<std::string, const knowledge::Row*>> out;
  for (const knowledge::Row& row : table.rows) {
    std::string parked = std::string(conffile) + std::string(row.fact);
    if (row.Matches(parked)) out.emplace_back(std::move(parked), &row);
  }
  return out;
}

const knowledge::Row* IsOptionalProgram(std::string_view caller, std::string_view program) {
  static const knowledge::Table& table = knowledge::TableNamed("optional_programs");
  return table.FindBy(caller, program);
}

const knowledge::Row* IsReadAgainByItself(std::string_view daemon, std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("rereading_daemons");
  return table.FindBy(daemon, path);
}

const knowledge::Row* IsRuntimeState(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("runtime_state");
  return table.Find(path);
}

bool IsUnitReload(const catalog::Resource& r) {
  if (r.type != "Exec") return false;
  std::optional<std::string> command = r.CommandLine();
  if (!command) return false;
  const size_t systemctl = command->find("systemctl");
  if (systemctl == std::string::npos) return false;
  const size_t reload = command->find("daemon-reload", systemctl);
  return reload != std::string::npos && IsWordAt(*command, reload, 13);
}

const knowledge::Row* IsDropInDirectory(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("drop_in_directories");
  return table.Find(path);
}

const knowledge::Row* IsNameServiceDatabase(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("name_service_databases");
  return table.Find(path);
}

const knowledge::Row* IsUserPrivateGroup(const catalog::Resource& user,
                                         const catalog::Resource& group, std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("user_private_groups");
  if (user.type != "User" || group.type != "Group") return nullptr;
  if (user.FindParameter("gid") != nullptr || group.FindParameter("gid") != nullptr) return nullptr;
  const std::string user_name = user.StringParameter("name").value_or(user.title);
  if (group.StringParameter("name").value_or(group.title) != user_name) return nullptr;
  return table.FindBy("/usr/sbin/useradd", path);
}

std::vector<std::string> NamedAccounts(const catalog::Resource& r) {
  std::vector<std::string> names;
  auto add = [&](const std::string& n) {
    if (n.empty() || n == "root" || IsNumeric(n)) return;
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (std::string_view p : {"owner", "group", "user", "gid", "groups", "uid"}) {
    for (const std::string& n : r.StringListParameter(p)) add(n);
  }
  if (r.type == "User" || r.type == "Group") {
    std::optional<std::string> name = r.StringParameter("name");
    add(name ? *name : r.title);
  }
  return names;
}

std::string ServiceName(const catalog::Resource& service) {
  std::optional<std::string> name = service.StringParameter("name");
  return name ? *name : service.title;
}

std::string PackageName(const catalog::Resource& package) {
  std::string name = ServiceName(package);  // the same namevar rule
  return name.substr(0, name.find(':'));
}

namespace {

bool HasWord(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    if (IsWordAt(text, at, word.size())) return true;
  }
  return false;
}

bool ContainsAny(std::string_view text, std::span<const std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return text.find(n) != std::string_view::npos; });
}

// The tools that start, stop and restart a service by its name.
constexpr std::string_view kServiceTools[] = {"service ", "systemctl ", "invoke-rc.d ",
                                              "/etc/init.d/", "rc-service "};

std::string Lower(std::string_view text) {
  return absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
}

}  // namespace

bool IsRefreshOnly(const catalog::Resource& exec) {
  const nlohmann::json* r = exec.FindParameter("refreshonly");
  return r != nullptr && ((r->is_boolean() && r->get<bool>()) || (r->is_string() && *r == "true"));
}

bool RunsEveryApply(const catalog::Resource& exec) {
  if (exec.type != "Exec" || IsRefreshOnly(exec)) return false;
  return exec.FindParameter("onlyif") == nullptr && exec.FindParameter("unless") == nullptr &&
         exec.FindParameter("creates") == nullptr;
}

bool CommandStopsService(std::string_view command, std::string_view name) {
  if (name.empty()) return false;
  std::string lower = Lower(command);
  // A command that starts the daemon again (stop; start, or any restart) leaves it running.
  static constexpr std::string_view kStarts[] = {
      "start", "restart", "reload", "try-restart", "force-reload", "reload-or-restart"};
  if (!ContainsAny(lower, kServiceTools) || !HasWord(lower, "stop") ||
      std::any_of(std::begin(kStarts), std::end(kStarts),
                  [&](std::string_view v) { return HasWord(lower, v); })) {
    return false;
  }
  return HasWord(lower, Lower(name));
}

bool CommandRestartsService(std::string_view command, std::string_view name) {
  if (name.empty()) return false;
  std::string lower = Lower(command);
  static constexpr std::string_view kVerbs[] = {"restart",
                                                "reload",
                                                "force-reload",
                                                "try-restart",
                                                "condrestart",
                                                "reload-or-restart",
                                                "try-reload-or-restart",
                                                "graceful",
                                                "kill",
                                                "-hup",
                                                "-usr1",
                                                "-usr2",
                                                "-s hup",
                                                "--signal=hup",
                                                "-s reload",
                                                "-s usr1"};
  // Besides the service tools: the signal senders and the daemons' own control programs.
  static constexpr std::string_view kOtherTools[] = {
      "pkill ", "killall ", "apachectl ", "nginx ", "pg_ctl ", "pg_ctlcluster ", "rndc "};
  bool has_tool = ContainsAny(lower, kServiceTools) || ContainsAny(lower, kOtherTools);
  if (!has_tool || !ContainsAny(lower, kVerbs)) return false;
  return HasWord(lower, Lower(name));
}

const knowledge::Row* ControlProgramRefreshes(std::string_view command, std::string_view name) {
  static const knowledge::Table& table = knowledge::TableNamed("control_programs");
  if (name.ends_with(".service")) name.remove_suffix(8);
  if (name.empty()) return nullptr;
  // The command's words, without the quotes and `;` a shell line puts around them.
  std::vector<std::string_view> words;
  for (std::string_view w : base::Words(command)) {
    while (!w.empty() && (w.front() == '\'' || w.front() == '"')) w.remove_prefix(1);
    while (!w.empty() && (w.back() == '\'' || w.back() == '"' || w.back() == ';'))
      w.remove_suffix(1);
    if (!w.empty()) words.push_back(w);
  }
  auto file_name = [](std::string_view path) { return path.substr(path.rfind('/') + 1); };
  for (const knowledge::Row& row : table.rows) {
    if (!row.Matches(name)) continue;
    for (size_t i = 0; i < words.size(); ++i) {
      if (file_name(words[i]) != file_name(row.by)) continue;
      if (std::find(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end(), row.kind) !=
          words.end()) {
        return &row;
      }
    }
  }
  return nullptr;
}

}  // namespace fsmove::checker
