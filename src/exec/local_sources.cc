// puppet:/// sources served from the modulepath; see local_sources.h.
#include "fsmove/exec/local_sources.h"

#include "nlohmann/json.hpp"

namespace fsmove::exec {

std::string LocalModuleFile(std::string_view uri, const std::vector<std::string>& modulepath,
                            const std::function<bool(const std::string&)>& exists) {
  constexpr std::string_view kScheme = "puppet://";
  if (!uri.starts_with(kScheme)) return "";
  std::string_view rest = uri.substr(kScheme.size());
  size_t slash = rest.find('/');  // after the (usually empty) server name
  if (slash == std::string_view::npos) return "";
  rest = rest.substr(slash + 1);
  constexpr std::string_view kModules = "modules/";
  if (!rest.starts_with(kModules)) return "";
  rest = rest.substr(kModules.size());
  size_t end = rest.find('/');
  std::string_view module = rest.substr(0, end);
  std::string_view path = end == std::string_view::npos ? "" : rest.substr(end + 1);
  if (module.empty() || module == "." || module == ".." ||
      module.find('\0') != std::string_view::npos) {
    return "";
  }
  // No escaping the module's files directory.
  for (size_t at = 0; at <= path.size();) {
    size_t next = path.find('/', at);
    std::string_view part = path.substr(at, next == std::string_view::npos ? next : next - at);
    if (part == "..") return "";
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  for (const std::string& dir : modulepath) {
    std::string candidate = dir;
    if (candidate.empty()) continue;
    if (candidate.back() != '/') candidate.push_back('/');
    candidate.append(module).append("/files");
    if (!path.empty()) candidate.append("/").append(path);
    while (candidate.size() > 1 && candidate.back() == '/') candidate.pop_back();
    if (exists(candidate)) return candidate;
  }
  return "";
}

absl::StatusOr<LocalizedSources> LocalizePuppetSources(
    std::string_view catalog_json, const std::vector<std::string>& modulepath,
    const std::function<bool(const std::string&)>& exists) {
  nlohmann::json catalog = nlohmann::json::parse(catalog_json, nullptr, /*allow_exceptions=*/false);
  if (!catalog.is_object()) return absl::InvalidArgumentError("the catalog is not a JSON object");
  LocalizedSources out;
  auto localize = [&](nlohmann::json& value) {
    if (!value.is_string()) return;
    const std::string& uri = value.get_ref<const std::string&>();
    if (!uri.starts_with("puppet://")) return;
    std::string local = LocalModuleFile(uri, modulepath, exists);
    if (local.empty()) {
      out.unresolved.push_back(uri);
      return;
    }
    value = local;
    ++out.rewritten;
  };
  auto resources = catalog.find("resources");
  if (resources != catalog.end() && resources->is_array()) {
    for (nlohmann::json& r : *resources) {
      if (!r.is_object()) continue;
      auto params = r.find("parameters");
      if (params == r.end() || !params->is_object()) continue;
      auto source = params->find("source");
      if (source == params->end()) continue;
      if (source->is_array()) {
        for (nlohmann::json& s : *source) localize(s);
      } else {
        localize(*source);
      }
    }
  }
  out.catalog_json = catalog.dump();
  return out;
}

}  // namespace fsmove::exec
