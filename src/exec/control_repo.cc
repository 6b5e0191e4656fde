// Control repos: environment.conf, the Puppetfile and its deployment; see control_repo.h.
#include "fsmove/exec/control_repo.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <system_error>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/blanks.h"
#include "fsmove/base/sha256.h"
#include "fsmove/exec/module_sources.h"
#include "fsmove/exec/process.h"

namespace fsmove::exec {
namespace fs = std::filesystem;
namespace {

using base::TrimBlanks;

std::string_view Unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

// The end of a tool's output, at most `max` bytes of it.
std::string Last(std::string_view text, size_t max) {
  std::string s(TrimBlanks(text));
  if (s.size() > max) s = "..." + s.substr(s.size() - max);
  return s;
}

}  // namespace

absl::StatusOr<EnvironmentConf> ParseEnvironmentConf(std::string_view text, std::string_view name) {
  EnvironmentConf conf;
  int number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = TrimBlanks(text.substr(pos, end - pos));
    pos = end + 1;
    ++number;
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line != "[main]") {
        return absl::InvalidArgumentError(
            fmt::format("{}:{}: only settings of [main] belong in environment.conf", name, number));
      }
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: not a `setting = value` line", name, number));
    }
    const std::string_view key = TrimBlanks(line.substr(0, eq));
    const std::string_view value = Unquote(TrimBlanks(line.substr(eq + 1)));
    if (key == "modulepath") {
      conf.modulepath.clear();
      size_t from = 0;
      while (from <= value.size()) {
        size_t colon = value.find(':', from);
        if (colon == std::string_view::npos) colon = value.size();
        const std::string entry(TrimBlanks(value.substr(from, colon - from)));
        from = colon + 1;
        if (entry.empty()) continue;
        const fs::path p(entry);
        bool leaves = p.is_absolute();
        for (const fs::path& part : p) leaves = leaves || part == "..";
        if (leaves && entry.front() != '$') {
          return absl::InvalidArgumentError(fmt::format(
              "{}:{}: modulepath entry {} is outside the control repo, which is all the "
              "sandbox shows of it; deploy those modules with the Puppetfile",
              name, number, entry));
        }
        conf.modulepath.push_back(entry);
      }
    } else if (key == "manifest") {
      const fs::path p{std::string(value)};
      bool leaves = p.is_absolute() || value.empty();
      for (const fs::path& part : p) leaves = leaves || part == "..";
      if (leaves) {
        return absl::InvalidArgumentError(fmt::format(
            "{}:{}: manifest {} is not a path in the control repo", name, number, value));
      }
      conf.manifest = std::string(value);
    }
  }
  return conf;
}

namespace {

// One token of the Puppetfile's Ruby subset.
struct PfToken {
  enum Kind { kWord, kString, kSymbol, kKey, kArrow, kComma, kOpen, kClose, kEnd } kind;
  std::string text;
  int line;
};

absl::StatusOr<std::vector<PfToken>> PuppetfileTokens(std::string_view t, std::string_view name) {
  std::vector<PfToken> out;
  int line = 1;
  auto refuse = [&](std::string_view what) {
    return absl::InvalidArgumentError(fmt::format(
        "{}:{}: {}: fsmove gives r10k only a Puppetfile of forge, moduledir and mod statements "
        "with literal values, since r10k runs a Puppetfile as Ruby code",
        name, line, what));
  };
  auto word_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '\n') {
      out.push_back({PfToken::kEnd, "", line++});
      ++i;
    } else if (c == '#') {
      while (i < t.size() && t[i] != '\n') ++i;
    } else if (c == '\'' || c == '"') {
      std::string value;
      size_t j = i + 1;
      for (; j < t.size() && t[j] != c; ++j) {
        if (t[j] == '\n') return refuse("a string runs past the end of its line");
        if (c == '"' && t[j] == '#' && j + 1 < t.size() && t[j + 1] == '{') {
          return refuse("interpolation (#{...})");
        }
        if (t[j] == '\\' && j + 1 < t.size()) {
          const char e = t[++j];
          if (e != '\\' && e != '\'' && e != '"')
            return refuse("an escape other than \\\\, \\' or \\\"");
        }
        value += t[j];
      }
      if (j >= t.size()) return refuse("an unterminated string");
      out.push_back({PfToken::kString, std::move(value), line});
      i = j + 1;
    } else if (c == ':' && i + 1 < t.size() && word_char(t[i + 1])) {
      size_t j = i + 1;
      while (j < t.size() && word_char(t[j])) ++j;
      out.push_back({PfToken::kSymbol, std::string(t.substr(i + 1, j - i - 1)), line});
      i = j;
    } else if (word_char(c)) {
      size_t j = i;
      while (j < t.size() && word_char(t[j])) ++j;
      std::string word(t.substr(i, j - i));
      if (j < t.size() && t[j] == ':' && (j + 1 >= t.size() || t[j + 1] != ':')) {
        out.push_back({PfToken::kKey, std::move(word), line});
        i = j + 1;
      } else {
        out.push_back({PfToken::kWord, std::move(word), line});
        i = j;
      }
    } else if (c == '=' && i + 1 < t.size() && t[i + 1] == '>') {
      out.push_back({PfToken::kArrow, "=>", line});
      i += 2;
    } else if (c == ',' || c == '(' || c == ')') {
      out.push_back({c == ','   ? PfToken::kComma
                     : c == '(' ? PfToken::kOpen
                                : PfToken::kClose,
                     std::string(1, c), line});
      ++i;
    } else {
      return refuse(fmt::format("'{}'", c));
    }
  }
  out.push_back({PfToken::kEnd, "", line});
  return out;
}

bool InsideRepo(std::string_view path) {
  const fs::path p{std::string(path)};
  if (p.empty() || p.is_absolute()) return false;
  for (const fs::path& part : p) {
    if (part == "..") return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<Puppetfile> ParsePuppetfile(std::string_view text, std::string_view name) {
  absl::StatusOr<std::vector<PfToken>> tokens = PuppetfileTokens(text, name);
  if (!tokens.ok()) return tokens.status();
  const std::vector<PfToken>& tok = *tokens;
  Puppetfile pf;
  size_t i = 0;
  auto error = [&](size_t at, std::string_view what) {
    return absl::InvalidArgumentError(fmt::format("{}:{}: {}", name, tok[at].line, what));
  };
  // Past a comma, an opening parenthesis or an arrow a statement goes on on the next line.
  auto skip_ends = [&] {
    while (i < tok.size() && tok[i].kind == PfToken::kEnd && i + 1 < tok.size()) ++i;
  };
  while (i < tok.size()) {
    if (tok[i].kind == PfToken::kEnd) {
      ++i;
      continue;
    }
    if (tok[i].kind != PfToken::kWord) return error(i, "expected forge, moduledir or mod");
    const std::string statement = tok[i].text;
    const size_t at = i++;
    const bool paren = i < tok.size() && tok[i].kind == PfToken::kOpen;
    if (paren) ++i, skip_ends();
    if (statement == "forge" || statement == "moduledir") {
      if (i >= tok.size() || tok[i].kind != PfToken::kString) {
        return error(at, fmt::format("{} takes one string", statement));
      }
      if (statement == "moduledir" && tok[i].text != "modules") {
        return error(at,
                     "moduledir other than 'modules': fsmove deploys the Puppetfile's "
                     "modules where the environment's modulepath names `modules`");
      }
      ++i;
    } else if (statement == "mod") {
      if (i >= tok.size() || tok[i].kind != PfToken::kString) {
        return error(at, "mod takes the module's name first, as a string");
      }
      PuppetfileModule m;
      m.line = tok[at].line;
      m.name = tok[i++].text;
      if (m.name.empty() || m.name.starts_with("-")) {
        return error(at, "mod takes the module's name first, as a string");
      }
      while (i < tok.size() && tok[i].kind == PfToken::kComma) {
        ++i;
        skip_ends();
        if (i < tok.size() &&
            (tok[i].kind == PfToken::kString || tok[i].kind == PfToken::kSymbol) && m.git.empty() &&
            (i + 1 >= tok.size() || tok[i + 1].kind != PfToken::kArrow)) {
          m.version = tok[i].kind == PfToken::kString ? tok[i].text : "";
          ++i;
          continue;
        }
        std::string key;
        if (i < tok.size() && tok[i].kind == PfToken::kKey) {
          key = tok[i++].text;
        } else if (i + 1 < tok.size() && tok[i].kind == PfToken::kSymbol &&
                   tok[i + 1].kind == PfToken::kArrow) {
          key = tok[i].text;
          i += 2;
        } else {
          return error(i < tok.size() ? i : at, "expected a version or `:key => value`");
        }
        skip_ends();
        if (i >= tok.size() ||
            (tok[i].kind != PfToken::kString && tok[i].kind != PfToken::kSymbol &&
             !(tok[i].kind == PfToken::kWord &&
               (tok[i].text == "true" || tok[i].text == "false")))) {
          return error(i < tok.size() ? i : at, fmt::format("{}: expected a literal value", key));
        }
        const std::string value = tok[i++].text;
        if (value.starts_with("-")) {
          // r10k runs git with these: a value that reads as an option (--upload-pack=...)
          // would run a command on this machine.
          return error(at, fmt::format("mod '{}': {} {} starts with '-'", m.name, key, value));
        }
        static constexpr std::string_view kKeys[] = {"git",    "ref",          "tag",
                                                     "branch", "commit",       "default_branch",
                                                     "type",   "exclude_spec", "install_path"};
        if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
          return error(
              at, fmt::format("mod '{}': {} is not a key fsmove passes to r10k ({})", m.name, key,
                              "git, ref, tag, branch, commit, default_branch, type, "
                              "exclude_spec, install_path"));
        }
        if (key == "tag" || key == "commit") m.pinned = true;
        if (key == "git") {
          m.git = value;
          if (value.starts_with("file://")) {
            m.local = value.substr(7);
          } else if (value.starts_with("/") || value.starts_with(".") || value.starts_with("~")) {
            m.local = value;
          }
        } else if (key == "type" && value != "git" && value != "forge") {
          return error(at, fmt::format("mod '{}': type {}: fsmove deploys git and Forge modules",
                                       m.name, value));
        } else if (key == "install_path" && !(m.install_path = InsideRepo(value))) {
          return error(
              at, fmt::format("mod '{}': install_path {} leads out of the modules", m.name, value));
        }
      }
      pf.modules.push_back(std::move(m));
    } else {
      return error(at, fmt::format("`{}` is not a Puppetfile statement fsmove accepts (forge, "
                                   "moduledir, mod): r10k would run it as Ruby code",
                                   statement));
    }
    if (paren) {
      skip_ends();
      if (i >= tok.size() || tok[i].kind != PfToken::kClose) return error(at, "expected ')'");
      ++i;
    }
    if (statement == "mod") pf.modules.back().end_line = tok[i - 1].line;
    if (i < tok.size() && tok[i].kind != PfToken::kEnd) {
      return error(i, "expected the end of the statement");
    }
  }
  return pf;
}

absl::StatusOr<EnvironmentConf> ReadEnvironmentConf(const fs::path& repo) {
  absl::StatusOr<std::string> text =
      base::ReadFileBeneath(repo.string(), "environment.conf", "environment.conf");
  if (absl::IsNotFound(text.status())) return EnvironmentConf{};
  if (!text.ok()) return text.status();
  return ParseEnvironmentConf(*text, (repo / "environment.conf").string());
}

bool LooksLikeControlRepo(const fs::path& dir) {
  std::error_code ec;
  // A module (metadata.json, or a class of its own name in manifests/init.pp) may keep a
  // Puppetfile for its tests; only a control repo has an environment.conf.
  if (fs::exists(dir / "metadata.json", ec)) return false;
  if (fs::is_regular_file(dir / "environment.conf", ec)) return true;
  return fs::is_regular_file(dir / "Puppetfile", ec) &&
         !fs::exists(dir / "manifests" / "init.pp", ec);
}

namespace {

// `r10k puppetfile install` of `deployment`'s Puppetfile into its modules/; an error names
// what r10k printed and, for the Forge modules it was to fetch (`from_forge`), how to give them
// without the network.
absl::Status RunR10k(const std::string& r10k, const fs::path& deployment, const std::string& shown,
                     const std::vector<std::string>& from_forge) {
  std::vector<std::string> env = PuppetEnvironment();
  for (const char* keep : {"HOME", "http_proxy", "https_proxy", "no_proxy", "SSH_AUTH_SOCK"}) {
    if (const char* v = std::getenv(keep); v != nullptr)
      env.push_back(fmt::format("{}={}", keep, v));
  }
  absl::StatusOr<CapturedRun> run = RunCaptured(
      {r10k, "puppetfile", "install", "--puppetfile", (deployment / "Puppetfile").string(),
       "--moduledir", (deployment / "modules").string()},
      env);
  if (!run.ok() || run->wait_status != 0) {
    const std::string why = run.ok() ? Last(run->err.empty() ? run->out : run->err, 2000)
                                     : std::string(run.status().message());
    const std::string forge =
        from_forge.empty()
            ? std::string()
            : fmt::format(
                  " The Forge modules it was to fetch ({}) can be given without the "
                  "network in a --module-source DIR, a module directory each at the "
                  "version the Puppetfile pins (as `puppet module install --target-dir "
                  "DIR` or a checkout of its repository at that tag leaves it).",
                  absl::StrJoin(from_forge, ", "));
    return absl::FailedPreconditionError(fmt::format(
        "{}: r10k could not deploy it ({}): {}.{} A git module it cannot fetch (no network, a "
        "private repository) can be given as a directory: point its `mod` at a local path "
        "(:git => 'file:///...'), or deploy the Puppetfile yourself into the repo's modules/",
        shown, run.ok() ? DescribeWaitStatus(run->wait_status) : "not started", why, forge));
  }
  return absl::OkStatus();
}

// The sources a Puppetfile's Forge modules may come from without the network: the
// --module-source directories and Debian's packages.
std::vector<std::string> ForgeSources(std::vector<std::string> local_sources) {
  local_sources.emplace_back(kDebianModulesDir);
  return local_sources;
}

// Forge modules `available` holds at the version the Puppetfile pins (the highest there when it
// pins none) are copied from there, with no network (`taken`); r10k fetches the others
// (`from_forge`). Returns the Puppetfile r10k reads: `text` with the taken modules' statements
// commented out.
std::string TakeLocalForgeModules(const Puppetfile& pf, const std::string& text,
                                  const std::vector<SourceModule>& available,
                                  const std::string& shown, std::vector<const SourceModule*>* taken,
                                  std::vector<std::string>* from_forge) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  for (const PuppetfileModule& m : pf.modules) {
    if (!m.git.empty()) continue;
    absl::StatusOr<const SourceModule*> picked =
        m.install_path ? nullptr : PickSourceModule(available, m.name, m.version, shown);
    if (!picked.ok() || *picked == nullptr) {
      from_forge->push_back(m.version.empty() ? m.name : fmt::format("{} {}", m.name, m.version));
      continue;
    }
    taken->push_back(*picked);
    for (int l = m.line; l <= m.end_line && l <= static_cast<int>(lines.size()); ++l) {
      lines[l - 1] = fmt::format("# fsmove: from {}: {}", (*picked)->dir, lines[l - 1]);
    }
  }
  return absl::StrJoin(lines, "\n");
}

}  // namespace

std::string PuppetfileCacheRoot() {
  if (const char* set = std::getenv("FSMOVE_PUPPETFILE_CACHE"); set != nullptr && set[0] == '/') {
    return set;
  }
  if (geteuid() == 0) return "/var/cache/fsmove/puppetfile";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::string(xdg) + "/fsmove/puppetfile";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/tmp") + "/.cache/fsmove/puppetfile";
}

absl::StatusOr<std::string> DeployPuppetfile(const fs::path& repo, const std::string& cache_root,
                                             const std::vector<std::string>& local_sources) {
  const std::string shown = (repo / "Puppetfile").string();
  // Read beneath the repo: a Puppetfile that is a link is refused, not followed.
  absl::StatusOr<std::string> text =
      base::ReadFileBeneath(repo.string(), "Puppetfile", "Puppetfile");
  if (!text.ok()) return text.status();
  absl::StatusOr<Puppetfile> pf = ParsePuppetfile(*text, shown);
  if (!pf.ok()) return pf.status();
  for (const PuppetfileModule& m : pf->modules) {
    if (m.local.empty()) continue;
    std::error_code ec;
    const fs::path where = fs::weakly_canonical(m.local, ec);
    bool allowed = false;
    std::vector<std::string> roots = local_sources;
    roots.push_back(repo.string());
    for (const std::string& r : roots) {
      const fs::path base = fs::weakly_canonical(r, ec);
      const std::string rel = where.lexically_relative(base).string();
      allowed = allowed || (!rel.empty() && !rel.starts_with(".."));
    }
    if (!allowed || !fs::path(m.local).is_absolute()) {
      return absl::PermissionDeniedError(fmt::format(
          "{}:{}: mod '{}' comes from {} on this machine, outside the control repo: module "
          "code would see it; give its directory with --module-source DIR to allow it",
          shown, m.line, m.name, m.local));
    }
  }
  const std::string key = base::Sha256Hex(*text).substr(0, 32);
  const fs::path dir = fs::path(cache_root) / key;
  std::error_code ec;
  // A deployment of modules pinned to a version, tag or commit is what the same Puppetfile
  // deploys again. One that names a branch (or the latest release) is synced again: r10k
  // updates the cached checkout in place, fetching only what moved.
  const bool pinned = std::all_of(pf->modules.begin(), pf->modules.end(), [](const auto& m) {
    return m.git.empty() ? !m.version.empty() : m.pinned;
  });
  const bool cached = fs::is_directory(dir / "modules", ec);
  // Synced once per fsmove process: a check resolves its target more than once (its root, its
  // fixes' scope, the run), and a replay or a fix's re-check uses the same deployment.
  static std::mutex mu;
  static std::set<std::string> synced;
  std::lock_guard<std::mutex> lock(mu);
  if (cached && (pinned || synced.contains(dir.string()))) return (dir / "modules").string();
  // Only for a deployment: what this machine holds of the Forge modules.
  std::vector<const SourceModule*> taken;
  std::vector<std::string> from_forge;
  const std::vector<SourceModule> available = ListSourceModules(ForgeSources(local_sources));
  const std::string handed =
      TakeLocalForgeModules(*pf, *text, available, shown, &taken, &from_forge);
  const bool needs_r10k = taken.size() < pf->modules.size();
  const std::optional<std::string> r10k = FindExecutable("r10k", kSafePath);
  if (!r10k && needs_r10k) {
    return absl::FailedPreconditionError(fmt::format(
        "{}: deploying it needs r10k, which this machine does not have (apt-get install "
        "r10k); or deploy it yourself (r10k puppetfile install) into the repo's modules/",
        shown));
  }
  fs::create_directories(cache_root, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        fmt::format("cannot make the Puppetfile cache {}: {}", cache_root, ec.message()));
  }
  const fs::path partial =
      cached ? dir : fs::path(cache_root) / fmt::format(".{}.{}", key, getpid());
  if (!cached) {
    fs::remove_all(partial, ec);
    // modules/ made here: a Puppetfile that names no module deploys an empty directory.
    fs::create_directories(partial / "modules", ec);
    // r10k reads the Puppetfile from the copy, so that what is deployed is what was hashed.
    if (absl::Status st = base::WriteFileBeneath(partial.string(), "Puppetfile", handed);
        !st.ok()) {
      fs::remove_all(partial, ec);
      return st;
    }
  }
  if (needs_r10k) {
    if (absl::Status st = RunR10k(*r10k, partial, shown, from_forge); !st.ok()) {
      if (!cached) fs::remove_all(partial, ec);
      return st;
    }
  }
  // The modules taken from this machine, copied (links skipped: module code would see where
  // they lead) after r10k, which removes what its Puppetfile does not name.
  for (const SourceModule* m : taken) {
    const fs::path to = partial / "modules" / m->short_name;
    fs::remove_all(to, ec);
    fs::copy(m->dir, to, fs::copy_options::recursive | fs::copy_options::skip_symlinks, ec);
    if (ec) {
      const std::string why = ec.message();
      if (!cached) fs::remove_all(partial, ec);
      return absl::FailedPreconditionError(
          fmt::format("{}: cannot copy {} from {}: {}", shown, m->name, m->dir, why));
    }
  }
  synced.insert(dir.string());
  if (cached) return (dir / "modules").string();
  fs::rename(partial, dir, ec);
  if (ec && !fs::is_directory(dir / "modules")) {  // another deployment won the race: keep it
    const std::string why = ec.message();
    fs::remove_all(partial, ec);
    return absl::FailedPreconditionError(
        fmt::format("cannot keep the deployment of {} in {}: {}", shown, dir.string(), why));
  }
  fs::remove_all(partial, ec);
  return (dir / "modules").string();
}

}  // namespace fsmove::exec
