// The catalog a supervisor applies; see supervisor_catalog.h.
#include "fsmove/exec/supervisor_catalog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "fsmove/base/read_file.h"
#include "fsmove/base/seconds.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/exec/local_sources.h"
#include "fsmove/exec/output_drain.h"
#include "fsmove/exec/preinstalled_packages.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/sandbox_layout.h"

namespace fsmove::exec {

namespace {

// Where `puppet catalog find` writes the catalog (in the out directory) before it is read.
constexpr const char* kCatalogRaw = "catalog.raw";

}  // namespace

SupervisorCatalog::Compiled SupervisorCatalog::Run(const std::string& log_name, bool append) {
  Compiled c;
  // One byte over the catalog's limit: a catalog that is too big fails to read as such.
  std::unique_ptr<OutputDrain> raw =
      run_.DrainInto(kCatalogRaw, false, catalog::kMaxCatalogBytes + 1);
  std::unique_ptr<OutputDrain> log = run_.DrainInto(log_name, append, kMaxPuppetLogBytes);
  auto t0 = std::chrono::steady_clock::now();
  int st = run_.RunDrained(spec_.compile_argv, raw.get(), log.get(), "the compile's output")
               .value_or(127 << 8);
  c.seconds = base::SecondsSince(t0);
  raw.reset();
  log.reset();
  c.code = ShellExitCode(st);
  std::string text = run_.TakeOut(kCatalogRaw, catalog::kMaxCatalogBytes);
  size_t at = 0;
  bool found = false;
  while (at < text.size()) {
    size_t first = text.find_first_not_of(" \t", at);
    if (first != std::string::npos && first < text.size() && text[first] == '{') {
      found = true;
      break;
    }
    size_t nl = text.find('\n', at);
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  if (at > 0) {
    int l = run_.OpenOut(log_name, /*append=*/true);
    if (l >= 0) {
      ssize_t ignored = write(l, text.data(), at);
      (void)ignored;
      close(l);
    }
  }
  if (found) c.json = text.substr(at);
  if (c.code == 0 && !found) c.code = 1;
  return c;
}

bool SupervisorCatalog::Compile() {
  status_.Send(status::Phase{"compile"});
  Compiled c = Run(kCompileLog, /*append=*/false);
  if (!c.json.empty()) {
    text_ = std::move(c.json);
    // The apply sandbox's copy first, then the executor's, which it takes on `Compiled`.
    if (phase_ == SupervisorPhase::kCompile) run_.WriteOut(kCompiledForApplyFile, text_);
    run_.WriteOut(kCatalogFile, text_);
    NotePackages();
  }
  status_.Send(status::Compiled{c.code, c.seconds});
  return c.code == 0;
}

void SupervisorCatalog::NotePackages() {
  has_packages_ = text_.find("\"type\":\"Package\"") != std::string::npos ||
                  text_.find("\"type\": \"Package\"") != std::string::npos;
}

bool SupervisorCatalog::LoadGiven() {
  const bool replay = spec_.compile_argv.empty();
  if (replay) status_.Send(status::Phase{"compile"});
  absl::StatusOr<std::string> text =
      replay ? base::ReadUntrustedFile(fds_.in_dir, kCatalogFile, "the catalog to replay",
                                       catalog::kMaxCatalogBytes)
             : base::ReadUntrustedFile(fds_.out_dir, kCompiledForApplyFile, "the compiled catalog",
                                       catalog::kMaxCatalogBytes);
  if (!replay && fds_.out_dir >= 0) unlinkat(fds_.out_dir, kCompiledForApplyFile, 0);
  text_ = text.ok() ? std::move(*text) : std::string();
  const bool found = !text_.empty();
  if (found) {
    NotePackages();
    if (replay) run_.WriteOut(kCatalogFile, text_);
  } else if (replay) {
    run_.WriteOut(kCompileLog, "Error: the catalog to replay is missing or empty\n");
  } else {
    status_.Send(status::Error{"the apply sandbox found no compiled catalog"});
  }
  if (replay) status_.Send(status::Compiled{found ? 0 : 1, 0.0});
  return found;
}

void SupervisorCatalog::PrepareApply() {
  // Keep multi-megabyte binary reads out of the trace (untraced preparation):
  // - container images disable apt's binary cache (docker-clean), so every apt run would
  //   re-read the package lists (~130 MB of escaped trace each): re-enable and build it;
  // - man-db's dpkg trigger re-indexes every man page (~200 MB of trace): turn it off;
  // - without package lists (images ship none) a Package resource cannot install: fetch them.
  status_.Send(status::Phase{"prep"});
  std::string docker_clean = run_.root() + "/etc/apt/apt.conf.d/docker-clean";
  if (unlink(docker_clean.c_str()) == 0)
    status_.Send(status::Note{"prep: removed docker-clean apt config"});
  std::string man_db = run_.root() + "/var/lib/man-db/auto-update";
  if (unlink(man_db.c_str()) == 0) status_.Send(status::Note{"prep: man-db auto-update off"});
  // Their output is drained into the out directory (output_drain.h), as Puppet's is: a
  // process of an earlier phase that outlived it cannot rewrite what they said.
  bool first = true;
  auto run_into = [&](const std::vector<std::string>& argv, const std::string& out) -> int {
    std::unique_ptr<OutputDrain> log = run_.DrainInto(kPrepLog, /*append=*/!first, kMaxOutBytes);
    first = false;
    std::unique_ptr<OutputDrain> captured =
        out.empty() ? nullptr : run_.DrainInto(out, /*append=*/false, kMaxOutBytes);
    const std::optional<int> st =
        run_.RunDrained(argv, captured ? captured.get() : log.get(), log.get(), "the prep's log");
    return st.value_or(127 << 8);
  };
  auto prep = [&](const std::vector<std::string>& argv) { return run_into(argv, ""); };
  if (has_packages_) {
    bool lists = false;
    std::error_code ec;
    for (const auto& e :
         std::filesystem::directory_iterator(run_.root() + "/var/lib/apt/lists", ec)) {
      if (e.path().filename().string().find("_Packages") != std::string::npos) lists = true;
    }
    if (!lists) {
      int st = prep({"apt-get", "update", "-qq"});
      status_.Send(status::Note{
          fmt::format("prep: no apt package lists; apt-get update: {}", DescribeWaitStatus(st))});
    }
  }
  int st = prep({"apt-cache", "gencaches"});
  if (st != 0)
    status_.Send(
        status::Note{fmt::format("prep: apt-cache gencaches: {}", DescribeWaitStatus(st))});
  if (has_packages_ && spec_.preinstalled == "remove") RemovePreinstalled(run_into);
}

void SupervisorCatalog::RemovePreinstalled(const PrepRun& run) {
  absl::StatusOr<std::vector<std::string>> installs = CatalogInstalls(text_);
  if (!installs.ok() || installs->empty()) return;
  constexpr const char* kQueryOut = "prep-dpkg-query.txt";
  constexpr const char* kSimulationOut = "prep-apt-simulation.txt";
  auto note = [&](const std::string& text) { status_.Send(status::Note{"prep: " + text}); };
  int st = run({"dpkg-query", "-W", fmt::format("-f={}", kDpkgQueryFormat)}, kQueryOut);
  const std::string query = run_.TakeOut(kQueryOut, kMaxOutBytes);
  if (st != 0) return note("dpkg-query: " + DescribeWaitStatus(st) + "; no package removed");
  RemovalPlan plan = PlanRemoval(*installs, ParseDpkgQuery(query));
  if (!plan.kept.empty()) {
    note(fmt::format("kept what the catalog installs and the root has: {}",
                     absl::StrJoin(plan.kept, ", ")));
  }
  if (plan.remove.empty()) return;
  const std::string names = absl::StrJoin(plan.remove, " ");
  auto apt = [&](std::initializer_list<const char*> words, const std::string& out) {
    std::vector<std::string> argv = {"env", "DEBIAN_FRONTEND=noninteractive"};
    argv.insert(argv.end(), words.begin(), words.end());
    argv.insert(argv.end(), plan.remove.begin(), plan.remove.end());
    return run(argv, out);
  };
  // Their .debs first: apt-get installs them again from its cache when Puppet asks, and a
  // package that cannot be fetched (no network, a mirror without it) is not removed at all.
  st = apt({"apt-get", "install", "--reinstall", "--download-only", "-y", "-qq"}, "");
  if (st != 0) {
    return note(
        fmt::format("kept {} (what the catalog installs and the root has): downloading "
                    "them again: {}",
                    names, DescribeWaitStatus(st)));
  }
  st = apt({"apt-get", "-s", "purge"}, kSimulationOut);
  std::set<std::string> others = SimulatedRemovals(run_.TakeOut(kSimulationOut, kMaxOutBytes));
  for (const std::string& name : plan.remove) others.erase(name);
  if (st != 0 || !others.empty()) {
    return note(fmt::format("kept {} (what the catalog installs and the root has): apt would {}",
                            names,
                            st != 0 ? "not remove them: " + DescribeWaitStatus(st)
                                    : fmt::format("also remove {}", absl::StrJoin(others, ", "))));
  }
  st = apt({"apt-get", "purge", "-y", "-qq"}, "");
  note(st == 0 ? fmt::format("removed {} (what the catalog installs and the root has, with what "
                             "only they need), so that their install is traced",
                             names)
               : fmt::format("removing {}: {}", names, DescribeWaitStatus(st)));
}

void SupervisorCatalog::WriteApplyCopy(std::vector<std::string>* apply_argv) const {
  const std::string original = InsideWorkDir(spec_) + "/" + kCatalogFile;
  for (std::string& arg : *apply_argv) {
    if (arg == original) arg = InsideWorkDir(spec_) + "/" + kApplyCatalogFile;
  }
  std::vector<std::string> modulepath;
  std::string environments, environment;
  for (size_t i = 0; i + 1 < apply_argv->size(); ++i) {
    const std::string& arg = (*apply_argv)[i];
    if (arg == "--environmentpath") environments = (*apply_argv)[i + 1];
    if (arg == "--environment") environment = (*apply_argv)[i + 1];
    if (arg != "--modulepath") continue;
    std::stringstream parts((*apply_argv)[i + 1]);
    for (std::string p; std::getline(parts, p, ':');) modulepath.push_back(p);
  }
  if (!environments.empty() && !environment.empty()) {
    // A control repo's environment: the modulepath of the environment.conf fsmove wrote
    // (LayOutEnvironment; "$basemodulepath" names no directory here).
    std::ifstream conf(environments + "/" + environment + "/environment.conf");
    for (std::string line; std::getline(conf, line);) {
      if (!line.starts_with("modulepath = ")) continue;
      std::stringstream parts(line.substr(13));
      for (std::string p; std::getline(parts, p, ':');) {
        if (!p.starts_with("$")) modulepath.push_back(p);
      }
    }
  }
  // Our root is the sandbox's (pivoted), so its paths are the ones Puppet will see.
  auto exists = [](const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
  };
  absl::StatusOr<LocalizedSources> localized;
  if (text_.find("puppet://") != std::string::npos) {
    localized = LocalizePuppetSources(text_, modulepath, exists);
  }
  bool served = localized.ok() && localized->rewritten > 0;
  (void)WriteFileWithMode(run_.Inside(kApplyCatalogFile), served ? localized->catalog_json : text_,
                          0644);
  if (!served) return;
  status_.Send(status::Note{
      fmt::format("apply: {} puppet:/// source{} served from the modulepath{}",
                  localized->rewritten, localized->rewritten == 1 ? "" : "s",
                  localized->unresolved.empty()
                      ? std::string()
                      : fmt::format(" ({} not found there)", localized->unresolved.size()))});
}

}  // namespace fsmove::exec
