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
#include "fsmove/base/read_file.h"
#include "fsmove/base/sha256.h"
#include "fsmove/exec/control_repo.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/tar_listing.h"
#include "fsmove/exec/target.h"
#include "fsmove/exec/version_range.h"
#include "nlohmann/json.hpp"
#include "re2/re2.h"

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

// The module in `dir`, named `short_dir` on the modulepath, with its metadata.json's name and
// version.
SourceModule ModuleAt(const fs::path& dir, const std::string& short_dir,
                      const std::string& source) {
  SourceModule m;
  m.short_name = short_dir;
  m.name = short_dir;
  m.dir = dir.string();
  m.source = source;
  // Read beneath the module: a metadata.json that is a link is not followed.
  absl::StatusOr<std::string> text =
      base::ReadFileBeneath(dir.string(), "metadata.json", "module metadata");
  if (text.ok()) {
    m.metadata = *text;
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
  return m;
}

// A Forge release's tarball, as the Forge serves it: author-name-1.2.3.tar.gz (the module's
// short name captured).
const RE2& ForgeTarball() {
  static const RE2 kTarball(
      R"((?:[a-z0-9]+)-([a-z][a-z0-9_]*)-(?:[0-9]+\.[0-9]+\.[0-9]+[^/]*)\.tar\.gz)");
  return kTarball;
}

// What `tar -tv` lists of `tarball` is a module's files (tar_listing.h: regular files,
// directories and symbolic links within it, no member beneath a link), within 256 MiB (stdlib
// 9: 2 MB; a bigger one is no module).
absl::Status TarballListing(const std::string& tar, const fs::path& tarball) {
  TarPolicy policy;
  policy.max_bytes = uint64_t{256} << 20;
  return ListTarball(tar, tarball.string(), "-z", policy).status();
}

// The module of a Forge tarball, unpacked once into the cache (a directory per tarball
// content); nullopt when it cannot be (the source passes it over).
std::optional<fs::path> UnpackTarball(const fs::path& tarball, const std::string& short_name) {
  absl::StatusOr<std::string> bytes = base::ReadFile(tarball.string(), "module tarball");
  if (!bytes.ok()) return std::nullopt;
  const fs::path root = fs::path(PuppetfileCacheRoot()) / "tarballs";
  const fs::path dir = root / base::Sha256Hex(*bytes).substr(0, 32) / short_name;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return dir;
  const std::optional<std::string> tar = FindExecutable("tar", kSafePath);
  if (!tar || !TarballListing(*tar, tarball).ok()) return std::nullopt;
  const fs::path partial = root / fmt::format(".{}.{}", short_name, getpid());
  fs::remove_all(partial, ec);
  fs::create_directories(partial, ec);
  absl::StatusOr<CapturedRun> run =
      RunCaptured({*tar, "-xzf", tarball.string(), "-C", partial.string(), "--no-same-owner",
                   "--no-same-permissions"},
                  PuppetEnvironment());
  // The Forge's tarballs hold one directory, author-name-version/.
  std::vector<fs::path> top;
  for (fs::directory_iterator it(partial, ec), end; !ec && it != end; it.increment(ec)) {
    top.push_back(it->path());
  }
  if (!run.ok() || run->wait_status != 0 || top.size() != 1 || !fs::is_directory(top[0], ec)) {
    fs::remove_all(partial, ec);
    return std::nullopt;
  }
  fs::create_directories(dir.parent_path(), ec);
  fs::rename(top[0], dir, ec);
  const bool kept = !ec || fs::is_directory(dir);  // or another process unpacked it first
  fs::remove_all(partial, ec);
  return kept ? std::optional<fs::path>(dir) : std::nullopt;
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
      if (std::string name; RE2::FullMatch(short_dir, ForgeTarball(), &name) &&
                            fs::is_regular_file(entry, ec) && !fs::is_symlink(entry, ec)) {
        if (std::optional<fs::path> dir = UnpackTarball(entry, name)) {
          SourceModule m = ModuleAt(*dir, name, source);
          m.source = entry.string();
          found.push_back(std::move(m));
        }
        continue;
      }
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
      found.push_back(ModuleAt(dir, short_dir, source));
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
