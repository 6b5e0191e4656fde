// Resolving `fsmove check TARGET`; see target.h.
#include "fsmove/exec/target.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/read_file.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

// "puppetlabs-ntp", "puppetlabs/ntp" -> "ntp"; a bare "ntp" stays.
std::string ShortModuleName(std::string_view full) {
  size_t cut = full.find_first_of("-/");
  return std::string(cut == std::string_view::npos ? full : full.substr(cut + 1));
}

absl::Status ReadMetadata(const fs::path& dir, ResolvedTarget* t) {
  fs::path meta = dir / "metadata.json";
  std::error_code ec;
  if (!fs::exists(meta, ec)) return absl::OkStatus();
  absl::StatusOr<std::string> text = base::ReadFile(meta.string(), "module metadata");
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(fmt::format("{}: not a JSON object", meta.string()));
  }
  if (auto name = j.find("name"); name != j.end() && name->is_string()) {
    t->module_name = ShortModuleName(name->get<std::string>());
  }
  if (auto deps = j.find("dependencies"); deps != j.end() && deps->is_array()) {
    for (const auto& d : *deps) {
      if (d.is_object() && d.contains("name") && d["name"].is_string()) {
        t->dependencies.push_back(d["name"].get<std::string>());
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsValidModuleName(std::string_view name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

absl::StatusOr<ResolvedTarget> ResolveTarget(const TargetRequest& request) {
  ResolvedTarget t;
  std::error_code ec;
  for (const auto& m : request.modulepath) {
    if (!fs::is_directory(m, ec)) {
      return absl::InvalidArgumentError(fmt::format("--modulepath {}: not a directory", m));
    }
  }
  if (!request.code.empty()) {
    if (!request.path.empty()) {
      return absl::InvalidArgumentError("give either TARGET or -e CODE, not both");
    }
    t.kind = ResolvedTarget::Kind::kCode;
    t.display = "-e";
    t.manifest_text = request.code;
    if (t.manifest_text.back() != '\n') t.manifest_text += '\n';
  } else if (request.path.empty()) {
    return absl::InvalidArgumentError(
        "nothing to check: give a module directory, a .pp manifest, or -e 'puppet code'");
  } else {
    fs::path p = request.path;
    if (!fs::exists(p, ec)) {
      return absl::NotFoundError(
          fmt::format("{}: no such module directory or manifest", request.path));
    }
    fs::path abs = fs::canonical(p, ec);
    if (ec) return absl::InvalidArgumentError(fmt::format("{}: {}", request.path, ec.message()));
    if (fs::is_directory(abs, ec)) {
      t.kind = ResolvedTarget::Kind::kModule;
      t.display = request.path;
      t.module_dir = abs.string();
      if (absl::Status st = ReadMetadata(abs, &t); !st.ok()) return st;
      if (t.module_name.empty()) t.module_name = ShortModuleName(abs.filename().string());
      if (!IsValidModuleName(t.module_name)) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: '{}' is not a valid Puppet module name (lower-case letters, digits and '_', "
            "starting with a letter); is this a module directory?",
            request.path, t.module_name));
      }
      if (!fs::is_regular_file(abs / "manifests" / "init.pp", ec)) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: module '{}' has no manifests/init.pp, so there is no class to include; "
            "check a manifest instead (fsmove check FILE.pp, or -e 'include {}::CLASS')",
            request.path, t.module_name, t.module_name));
      }
      t.manifest_text = fmt::format("include {}\n", t.module_name);
      t.link_module = abs.filename().string() != t.module_name;
      // Its siblings (dependencies checked out next to it) are found through the parent.
      if (!t.link_module) t.modulepath.push_back(abs.parent_path().string());
      t.input_paths.push_back(t.link_module ? t.module_dir : abs.parent_path().string());
    } else if (fs::is_regular_file(abs, ec)) {
      if (abs.extension() != ".pp") {
        return absl::InvalidArgumentError(
            fmt::format("{}: not a Puppet manifest (.pp) or a module directory", request.path));
      }
      t.kind = ResolvedTarget::Kind::kManifest;
      t.display = request.path;
      t.manifest_path = abs.string();
      t.input_paths.push_back(t.manifest_path);
    } else {
      return absl::InvalidArgumentError(
          fmt::format("{}: neither a module directory nor a manifest file", request.path));
    }
  }
  for (const auto& m : request.modulepath) {
    std::string abs = fs::canonical(m, ec).string();
    t.modulepath.push_back(abs);
    t.input_paths.push_back(abs);
  }
  return t;
}

}  // namespace fsmove::exec
