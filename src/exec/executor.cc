// `fsmove check`'s executor; see executor.h. The run's pieces live beside it: the typed
// status pipe (status_message), the keeper's watch (supervisor_watch), the trace FIFO
// (trace_stream), the checks before a run (preflight) and strace's command (puppet_command).
#include "fsmove/exec/executor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "fsmove/base/errno_status.h"
#include "fsmove/base/output_file.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/memory_limit.h"
#include "fsmove/exec/overlay_mount.h"
#include "fsmove/exec/preflight.h"
#include "fsmove/exec/process.h"
#include "fsmove/exec/puppet_command.h"
#include "fsmove/exec/supervisor_watch.h"

namespace fsmove::exec {
namespace {

using Clock = std::chrono::steady_clock;

// An output the user named (--puppet-log, --save-catalog): written by us, from memory, whole
// (a temporary file renamed into place).
absl::Status WriteWholeFile(const std::string& path, std::string_view text) {
  return base::WriteOutputFile(path, text);
}

// A private (0700) fsmove-check.XXXXXX under --work-dir, $TMPDIR or /tmp: it holds the
// catalog and Puppet's log, which can hold secrets. The sandbox and Puppet run as root, the
// owner without a sandbox.
absl::StatusOr<std::string> MakeWorkDir(const CheckRequest& request) {
  std::string parent = request.work_parent;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  std::string tmpl = parent + "/fsmove-check.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr)
    return base::ErrnoStatus(fmt::format("cannot create {}", tmpl));
  // in/: what the sandbox reads (readable by its root, whose ids are not the host user's);
  // out/: what its supervisor writes, through a descriptor (the 0700 work directory keeps
  // everyone else out of both).
  for (const auto& [name, mode] : {std::pair{"in", 0755}, std::pair{kOutDir, 0777}}) {
    const std::string dir = tmpl + "/" + name;
    if (mkdir(dir.c_str(), 0700) != 0 || chmod(dir.c_str(), static_cast<mode_t>(mode)) != 0)
      return base::ErrnoStatus(fmt::format("cannot create {}", dir));
  }
  return tmpl;
}

// The work directory's modules/ (`in` on the host, `inside` in the sandbox): the module under
// its own name when its directory has another, and the dependencies taken from a module
// source (module_sources.h); and the modulepath: that directory first with the module (the
// dependencies there are in no other directory), else last, around the target's own.
absl::Status LinkModules(const ResolvedTarget& target, const std::string& in,
                         const std::string& inside, RunResult* result,
                         std::vector<std::string>* modulepath) {
  std::vector<std::pair<std::string, std::string>> links = target.dependency_links;
  if (target.link_module) links.insert(links.begin(), {target.module_name, target.module_dir});
  const std::string links_dir = fmt::format("{}/{}", in, kModuleLinks);
  const std::string links_inside = fmt::format("{}/{}", inside, kModuleLinks);
  if (!links.empty()) mkdir(links_dir.c_str(), 0755);
  for (const auto& [name, dir] : links) {
    result->manifest_paths.emplace_back(fmt::format("{}/{}/", links_inside, name),
                                        fmt::format("{}/", dir));
    if (symlink(dir.c_str(), fmt::format("{}/{}", links_dir, name).c_str()) != 0) {
      return base::ErrnoStatus(fmt::format("cannot link module {} into {}", name, links_dir));
    }
  }
  if (target.link_module) modulepath->push_back(links_inside);
  modulepath->insert(modulepath->end(), target.modulepath.begin(), target.modulepath.end());
  if (!target.link_module && !links.empty()) modulepath->push_back(links_inside);
  // The root's own modules last (kRootPuppetModules), as Puppet's basemodulepath has them
  // when no modulepath is given.
  if (std::find(modulepath->begin(), modulepath->end(), kRootPuppetModules) == modulepath->end()) {
    modulepath->push_back(kRootPuppetModules);
  }
  return absl::OkStatus();
}

// A control repo as the environment Puppet compiles: in/environments/production holds a link
// to each of the repo's own files and directories (hiera.yaml and data/ as the environment
// layer reads them), `modules` linked to the Puppetfile's deployment, and an environment.conf
// written here: the modulepath absolute, the manifest the repo's (or, with --class, the
// one that includes it), and no config_version (a script of the repo, which would run at
// compile time).
absl::Status LayOutEnvironment(const ResolvedTarget& target, const std::string& in,
                               const std::string& manifest) {
  namespace fs = std::filesystem;
  const fs::path env = fs::path(in) / kEnvironments / kEnvironmentName;
  std::error_code ec;
  fs::create_directories(env, ec);
  if (ec) return absl::InternalError(fmt::format("cannot make {}: {}", env.string(), ec.message()));
  for (const fs::directory_entry& e : fs::directory_iterator(target.environment_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == "environment.conf" || (name == "modules" && !target.deployed_modules.empty())) {
      continue;
    }
    fs::create_symlink(e.path(), env / name, ec);
    if (ec) return absl::InternalError(fmt::format("cannot link {}: {}", name, ec.message()));
  }
  if (!target.deployed_modules.empty()) {
    fs::create_symlink(target.deployed_modules, env / "modules", ec);
    if (ec) return absl::InternalError(fmt::format("cannot link modules: {}", ec.message()));
  }
  // The root's own modules last, unless the repo's modulepath has them ($basemodulepath).
  std::vector<std::string> entries = target.environment_modulepath;
  if (std::find(entries.begin(), entries.end(), "$basemodulepath") == entries.end() &&
      std::find(entries.begin(), entries.end(), kRootPuppetModules) == entries.end()) {
    entries.push_back(kRootPuppetModules);
  }
  const std::string modulepath = absl::StrJoin(entries, ":");
  return base::WriteOutputFile((env / "environment.conf").string(),
                               fmt::format("# written by fsmove from {}/environment.conf\n"
                                           "modulepath = {}\nmanifest = {}\n",
                                           target.environment_dir, modulepath, manifest));
}

// Puppet's settings naming the code: for the compile (`code`) a manifest and the modulepath
// `mp`, or a control repo's environment (laid out in the work directory), and for the apply
// (`at_apply`) where the catalog's types and providers load from.
absl::Status CodeSettings(const ResolvedTarget& target, const std::string& in,
                          const std::string& inside, const std::string& manifest,
                          const std::vector<std::string>& modulepath,
                          std::vector<std::string>* code, std::vector<std::string>* at_apply) {
  if (target.kind == ResolvedTarget::Kind::kEnvironment) {
    const std::string env_manifest =
        target.manifest_text.empty() ? target.environment_manifest : manifest;
    if (absl::Status st = LayOutEnvironment(target, in, env_manifest); !st.ok()) return st;
    *code = {"--environmentpath", inside + "/" + kEnvironments, "--environment", kEnvironmentName};
    *at_apply = *code;
    return absl::OkStatus();
  }
  *code = {"--manifest", manifest};
  if (modulepath.empty()) return absl::OkStatus();
  code->insert(code->end(), {"--modulepath", absl::StrJoin(modulepath, ":")});
  // At apply time the catalog's types and providers load from the same directories, named by
  // links of the work directory: Puppet's command line names no host directory (a Service
  // with hasstatus => false greps `ps` for its name, which a checkout's path may hold).
  const std::string links = fmt::format("{}/{}", in, kApplyModulepathLinks);
  mkdir(links.c_str(), 0755);
  std::vector<std::string> linked;
  for (const std::string& dir : modulepath) {
    const std::string n = std::to_string(linked.size());
    if (symlink(dir.c_str(), fmt::format("{}/{}", links, n).c_str()) != 0) {
      return base::ErrnoStatus(fmt::format("cannot link {} into {}", dir, links));
    }
    linked.push_back(fmt::format("{}/{}/{}", inside, kApplyModulepathLinks, n));
  }
  *at_apply = {"--modulepath", absl::StrJoin(linked, ":")};
  return absl::OkStatus();
}

// --facts FILE: the file and the script that merges it, copied into the work directory, and
// the compile's command line that runs the script (puppet_command.h's FactsCompileArgv).
absl::StatusOr<std::vector<std::string>> WithFacts(const CheckRequest& request,
                                                   std::string_view facts, const std::string& in,
                                                   const std::string& inside,
                                                   const std::vector<std::string>& compile_argv) {
  const std::string copy = FactsCopyName(request.facts_file);
  for (const auto& [name, text] : {std::pair<std::string, std::string_view>{copy, facts},
                                   {kMergeFactsFile, MergeFactsScript()}}) {
    if (absl::Status st = base::WriteOutputFile(absl::StrCat(in, "/", name), text); !st.ok()) {
      return st;
    }
  }
  const std::string ruby = request.root.host() ? RubyOf(PuppetExecutable()) : kRootRuby;
  return FactsCompileArgv(ruby, inside + "/" + kMergeFactsFile, request.facts_file,
                          inside + "/" + copy, compile_argv);
}

// The node the catalog is compiled for: --node's, else the one the facts file (`facts`, its
// text) is of (a server's cache, `puppet facts find`), said in a note, else this machine's
// certname (`machine`, CertName's, as the sandbox is named); `named` is whether one was named
// (then Puppet gets it as --certname too).
std::string NodeFor(const CheckRequest& request, std::string_view facts, const std::string& machine,
                    RunResult* result, bool* named) {
  std::string node = request.node;
  if (node.empty() && !facts.empty()) {
    node = FactsFileNode(facts);
    if (!node.empty()) {
      result->summary.node = node;
      result->notes.push_back(
          fmt::format("compiled for node {}, the facts file's (--node names another)", node));
    }
  }
  *named = !node.empty();
  return node.empty() ? machine : node;
}

// `puppet catalog find` for the node (NodeFor), with --facts its script's command line that
// runs it (WithFacts); the facts file is read once, for its node name and its copy.
absl::StatusOr<std::vector<std::string>> CompileArgv(
    const CheckRequest& request, const std::string& puppet, const std::vector<std::string>& code,
    const std::string& in, const std::string& inside, const std::string& machine,
    RunResult* result) {
  std::string facts;
  if (!request.facts_file.empty()) {
    absl::StatusOr<std::string> text = base::ReadFile(request.facts_file, "--facts");
    if (!text.ok()) return text.status();
    facts = std::move(*text);
  }
  bool named = false;
  const std::string node = NodeFor(request, facts, machine, result, &named);
  std::vector<std::string> argv = {puppet,       "catalog",     "find",
                                   "--terminus", "compiler",    "--render-as",
                                   "json",       "--log_level", "err"};
  argv.insert(argv.end(), code.begin(), code.end());
  // --node: the certname too, which trusted.certname (Hiera's usual per-node level) is.
  if (named) argv.insert(argv.end(), {"--certname", node});
  argv.push_back(node);
  if (request.facts_file.empty()) return argv;
  return WithFacts(request, facts, in, inside, argv);
}

// The sandbox's spec for this run, with the work directory laid out for it (manifest, module
// link, graph directory); the notes and manifest paths it implies go to `result`.
absl::StatusOr<SandboxSpec> PrepareSandbox(const CheckRequest& request,
                                           const ResolvedTarget& target, const std::string& work,
                                           RunResult* result) {
  SandboxSpec spec;
  spec.mode = request.sandbox;
  spec.work_dir = work;
  spec.scratch_dir = work + "/sandbox";
  spec.input_paths = target.input_paths;
  spec.input_at = target.input_at;
  spec.linked_module_dirs = target.linked_module_dirs;
  spec.policy_rc = request.policy_rc;
  spec.prep = request.prep;
  spec.preinstalled = request.preinstalled;
  spec.keep_dir = request.keep_sandbox;
  spec.memory_limit = request.memory_limit;
  static std::atomic<unsigned> runs{0};
  // A cgroup for the memory limit, for systemd, and without the sandbox for the process tree.
  if (spec.memory_limit > 0 || request.pids_limit > 0 || request.init == "systemd" ||
      spec.mode == SandboxMode::kNone) {
    spec.cgroup_name = MemoryCgroupName(++runs);
  }
  spec.lower_dir = request.root.dir;
  spec.init = request.init;
  spec.host_name = CertName();
  spec.reapplies = request.reapplies;
  spec.probe_paths = request.probe_paths;
  // In the sandbox Puppet runs as its root, whoever runs fsmove: root's environment, nothing
  // else (PuppetEnvironment names the user running fsmove).
  spec.env = spec.mode == SandboxMode::kOverlay
                 ? std::vector<std::string>{fmt::format("PATH={}", kSafePath), "LANG=C.UTF-8",
                                            "HOME=/root", "USER=root", "LOGNAME=root"}
                 : PuppetEnvironment();
  spec.pids_limit = request.pids_limit;
  if (spec.mode == SandboxMode::kOverlay) {
    // Who owns the root's files on disk: uid 0 (built as root, the host) or a user's
    // subordinate range (built rootless).
    spec.lower_id_base = request.root.id_base;
    // Tests force either way of mounting the overlay, whatever this kernel can do.
    if (const char* how = getenv("FSMOVE_SANDBOX_OVERLAY"); how != nullptr && *how != '\0') {
      if (!ParseOverlayMount(how)) {
        return absl::InvalidArgumentError(
            fmt::format("FSMOVE_SANDBOX_OVERLAY={}: expected auto, sandbox or keeper", how));
      }
      spec.overlay_mount = how;
    }
  }
  if (request.pin_cpu && request.sandbox == SandboxMode::kOverlay && !request.untraced) {
    spec.trace_cpu = TracingCpu();  // said once the apply ran (RunCheck)
  }
  const std::string inside = InsideWorkDir(spec);
  if (spec.mode == SandboxMode::kOverlay) mkdir(spec.scratch_dir.c_str(), 0700);

  const std::string in = work + "/in";
  mkdir((in + "/" + kGraphDir).c_str(), 0755);

  std::string manifest = target.manifest_path;
  if (!target.manifest_text.empty()) {
    std::ofstream(in + "/" + kManifestFile) << target.manifest_text;
    manifest = inside + "/" + kManifestFile;
  }
  std::vector<std::string> modulepath;
  if (!target.manifest_text.empty()) {
    result->manifest_paths.emplace_back(inside + "/" + kManifestFile, in + "/" + kManifestFile);
  }
  if (absl::Status st = LinkModules(target, in, inside, result, &modulepath); !st.ok()) return st;
  // Puppet's settings naming what it compiles: a manifest and modulepath, or an environment.
  std::vector<std::string> code, modules_at_apply;
  if (absl::Status st =
          CodeSettings(target, in, inside, manifest, modulepath, &code, &modules_at_apply);
      !st.ok()) {
    return st;
  }
  // On a pinned root, its own Puppet and strace (the sandbox runs them after pivot_root).
  const std::string puppet = request.root.host() ? PuppetExecutable() : kRootPuppet;
  if (request.apply_catalog.empty()) {
    absl::StatusOr<std::vector<std::string>> compile =
        CompileArgv(request, puppet, code, in, inside, spec.host_name, result);
    if (!compile.ok()) return compile.status();
    spec.compile_argv = std::move(*compile);
  } else if (absl::Status st =
                 base::WriteOutputFile(in + "/" + kCatalogFile, request.apply_catalog);
             !st.ok()) {
    return st;
  }
  if (!request.refresh_catalog.empty()) {
    for (const auto& [name, text] : {std::pair{kRefreshCatalogFile, &request.refresh_catalog},
                                     std::pair{kSecondCatalogFile, &request.second_catalog}}) {
      if (absl::Status st = base::WriteOutputFile(in + "/" + name, *text); !st.ok()) return st;
    }
    spec.refresh = true;
  }
  if (!request.untraced) {
    spec.strace_argv = StraceArguments(request.root.host() ? StraceExecutable() : kRootStrace,
                                       inside + "/" + kTraceFifo, request.traced_syscalls,
                                       request.strace_string_limit, request.strace_timestamps);
    // With systemd as PID 1, strace also follows it: the daemons a Service's `systemctl
    // start` asks for are PID 1's children. (The kernel-side filter only holds for Puppet's
    // own processes: those of PID 1 stop at every call.)
    if (request.init == "systemd") {
      spec.strace_argv.insert(spec.strace_argv.end() - 1, {"-p", "1"});
    }
  }
  // The catalog's custom types and providers load from the modulepath at apply time too.
  // --graph: Puppet writes the relationship graph it applies (expanded_relationships.dot)
  // before evaluating anything; we read it after the run, as an untrusted file.
  spec.apply_argv = {puppet,        "apply",   "--catalog",  inside + "/" + kCatalogFile, "--debug",
                     "--evaltrace", "--graph", "--graphdir", inside + "/" + kGraphDir};
  spec.apply_argv.insert(spec.apply_argv.end(), modules_at_apply.begin(), modules_at_apply.end());
  return spec;
}

// Puppet's log of the traced apply (copied to --puppet-log, summarised into the run's failed
// resources, errors and Facter's warnings) and systemd's (the service units that failed).
// Code in the sandbox may have replaced either (a symlink to a root-only host file, a FIFO):
// both are read as untrusted files, and the copy is written here.
void TakeApplyLogs(const CheckRequest& request, const std::string& work, int work_fd,
                   RunResult* result) {
  RunSummary& s = result->summary;
  s.puppet_log = work + "/" + kOutDir + "/" + kPuppetLog;
  absl::StatusOr<std::string> log_text =
      base::ReadUntrustedFile(work_fd, kPuppetLog, "Puppet's log", kMaxPuppetLogBytes);
  if (!log_text.ok() && !absl::IsNotFound(log_text.status())) {
    result->notes.push_back(
        fmt::format("Puppet's log not read: {}", std::string(log_text.status().message())));
  }
  if (!request.puppet_log.empty() && log_text.ok()) {
    if (absl::Status st = WriteWholeFile(request.puppet_log, *log_text); !st.ok()) {
      result->notes.push_back(fmt::format("cannot copy Puppet's log to {}: {}", request.puppet_log,
                                          std::string(st.message())));
    } else {
      s.puppet_log = request.puppet_log;
    }
  }
  if (log_text.ok()) {
    PuppetLogSummary log = SummarisePuppetLog(*log_text);
    // Each resource's outcome only for those who compare them: --idempotence, replays.
    if (request.reapplies > 0 || !request.apply_catalog.empty()) {
      result->outcomes = ParseApplyOutcomes(*log_text, log.failed);
    }
    s.failed = std::move(log.failed);
    s.errors = std::move(log.errors);
    s.warnings.insert(s.warnings.end(), log.facter_warnings.begin(), log.facter_warnings.end());
  }
  if (absl::StatusOr<std::string> text =
          base::ReadUntrustedFile(work_fd, kSystemdLog, "systemd's log", kMaxPuppetLogBytes);
      text.ok()) {
    result->failed_units = FailedUnits(*text);
  }
}

// What the supervisor said and what the run left in the work directory (Puppet's logs, the
// catalog), into `result`; the copies the user asked for are written.
void RecordRun(const CheckRequest& request, const std::string& work, int work_fd,
               SupervisorReport& report, RunResult* result) {
  if (report.timed_out && report.applied && report.phase.starts_with("reapply")) {
    // The traced apply was over: the check stands; only the idempotence check is cut short.
    report.timed_out = false;
    report.notes.push_back(
        fmt::format("--timeout stopped apply {} of the idempotence check", report.phase.substr(7)));
    result->reapplies_cut_short = true;
  }
  result->notes.insert(result->notes.begin(), report.notes.begin(), report.notes.end());
  result->summary.limits_hit = report.limits;
  result->summary.warnings = report.warnings;
  if (!request.root_warning.empty()) {
    result->summary.warnings.insert(result->summary.warnings.begin(), request.root_warning);
  }
  RunSummary& s = result->summary;
  s.compile_seconds = report.compile_seconds;
  s.apply_seconds = report.apply_seconds;
  s.puppet_exit_code = report.apply_code;
  s.strace_end = report.strace_end;
  s.timed_out = report.timed_out;
  if (report.timed_out) s.timed_out_phase = report.phase.empty() ? "sandbox" : report.phase;
  TakeApplyLogs(request, work, work_fd, result);
  for (const status::Skipped& u : report.skipped) {
    result->skipped_units.push_back({u.unit, u.condition});
  }
  for (const status::Reapplied& ran : report.reapplies) {
    Reapply& a = result->reapplies.emplace_back();
    a.index = ran.index;
    a.exit_code = ran.exit_code;
    a.seconds = ran.seconds;
    const std::string name = ReapplyLogName(a.index);
    absl::StatusOr<std::string> text =
        base::ReadUntrustedFile(work_fd, name, "Puppet's log", kMaxPuppetLogBytes);
    if (!text.ok()) {
      result->notes.push_back(fmt::format("the log of apply {} not read: {}", a.index,
                                          std::string(text.status().message())));
      continue;
    }
    a.outcomes = ParseApplyOutcomes(*text);
    if (request.puppet_log.empty()) continue;
    const std::string copy = ReapplyLogCopy(request.puppet_log, a.index);
    if (absl::Status st = WriteWholeFile(copy, *text); !st.ok()) {
      result->notes.push_back(fmt::format("cannot copy the log of apply {} to {}: {}", a.index,
                                          copy, std::string(st.message())));
    }
  }
  if (!request.refresh_catalog.empty() && !request.puppet_log.empty()) {
    absl::StatusOr<std::string> text =
        base::ReadUntrustedFile(work_fd, kRefreshLog, "Puppet's log", kMaxPuppetLogBytes);
    const std::string copy = RefreshLogCopy(request.puppet_log);
    if (text.ok() && !WriteWholeFile(copy, *text).ok()) {
      result->notes.push_back(fmt::format("cannot copy the refresh's log to {}", copy));
    }
  }
  result->probes = std::move(report.probes);
  result->daemons = std::move(report.daemons);
  result->observed = std::move(report.observed);
  // Whether the trace reached Puppet's exit is the consumer's to say (it read the trace).
  s.trace_complete = !std::string_view(report.strace_end).starts_with("died");
  if (s.strace_end.empty()) s.strace_end = "unknown";
  result->catalog_text = std::move(report.catalog_text);
  // Messages name the catalog as the user can open it: the work directory's copy was removed
  // as soon as it was read.
  result->catalog_path = "the compiled catalog (not kept: --save-catalog FILE keeps it)";
  if (!request.save_catalog.empty() && !result->catalog_text.empty()) {
    if (absl::Status st = WriteWholeFile(request.save_catalog, result->catalog_text); !st.ok()) {
      result->notes.push_back(fmt::format("cannot copy the catalog to {}: {}", request.save_catalog,
                                          std::string(st.message())));
    } else {
      result->catalog_path = request.save_catalog;
    }
  }

  result->summary.notes = result->notes;
  if (report.interrupted_by != 0) {
    result->end = RunEnd::kInterrupted;
    result->signal = report.interrupted_by;
  } else if (!report.errors.empty()) {
    result->end = RunEnd::kSetupFailed;
    result->error = report.errors.front();
  } else if (report.compiled && report.compile_code != 0) {
    result->end = RunEnd::kCompileFailed;
    result->compile_log =
        base::ReadUntrustedFile(work_fd, kCompileLog, "the compile log", kMaxPuppetLogBytes)
            .value_or("");
  } else if (report.timed_out) {
    result->end = RunEnd::kTimedOut;
  } else if (!report.applied) {
    result->end = RunEnd::kSetupFailed;
    result->error = fmt::format("the sandbox ended before Puppet finished ({})",
                                DescribeWaitStatus(report.keeper_status));
  } else {
    result->end = RunEnd::kApplied;
  }
}

// --keep-sandbox: the supervisor archived the overlay's upper layer into the out directory;
// unpacked here, outside the sandbox, with the owners it had inside when run as root.
void UnpackKept(const std::string& work, const std::string& keep_dir, RunResult* result) {
  const std::string archive = work + "/" + kOutDir + "/" + kKeepArchive;
  std::vector<std::string> argv = {"tar", "-xf", archive, "-C", keep_dir};
  if (geteuid() == 0) {
    argv.insert(argv.begin() + 1, {"--numeric-owner", "--same-owner", "--same-permissions"});
  } else {
    argv.insert(argv.begin() + 1, "--no-same-owner");
  }
  absl::StatusOr<CapturedRun> run = RunCaptured(argv, PuppetEnvironment(), 4096);
  if (run.ok() && run->wait_status == 0) {
    result->notes.push_back(fmt::format("kept the sandbox's changes in {}", keep_dir));
  } else {
    result->notes.push_back(
        fmt::format("unpacking the sandbox's changes into {} failed: {}", keep_dir,
                    run.ok() ? DescribeWaitStatus(run->wait_status) + " " + run->err
                             : std::string(run.status().message())));
  }
  unlink(archive.c_str());
}

}  // namespace

std::string RefreshLogCopy(const std::string& puppet_log) {
  if (puppet_log.ends_with(".log")) {
    return fmt::format("{}-refresh.log", puppet_log.substr(0, puppet_log.size() - 4));
  }
  return puppet_log + ".refresh";
}

std::string ReapplyLogCopy(const std::string& puppet_log, int k) {
  if (puppet_log.ends_with(".log")) {
    return fmt::format("{}-apply-{}.log", puppet_log.substr(0, puppet_log.size() - 4), k);
  }
  return fmt::format("{}.apply-{}", puppet_log, k);
}

std::string DescribePathState(const PathState& p) {
  if (!p.error.empty()) return "unreadable (" + p.error + ")";
  if (!p.exists) return "absent";
  std::string text = fmt::format("{} {:04o} {}:{}", p.type, p.mode, p.uid, p.gid);
  if (p.type == "symlink") text += " -> " + p.target;
  if (p.type == "file") {
    text += fmt::format(", {} bytes", p.size);
    if (!p.sha256.empty()) text += ", sha256 " + p.sha256.substr(0, 12);
  }
  return text;
}

namespace {

// A run's result before Puppet runs: what its target and request say of it (dependencies, the
// summary's fields, a control repo's deployed modules by version).
RunResult RunOf(const CheckRequest& request, const ResolvedTarget& target) {
  RunResult result;
  result.missing_dependencies = target.missing_dependencies;
  for (const std::string& d : target.resolved_dependencies) {
    result.notes.push_back("dependency " + d);
  }
  result.notes.insert(result.notes.end(), target.dependency_notes.begin(),
                      target.dependency_notes.end());
  if (request.sandbox == SandboxMode::kOverlay) result.unshown_modules = target.unshown_modules;
  result.environment_dir = target.environment_dir;
  result.summary.target = target.display;
  result.summary.sandbox = request.sandbox == SandboxMode::kOverlay ? "overlay" : "none";
  result.summary.root = request.root.name;
  result.summary.root_choice = request.root_choice;
  result.summary.node = request.node;
  result.summary.facts = request.facts_file;
  result.summary.klass = request.target.include_class;
  // A control repo's deployed modules, by version: what its Puppetfile gave this run.
  if (!target.deployed_modules.empty()) {
    for (const SourceModule& m : ListSourceModules({target.deployed_modules})) {
      result.notes.push_back(
          fmt::format("deployed {} {}", m.name, m.version.empty() ? "(no version)" : m.version));
    }
  }
  result.summary.puppet_version = request.root.puppet_version;
  result.summary.init = request.init;
  return result;
}

}  // namespace

absl::StatusOr<RunResult> RunCheck(const CheckRequest& request, const TraceConsumer& consume) {
  auto target = ResolveTarget(request.target);
  if (!target.ok()) return target.status();
  // Outputs that cannot be written are reported before anything runs.
  std::unique_ptr<TraceCopy> copy;
  if (!request.save_trace.empty()) {
    auto c = TraceCopy::Create(request.save_trace, request.budget.saved_trace);
    if (!c.ok()) return c.status();
    copy = std::move(*c);
  }
  RunResult result = RunOf(request, *target);

  absl::StatusOr<std::string> work = MakeWorkDir(request);
  if (!work.ok()) return work.status();
  result.work_dir = *work;
  // The out directory as a directory fd: what the supervisor wrote is opened relative to it,
  // never through a symlink.
  const int work_fd = open((*work + "/" + kOutDir).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (work_fd < 0) return base::ErrnoStatus(fmt::format("cannot open {}", *work));
  struct WorkFdCloser {
    int fd;
    ~WorkFdCloser() { close(fd); }
  } work_fd_closer{work_fd};

  absl::StatusOr<SandboxSpec> spec = PrepareSandbox(request, *target, *work, &result);
  if (!spec.ok()) return spec.status();
  const std::string spec_path = *work + "/spec.json";
  std::ofstream(spec_path) << SandboxSpecToJson(*spec).dump(2) << "\n";
  const std::string fifo_path = *work + "/in/" + kTraceFifo;
  absl::StatusOr<TraceFifo> fifo = TraceFifo::Create(fifo_path);
  if (!fifo.ok()) return fifo.status();
  std::atomic<bool> run_over{false};
  // Untraced, nothing comes after the run; traced, strace may still be writing its last lines.
  TraceStream trace(fifo->read_fd, &run_over, std::chrono::seconds(request.untraced ? 0 : 10),
                    copy.get());

  base::ProgressLine progress(request.progress, 100);
  if (copy) {
    copy->OnCut([&progress, &request, max = copy->max_bytes()] {
      progress.Clear();
      fmt::print(stderr,
                 "fsmove: warning: the saved trace {} reached its limit of {} (--max-saved-trace): "
                 "the rest of the trace is analysed but not saved\n",
                 request.save_trace, base::BudgetValueText(base::BudgetLimit::kSavedTrace, max));
    });
  }
  SupervisorWatchOptions watch_options;
  watch_options.spec_path = spec_path;
  watch_options.timeout_seconds = request.timeout_seconds;
  watch_options.work_fd = work_fd;
  watch_options.cgroup_name = spec->cgroup_name;
  watch_options.systemd = spec->init == "systemd";
  watch_options.progress = &progress;
  watch_options.max_catalog_bytes = request.budget.catalog_bytes;
  // The run is over: the trace ends once strace's last bytes are read.
  watch_options.on_end = [&run_over, write_fd = fifo->write_fd] {
    close(write_fd);
    run_over.store(true);
  };
  absl::StatusOr<std::unique_ptr<SupervisorWatch>> watch = SupervisorWatch::Start(watch_options);
  if (!watch.ok()) {
    close(fifo->write_fd);
    return watch.status();
  }

  // ---- the caller reads the trace while Puppet runs ----
  const auto t0 = Clock::now();
  absl::Status read_status = consume ? consume(trace, progress) : absl::OkStatus();
  // Its own time is what was not spent waiting for the trace.
  result.analysis_seconds = std::max(
      0.0, std::chrono::duration<double>(Clock::now() - t0).count() - trace.waited_seconds());
  trace.Drain();
  if (copy) copy->OnCut({});  // nothing more is written to it; `progress` is not for long
  SupervisorReport& report = (*watch)->Join();
  progress.Clear();
  if (copy) {
    absl::Status st = copy->Close();
    if (!st.ok()) result.notes.push_back(std::string(st.message()));
  }
  if (!read_status.ok()) {
    result.notes.push_back(
        fmt::format("reading the trace: {}", std::string(read_status.message())));
  }
  unlink(fifo_path.c_str());
  unlink(spec_path.c_str());
  if (spec->mode == SandboxMode::kOverlay) {
    // Mount points of the keeper's own mount namespace (gone with it): empty here.
    std::error_code ec;
    std::filesystem::remove_all(spec->scratch_dir, ec);
  }
  if (!request.keep_sandbox.empty()) UnpackKept(*work, request.keep_sandbox, &result);

  RecordRun(request, *work, work_fd, report, &result);
  // Where strace and the apply ran, once there was an apply (not for a catalog that did not
  // compile or a sandbox that did not start).
  if (spec->trace_cpu >= 0 && result.end != RunEnd::kCompileFailed &&
      result.end != RunEnd::kSetupFailed) {
    const std::string cpu =
        fmt::format("strace and the traced apply ran on CPU {}", spec->trace_cpu);
    result.notes.push_back(cpu);
    result.summary.notes.push_back(cpu);
  }
  // Nothing was traced (the catalog did not compile, the sandbox did not start): no empty
  // trace file is left where the user asked for one.
  if (copy && copy->saved_bytes() == 0 &&
      (result.end == RunEnd::kCompileFailed || result.end == RunEnd::kSetupFailed)) {
    unlink(request.save_trace.c_str());
  }
  if (report.catalog_limit_hit) result.summary.host_limits_hit.push_back(*report.catalog_limit_hit);
  if (copy && copy->cut()) {
    result.summary.host_limits_hit.push_back(
        base::BudgetHit{base::BudgetLimit::kSavedTrace, copy->max_bytes(), request.save_trace});
  }
  return result;
}

absl::StatusOr<catalog::Catalog> LoadRunCatalog(const RunResult& run,
                                                const base::HostBudget& budget) {
  // A catalog over the budget was never taken in: its sentence, as the loader would say it.
  for (const base::BudgetHit& hit : run.summary.host_limits_hit) {
    if (hit.limit == base::BudgetLimit::kCatalogBytes) {
      return absl::ResourceExhaustedError(hit.Sentence());
    }
  }
  catalog::LoadOptions options;
  options.max_bytes = budget.catalog_bytes;
  options.max_values = budget.catalog_values;
  // Read element by element with the files renamed as they come: never one document of the
  // whole catalog (a DOM of 40 MB of integers took 1 GB).
  options.file_prefixes = run.manifest_paths;
  return catalog::Catalog::LoadString(run.catalog_text, run.catalog_path, options);
}

}  // namespace fsmove::exec
