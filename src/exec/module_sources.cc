// Module sources for dependencies; see module_sources.h.
#include "fsmove/exec/module_sources.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/exec/target.h"
#include "fsmove/exec/version_range.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {

namespace fs = std::filesystem;

namespace {

// "puppetlabs/stdlib" and "PuppetLabs-stdlib" are "puppetlabs-stdlib".
std::string FullName(std::string_view name) {
  std::string n = absl::AsciiStrToLower(std::string(name));
  std::replace(n.begin(), n.end(), '/', '-');
  return n;
}

// target.h's test, on the directory itself.
bool LooksLikeModuleDir(const fs::path& dir) {
  const int fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool module = LooksLikeModule(fd);
  close(fd);
  return module;
}

}  // namespace

std::vector<SourceModule> ListSourceModules(const std::vector<std::string>& sources) {
  std::vector<SourceModule> found;
  for (const std::string& source : sources) {
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(source, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(it->path());
    }
    std::sort(entries.begin(), entries.end());
    for (const fs::path& entry : entries) {
      const std::string short_dir = entry.filename().string();
      if (!IsValidModuleName(short_dir)) continue;
      // A link only where root made every link on the way (Debian's packages, through
      // /etc/alternatives), as for a modulepath directory: anybody's link would show the
      // sandboxed code whatever it leads to.
      fs::path dir;
      if (fs::is_symlink(entry, ec)) {
        absl::StatusOr<fs::path> to = ResolveRootOwnedLink(entry, "--module-source " + source);
        if (!to.ok()) continue;
        dir = *to;
      } else {
        dir = fs::canonical(entry, ec);
      }
      if (ec || !fs::is_directory(dir, ec) || !LooksLikeModuleDir(dir)) continue;
      SourceModule m;
      m.short_name = short_dir;
      m.name = short_dir;
      m.dir = dir.string();
      m.source = source;
      // Read beneath the module: a metadata.json that is a link is not followed.
      absl::StatusOr<std::string> text =
          base::ReadFileBeneath(dir.string(), "metadata.json", "module metadata");
      if (text.ok()) {
        const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
        if (j.is_object()) {
          if (auto n = j.find("name"); n != j.end() && n->is_string()) {
            m.name = FullName(n->get<std::string>());
          }
          if (auto v = j.find("version"); v != j.end() && v->is_string()) {
            m.version = v->get<std::string>();
          }
        }
      }
      found.push_back(std::move(m));
    }
  }
  return found;
}

absl::StatusOr<const SourceModule*> PickSourceModule(const std::vector<SourceModule>& available,
                                                     std::string_view name, std::string_view range,
                                                     std::string_view wanted_by) {
  const std::string full = FullName(name);
  const bool has_author = full.find('-') != std::string::npos;
  const std::string short_name = ShortModuleName(full);
  std::optional<VersionRange> admits;
  if (!range.empty()) {
    absl::StatusOr<VersionRange> r = VersionRange::Parse(range);
    if (!r.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: dependency {}: {}", wanted_by, name, std::string(r.status().message())));
    }
    admits = *std::move(r);
  }
  const SourceModule* best = nullptr;
  std::optional<SemVer> best_version;
  std::vector<std::string> seen;
  for (const SourceModule& m : available) {
    // The same module: its full name, or (a name without an author, or a module without
    // metadata) its short one.
    const bool same =
        m.name == full || (m.short_name == short_name && (!has_author || m.name == m.short_name));
    if (!same) continue;
    seen.push_back(fmt::format("{} {} in {}", m.name,
                               m.version.empty() ? "(no version)" : m.version, m.source));
    std::optional<SemVer> v;
    if (absl::StatusOr<SemVer> parsed = ParseSemVer(m.version); parsed.ok()) v = *parsed;
    if (admits && (!v || !admits->Contains(*v))) continue;
    if (best == nullptr || (v && (!best_version || *v > *best_version))) {
      best = &m;
      best_version = v;
    }
  }
  if (best == nullptr && !seen.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} asks for {} {}, which no module source has ({}); give a version that fits with "
        "--module-source DIR or --modulepath DIR",
        wanted_by, name, range, absl::StrJoin(seen, "; ")));
  }
  return best;
}

}  // namespace fsmove::exec
