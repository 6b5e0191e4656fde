// Ignored paths and package-manager state; see path_filter.h.
#include "fsmove/checker/path_filter.h"

#include "absl/strings/str_cat.h"

namespace fsmove::checker {

const std::vector<DefaultIgnore>& DefaultIgnores() {
  static const auto* defaults = new std::vector<DefaultIgnore>{
      {"/proc/**", "kernel and process state, per process; no resource orders it"},
      {"/sys/**", "kernel state"},
      {"/dev/**", "devices (/dev/null, ttys): written and read by every program"},
      {"/run/puppet/**", "Puppet's run directory (pid and lock files)"},
      {"/var/lib/puppet/**", "Puppet's vardir: state.yaml, reports, clientbucket"},
      {"/var/cache/puppet/**", "Puppet's cache"},
      {"/var/log/puppet/**", "Puppet's logs"},
      {"/opt/puppetlabs/puppet/cache/**", "Puppet's vardir in AIO packages"},
      {"/etc/puppet/**", "Puppet's own configuration, read by Puppet itself"},
      {"/etc/puppetlabs/**", "Puppet's own configuration in AIO packages"},
      {"/etc/ld.so.cache",
       "rewritten by every library install, read by every program start; a "
       "program's need of a package shows through the package's own files"},
      {"/var/cache/ldconfig/**", "ldconfig's cache"},
      {"/tmp/puppet-file*", "Puppet's own temporary files"},
      {"/**/.rnd",
       "OpenSSL's random seed (RANDFILE, ~/.rnd): every openssl call may read and rewrite "
       "it; no resource needs another's seed"},
      {"/run/systemd/generator/**",
       "systemd's generators rewrite it at every daemon-reload from the units, /etc/fstab "
       "and /etc/init.d they read; a start depends on the resource that changed those"},
      {"/run/systemd/generator.early/**", "as /run/systemd/generator"},
      {"/run/systemd/generator.late/**", "as /run/systemd/generator"},
      {"/run/systemd/propagate/**",
       "systemd's executor makes it to set up a sandboxed unit's mount namespace (as "
       "incoming, inaccessible, mount-rootfs): the first unit started makes it for all"},
      {"/run/systemd/incoming/**", "as /run/systemd/propagate"},
      {"/run/systemd/inaccessible/**", "as /run/systemd/propagate"},
      {"/run/systemd/mount-rootfs/**", "as /run/systemd/propagate"},
  };
  return *defaults;
}

absl::StatusOr<std::string> GlobToRegex(std::string_view glob) {
  if (glob.empty()) return absl::InvalidArgumentError("empty glob");
  std::string re;
  for (size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '*' && i + 1 < glob.size() && glob[i + 1] == '*') {
      bool slash_before = i > 0 && glob[i - 1] == '/';
      bool at_end = i + 2 == glob.size();
      bool slash_after = i + 2 < glob.size() && glob[i + 2] == '/';
      if (slash_before && at_end) {  // "dir/**": the directory itself or anything below
        re.pop_back();               // the escaped '/' just written
        re += "(/.*)?";
      } else if (slash_after) {  // "**/": any number of leading components
        re += "(.*/)?";
        ++i;
      } else {
        re += ".*";
      }
      ++i;
    } else if (c == '*') {
      re += "[^/]*";
    } else if (c == '?') {
      re += "[^/]";
    } else if (c == '/') {
      re += '/';  // not special; kept bare so "dir/**" can drop it
    } else {
      re += RE2::QuoteMeta(re2::StringPiece(&c, 1));
    }
  }
  return re;
}

absl::StatusOr<PathFilter> PathFilter::Create(const std::vector<std::string>& globs,
                                              bool with_defaults) {
  std::vector<std::string> all;
  if (with_defaults) {
    for (const auto& d : DefaultIgnores()) all.emplace_back(d.glob);
  }
  all.insert(all.end(), globs.begin(), globs.end());
  PathFilter filter;
  if (all.empty()) return filter;
  std::string alternation;
  for (const std::string& g : all) {
    auto re = GlobToRegex(g);
    if (!re.ok())
      return absl::InvalidArgumentError(
          absl::StrCat("--ignore-path '", g, "': ", re.status().message()));
    if (!alternation.empty()) alternation += '|';
    absl::StrAppend(&alternation, "(?:", *re, ")");
    filter.bounds_.push_back(BoundsOf(g));
  }
  RE2::Options options;
  options.set_log_errors(false);
  filter.ignored_ = std::make_unique<RE2>(alternation, options);
  if (!filter.ignored_->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad ignore pattern: ", filter.ignored_->error()));
  }
  return filter;
}

PathFilter::Bounds PathFilter::BoundsOf(std::string_view glob) {
  const size_t first = glob.find_first_of("*?");
  if (first == std::string_view::npos) return {std::string(glob), std::string(glob)};
  std::string_view prefix = glob.substr(0, first);
  std::string_view suffix = glob.substr(glob.find_last_of("*?") + 1);
  if (prefix.ends_with('/')) prefix.remove_suffix(1);
  if (suffix.starts_with('/')) suffix.remove_prefix(1);
  return {std::string(prefix), std::string(suffix)};
}

namespace {
// Whether `path` holds `part` at `at`, compared byte by byte: a path mostly differs from a
// glob's literal start at its first or second byte, sooner than memcmp's call would return.
bool HoldsAt(std::string_view path, size_t at, std::string_view part) {
  for (size_t k = 0; k < part.size(); ++k) {
    if (path[at + k] != part[k]) return false;
  }
  return true;
}
}  // namespace

bool PathFilter::Ignored(std::string_view path) const {
  if (ignored_ == nullptr) return false;
  bool may_match = false;
  for (const Bounds& b : bounds_) {
    if (path.size() >= b.prefix.size() && path.size() >= b.suffix.size() &&
        HoldsAt(path, 0, b.prefix) && HoldsAt(path, path.size() - b.suffix.size(), b.suffix)) {
      may_match = true;
      break;
    }
  }
  if (!may_match) return false;
  // re2::StringPiece is RE2's own class on Debian 12 (built from std::string_view) and
  // absl::string_view on Debian 13, which is not std::string_view there (abseil built without
  // ABSL_OPTION_USE_STD_STRING_VIEW) and takes no std::string_view: spelled out, both compile.
  return RE2::FullMatch(re2::StringPiece(path.data(), path.size()), *ignored_);
}

const knowledge::Row* PathFilter::IsEnablementLink(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("enablement_links");
  return table.Find(path);
}

const knowledge::Row* PathFilter::IsPackageManagerState(std::string_view path) {
  static const knowledge::Table& table = knowledge::TableNamed("package_manager_state");
  if (const knowledge::Row* link = IsEnablementLink(path)) return link;
  return table.Find(path);
}

}  // namespace fsmove::checker
