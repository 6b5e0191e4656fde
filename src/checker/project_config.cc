// `.fsmove.json`: loading, validation and merging into the check options; see
// project_config.h.
#include "fsmove/checker/project_config.h"

#include <filesystem>

#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/json_reader.h"
#include "fsmove/base/read_file.h"
#include "fsmove/catalog/resource_ref.h"
#include "fsmove/checker/path_filter.h"

namespace fsmove::checker {
namespace {

using Json = nlohmann::json;

class ConfigParser {
 public:
  explicit ConfigParser(std::string_view source) : source_(source) {
    config_.source_name = std::string(source);
  }

  absl::StatusOr<ProjectConfig> Parse(std::string_view text) {
    auto root = base::ParseJson(text, source_);
    if (!root.ok()) return root.status();
    if (!root->is_object()) return WrongType("", "an object", *root);
    for (const auto& [key, value] : root->items()) {
      std::string pointer = base::JsonPointer("", key);
      absl::Status st;
      if (key == "$schema") {
        if (!value.is_string()) st = WrongType(pointer, "a string", value);
      } else if (key == "ignore_paths") {
        st = StringList(pointer, value, &config_.ignore_paths,
                        [&](const std::string& p, const std::string& glob) {
                          auto regex = GlobToRegex(glob);
                          if (!regex.ok()) return Error(p, std::string(regex.status().message()));
                          // Traced paths are absolute: a relative glob would silently match
                          // nothing.
                          if (glob.front() != '/' && glob.front() != '*') {
                            return Error(
                                p, fmt::format("\"{}\" matches nothing: traced paths are absolute "
                                               "(did you mean \"/{}\"?)",
                                               glob, glob));
                          }
                          return absl::OkStatus();
                        });
      } else if (key == "ignore_resources") {
        st = StringList(pointer, value, &config_.ignore_resources,
                        [&](const std::string& p, const std::string& ref) { return Ref(p, ref); });
      } else if (key == "ignore_pairs") {
        st = Pairs(pointer, value);
      } else if (key == "package_notify") {
        if (!value.is_boolean()) {
          st = WrongType(pointer, "true or false", value);
        } else {
          config_.package_notify = value.get<bool>();
        }
      } else if (key == "root") {
        // A pinned root (exec's os_root.h; checker sees no exec: the names are checked when
        // the root is built, and here only for their shape).
        if (!value.is_string()) {
          st = WrongType(pointer, "a string", value);
        } else if (const std::string r = value.get<std::string>();
                   !r.starts_with("debian-") || r.size() == 7 ||
                   r.find_first_not_of("0123456789", 7) != std::string::npos) {
          st = Error(pointer, "expected the name of a pinned root (debian-12, debian-13)");
        } else {
          config_.root = r;
        }
      } else {
        st = Error(pointer,
                   "unknown key (expected ignore_paths, ignore_resources, ignore_pairs, "
                   "package_notify or root)");
      }
      if (!st.ok()) return st;
    }
    return std::move(config_);
  }

 private:
  absl::Status Error(std::string_view pointer, std::string_view sentence) const {
    return base::JsonError(source_, pointer, sentence);
  }
  absl::Status WrongType(std::string_view pointer, std::string_view expected,
                         const Json& value) const {
    return base::JsonTypeError(source_, pointer, expected, value);
  }

  absl::Status Ref(const std::string& pointer, const std::string& ref) const {
    if (!catalog::ParseResourceRef(ref)) {
      return Error(pointer, fmt::format("\"{}\" is not a resource reference (expected "
                                        "Type[title], e.g. Exec[apt-update])",
                                        ref));
    }
    return absl::OkStatus();
  }

  template <typename Check>
  absl::Status StringList(const std::string& pointer, const Json& value,
                          std::vector<std::string>* out, Check check) const {
    if (!value.is_array()) return WrongType(pointer, "an array of strings", value);
    for (size_t i = 0; i < value.size(); ++i) {
      std::string p = base::JsonPointer(pointer, i);
      if (!value[i].is_string()) return WrongType(p, "a string", value[i]);
      const std::string& s = value[i].get_ref<const std::string&>();
      if (absl::Status st = check(p, s); !st.ok()) return st;
      out->push_back(s);
    }
    return absl::OkStatus();
  }

  absl::Status Pairs(const std::string& pointer, const Json& value) {
    if (!value.is_array()) return WrongType(pointer, "an array of objects", value);
    for (size_t i = 0; i < value.size(); ++i) {
      std::string p = base::JsonPointer(pointer, i);
      const Json& item = value[i];
      if (!item.is_object()) return WrongType(p, "an object with source, target and reason", item);
      IgnoredPair pair;
      pair.json_pointer = p;
      for (const auto& [key, v] : item.items()) {
        std::string kp = base::JsonPointer(p, key);
        if (key != "source" && key != "target" && key != "reason" && key != "rule") {
          return Error(kp, "unknown key (expected source, target, reason or rule)");
        }
        if (!v.is_string()) return WrongType(kp, "a string", v);
        const std::string& s = v.get_ref<const std::string&>();
        if (key == "source" || key == "target") {
          if (absl::Status st = Ref(kp, s); !st.ok()) return st;
          (key == "source" ? pair.source : pair.target) = s;
        } else if (key == "reason") {
          if (s.find_first_not_of(" \t\r\n") == std::string::npos) {
            return Error(kp, "must not be empty: say why these findings are accepted");
          }
          pair.reason = s;
        } else if (s == FaultRuleId(FaultKind::kMissingOrdering)) {
          pair.rule = FaultKind::kMissingOrdering;
        } else if (s == FaultRuleId(FaultKind::kMissingNotifier)) {
          pair.rule = FaultKind::kMissingNotifier;
        } else {
          return Error(kp, fmt::format("unknown rule \"{}\" (expected missing-ordering or "
                                       "missing-notifier)",
                                       s));
        }
      }
      for (const char* required : {"source", "target", "reason"}) {
        if (!item.contains(required)) {
          return Error(p, fmt::format("missing \"{}\"{}", required,
                                      std::string_view(required) == "reason"
                                          ? ": every ignored pair needs a reason"
                                          : ""));
        }
      }
      config_.ignore_pairs.push_back(std::move(pair));
    }
    return absl::OkStatus();
  }

  std::string source_;
  ProjectConfig config_;
};

}  // namespace

absl::StatusOr<ProjectConfig> ParseProjectConfig(std::string_view text,
                                                 std::string_view source_name) {
  return ConfigParser(source_name).Parse(text);
}

absl::StatusOr<ProjectConfig> LoadProjectConfigFile(const std::string& path) {
  auto text = base::ReadFile(path, "configuration");
  if (!text.ok()) return text.status();
  return ParseProjectConfig(*text, path);
}

// A symbolic link at <dir>/.fsmove.json is refused (PermissionDenied), never followed.
absl::StatusOr<ProjectConfig> LoadProjectConfig(const std::string& dir) {
  // The project's own file, opened beneath its directory: a .fsmove.json that is a link (to a
  // private file of whoever runs fsmove, in a module from elsewhere) is refused, not read.
  auto text = base::ReadFileBeneath(dir, kProjectConfigName, "configuration");
  if (absl::IsNotFound(text.status())) return ProjectConfig{};  // none: fine
  if (!text.ok()) return text.status();
  return ParseProjectConfig(*text, base::BeneathName(dir, kProjectConfigName));
}

std::vector<std::string> ApplyProjectConfig(const ProjectConfig& config,
                                            const catalog::Catalog& catalog,
                                            CheckOptions* options) {
  std::vector<std::string> warnings;
  options->ignore_paths.insert(options->ignore_paths.end(), config.ignore_paths.begin(),
                               config.ignore_paths.end());
  for (size_t i = 0; i < config.ignore_resources.size(); ++i) {
    const std::string& ref = config.ignore_resources[i];
    if (catalog.ResolveRef(ref)) {
      options->ignore_resources.push_back(ref);
    } else {
      warnings.push_back(fmt::format("{}: /ignore_resources/{}: {} is not in {}; skipped",
                                     config.source_name, i, ref, catalog.source_name()));
    }
  }
  options->package_notify = options->package_notify || config.package_notify;
  return warnings;
}

}  // namespace fsmove::checker
