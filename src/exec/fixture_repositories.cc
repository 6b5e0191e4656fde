// .fixtures.yml's git repositories, fetched; see fixture_repositories.h.
#include "fsmove/exec/fixture_repositories.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "fmt/format.h"
#include "fsmove/base/sha256.h"
#include "fsmove/exec/control_repo.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/target.h"
#include "re2/re2.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

// A fetch that takes longer than this is given up (a host that accepts and never answers).
constexpr int kFetchSeconds = 300;

std::string_view Unquoted(std::string_view v) {
  // A comment after the value; then the quotes.
  if (const size_t hash = v.find(" #"); hash != std::string_view::npos) v = v.substr(0, hash);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  return v;
}

// A ref that names one tree for good: a commit, or a version tag (v1.2.3, 1.2.3).
bool PinnedRef(const std::string& ref) {
  static const RE2 kPinned(R"(([0-9a-f]{40})|(v?[0-9]+(\.[0-9]+)+))");
  return RE2::FullMatch(ref, kPinned);
}

bool Inside(const fs::path& path, const std::string& dir) {
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(dir, ec);
  const std::string rel = fs::weakly_canonical(path, ec).lexically_relative(base).string();
  return !rel.empty() && !rel.starts_with("..");
}

// Why `r` is not fetched, or "" when it may be.
std::string Refused(const FixtureRepository& r, const std::string& module_dir,
                    const std::vector<std::string>& local_sources) {
  if (r.repo.starts_with("-") || r.ref.starts_with("-")) {
    return "a URL or ref that starts with '-' would read as an option of git";
  }
  if (r.repo.starts_with("file://")) {
    const fs::path path = r.repo.substr(7);
    if (!path.is_absolute()) return "a file:// URL fsmove takes is absolute";
    bool allowed = Inside(path, module_dir);
    for (const std::string& s : local_sources) allowed = allowed || Inside(path, s);
    return allowed ? ""
                   : "it is on this machine, outside the module and the --module-source "
                     "directories: module code would see it";
  }
  for (const char* scheme : {"https://", "http://", "git://"}) {
    if (r.repo.starts_with(scheme)) return "";
  }
  return "fsmove fetches public https, http and git URLs only (an SSH URL would use your "
         "credentials)";
}

// git with none of the user's configuration or credentials, limited in time.
absl::StatusOr<CapturedRun> Git(const std::string& git, const std::string& home,
                                const std::vector<std::string>& args) {
  std::vector<std::string> argv;
  if (std::optional<std::string> timeout = FindExecutable("timeout", kSafePath)) {
    argv = {*timeout, "-k", "10", std::to_string(kFetchSeconds)};
  }
  argv.insert(argv.end(), {git, "-c", "protocol.allow=never", "-c", "protocol.https.allow=always",
                           "-c", "protocol.http.allow=always", "-c", "protocol.git.allow=always",
                           "-c", "protocol.file.allow=always", "-c", "credential.helper=", "-c",
                           "core.hooksPath=/dev/null", "-c", "advice.detachedHead=false"});
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = {
      fmt::format("PATH={}", kSafePath), "HOME=" + home,          "LANG=C.UTF-8",
      "GIT_CONFIG_NOSYSTEM=1",           "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/false",
      "GIT_SSH_COMMAND=/bin/false"};
  for (const char* keep : {"http_proxy", "https_proxy", "no_proxy"}) {
    if (const char* v = std::getenv(keep); v != nullptr)
      env.push_back(fmt::format("{}={}", keep, v));
  }
  return RunCaptured(argv, env);
}

// `r` checked out into `partial` (made here); an error says what git printed.
absl::Status Fetch(const std::string& git, const FixtureRepository& r, const fs::path& partial) {
  std::error_code ec;
  fs::remove_all(partial, ec);
  fs::create_directories(partial / ".home", ec);
  const std::string home = (partial / ".home").string();
  const std::string tree = (partial / "tree").string();
  const bool commit = r.ref.size() == 40 && PinnedRef(r.ref);
  std::vector<std::vector<std::string>> steps = {{"init", "-q", tree}};
  // A commit may be no branch's tip: fetched with the history (a server need not serve any
  // commit alone); a branch or tag alone, at depth 1.
  if (commit) {
    steps.push_back({"-C", tree, "fetch", "-q", "--", r.repo});
    steps.push_back({"-C", tree, "checkout", "-q", "--detach", r.ref});
  } else {
    steps.push_back(
        {"-C", tree, "fetch", "-q", "--depth", "1", "--", r.repo, r.ref.empty() ? "HEAD" : r.ref});
    steps.push_back({"-C", tree, "checkout", "-q", "--detach", "FETCH_HEAD"});
  }
  for (const std::vector<std::string>& step : steps) {
    absl::StatusOr<CapturedRun> run = Git(git, home, step);
    if (!run.ok()) return run.status();
    if (run->wait_status != 0) {
      std::string why = run->err.empty() ? run->out : run->err;
      while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
      if (why.size() > 500) why = "..." + why.substr(why.size() - 500);
      return absl::UnavailableError(
          fmt::format("git {}: {}", step[step[0] == "-C" ? 2 : 0],
                      why.empty() ? DescribeWaitStatus(run->wait_status) : why));
    }
  }
  fs::remove_all(fs::path(tree) / ".git", ec);
  fs::remove_all(partial / ".home", ec);
  return absl::OkStatus();
}

}  // namespace

std::vector<YamlKeyLine> YamlKeyLines(std::string_view yaml) {
  std::vector<YamlKeyLine> out;
  int number = 0;
  size_t pos = 0;
  while (pos < yaml.size()) {
    size_t end = yaml.find('\n', pos);
    if (end == std::string_view::npos) end = yaml.size();
    std::string_view line = yaml.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string_view::npos || line[first] == '#') continue;
    const std::string_view body = line.substr(first);
    const size_t colon = body.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    out.push_back({number, static_cast<int>(first), Unquoted(body.substr(0, colon)),
                   Unquoted(body.substr(colon + 1))});
  }
  return out;
}

std::vector<FixtureRepository> FixtureRepositories(std::string_view yaml) {
  std::vector<FixtureRepository> out;
  int section_indent = -1;  // of `repositories:`, -1 outside it
  int entry_indent = -1;    // of its entries, learnt from the first
  for (const YamlKeyLine& l : YamlKeyLines(yaml)) {
    if (section_indent >= 0 && l.indent <= section_indent) section_indent = -1;
    if (section_indent < 0) {
      if (l.key == "repositories") {
        section_indent = l.indent;
        entry_indent = -1;
      }
      continue;
    }
    if (entry_indent < 0) entry_indent = l.indent;
    if (l.indent == entry_indent) {
      // An entry fsmove cannot name a module by is skipped, with what is nested under it.
      out.push_back(
          {IsValidModuleName(l.key) ? std::string(l.key) : "", std::string(l.value), "", l.number});
    } else if (l.indent > entry_indent && !out.empty() && !out.back().name.empty()) {
      if (l.key == "repo") out.back().repo = l.value;
      if (l.key == "ref" || (l.key == "branch" && out.back().ref.empty())) out.back().ref = l.value;
    }
  }
  std::erase_if(out, [](const FixtureRepository& r) { return r.name.empty() || r.repo.empty(); });
  return out;
}

std::string FixturesCacheRoot() { return (fs::path(PuppetfileCacheRoot()) / "fixtures").string(); }

FetchedFixtures FetchFixtureRepositories(const std::vector<FixtureRepository>& repositories,
                                         const std::string& module_dir,
                                         const std::vector<std::string>& local_sources,
                                         const std::string& cache_root, const std::string& shown) {
  FetchedFixtures out;
  if (repositories.empty()) return out;
  const std::optional<std::string> git = FindExecutable("git", kSafePath);
  // Fetched once per fsmove process: a check resolves its target more than once.
  static std::mutex mu;
  static std::set<std::string> fetched;
  static std::map<std::string, std::string> failed;  // not tried again: each may take minutes
  std::lock_guard<std::mutex> lock(mu);
  for (const FixtureRepository& r : repositories) {
    const std::string at = fmt::format("{}:{}: {} ({}{})", shown, r.line, r.name, r.repo,
                                       r.ref.empty() ? "" : " " + r.ref);
    if (const std::string why = Refused(r, module_dir, local_sources); !why.empty()) {
      out.notes.push_back(
          fmt::format("{}: not fetched: {}; give the module with "
                      "--module-source DIR",
                      at, why));
      continue;
    }
    const fs::path dir =
        fs::path(cache_root) / base::Sha256Hex(r.repo + "\n" + r.ref).substr(0, 32) / r.name;
    std::error_code ec;
    const bool cached = fs::is_directory(dir, ec);
    if (auto f = failed.find(dir.string()); f != failed.end()) {
      out.notes.push_back(f->second);
      continue;
    }
    if (!cached || !(PinnedRef(r.ref) || fetched.contains(dir.string()))) {
      absl::Status st =
          git ? absl::OkStatus() : absl::FailedPreconditionError("this machine has no git");
      const fs::path partial = dir.parent_path() / fmt::format(".{}.{}", r.name, getpid());
      if (st.ok()) {
        fs::create_directories(dir.parent_path(), ec);
        st = Fetch(*git, r, partial);
      }
      if (st.ok()) {
        fs::remove_all(dir, ec);
        fs::rename(partial / "tree", dir, ec);
        if (ec)
          st = absl::InternalError(
              fmt::format("cannot keep it in {}: {}", dir.string(), ec.message()));
      }
      fs::remove_all(partial, ec);
      if (!st.ok()) {
        if (!fs::is_directory(dir, ec)) {
          const std::string note =
              fmt::format("{}: not fetched: {}", at, std::string(st.message()));
          failed.emplace(dir.string(), note);
          out.notes.push_back(note);
          continue;
        }
        out.notes.push_back(fmt::format("{}: not fetched ({}): the copy fetched before is used", at,
                                        std::string(st.message())));
      }
      fetched.insert(dir.string());
    }
    bool found = false;
    for (SourceModule& m : ListSourceModules({dir.parent_path().string()})) {
      if (m.short_name != r.name) continue;
      m.source = fmt::format("{}'s {}{}", shown, r.repo, r.ref.empty() ? "" : "@" + r.ref);
      out.modules.push_back(std::move(m));
      found = true;
    }
    if (!found) out.notes.push_back(fmt::format("{}: fetched, but it holds no module", at));
  }
  return out;
}

}  // namespace fsmove::exec
