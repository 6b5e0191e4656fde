// What a check's run means once Puppet is done; see check_end.h.
#include "fsmove/check/check_end.h"

#include <string.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "fsmove/exec/puppet_log.h"

namespace fsmove::check {

WorkPolicy DecideWorkDirectory(const exec::RunResult& run, bool keep_work, bool discard_work) {
  const base::RunSummary& s = run.summary;
  const bool went_wrong = run.end == exec::RunEnd::kInterrupted ||
                          run.end == exec::RunEnd::kSetupFailed ||
                          run.end == exec::RunEnd::kTimedOut ||
                          (run.end == exec::RunEnd::kApplied &&
                           (!s.ApplyFinished() || !s.failed.empty() || !s.errors.empty()));
  WorkPolicy p;
  p.keep = keep_work || (went_wrong && !discard_work);
  p.named =
      p.keep && (run.end == exec::RunEnd::kInterrupted || run.end == exec::RunEnd::kSetupFailed);
  return p;
}

std::vector<Diagnostic> SummarizeIdempotence(exec::RunResult* run) {
  base::IdempotenceSummary& idem = run->summary.idempotence;
  idem.cut_short = run->reapplies_cut_short;
  for (const exec::Reapply& a : run->reapplies) idem.exit_codes.push_back(a.exit_code);
  if (!run->reapplies.empty()) {
    idem.checked = true;
    idem.resources =
        exec::FindNotIdempotent(run->outcomes, run->reapplies[0].outcomes,
                                run->reapplies.size() > 1 ? &run->reapplies[1].outcomes : nullptr);
    return {};
  }
  if (run->end == exec::RunEnd::kApplied)
    return {Warning("--idempotence: Puppet's apply did not run a second time")};
  return {};
}

namespace {

// Puppet could not compile: its log, deduplicated, and what may help.
End CompileFailed(const exec::RunResult& run, const std::string& puppet_version) {
  // --facts refused (merge_facts.rb): the file's fault, said as fsmove's own error.
  const std::string stripped = exec::StripAnsi(run.compile_log);
  for (absl::string_view line : absl::StrSplit(stripped, '\n')) {
    if (absl::ConsumePrefix(&line, "Error: --facts ")) {
      return {kExitError, {Error(absl::StrCat("--facts ", line))}};
    }
  }
  End end{
      kExitError,
      {Error(absl::StrCat("Puppet could not compile the catalog for ", run.summary.target, ":"))}};
  std::string log = exec::DeduplicateErrors(exec::StripAnsi(run.compile_log));
  while (!log.empty() && log.back() == '\n') log.pop_back();
  end.say.push_back({Diagnostic::Severity::kPlain, log.empty() ? "(Puppet printed nothing)" : log});
  if (const std::string fact = exec::LegacyFactUsed(log); !fact.empty()) {
    end.say.push_back(Note(absl::StrCat(
        "the code uses the legacy fact $::", fact, ", which Puppet 8 no longer sets",
        puppet_version.empty() ? "" : absl::StrCat(" (this root's Puppet: ", puppet_version, ")"),
        "; check it on a Puppet 7 root (--root debian-12), or use $facts[...] in the code")));
  }
  const std::string fatal = exec::FatalCompileError(log);
  const std::string lacked = exec::UnfoundModule(fatal);
  const std::string unfound = exec::UnfoundName(fatal);
  const std::string core = exec::CoreTypeModule(unfound);
  if (!lacked.empty() && std::find(run.unshown_modules.begin(), run.unshown_modules.end(),
                                   lacked) != run.unshown_modules.end()) {
    // Beside the module, and not shown to the sandbox: it is no declared dependency.
    end.say.push_back(Note(absl::StrCat(
        "module ", lacked,
        " is beside the module but not among the modules it declares it needs (metadata.json's "
        "dependencies, .fixtures.yml), so the sandbox does not show it; declare it, or give "
        "the directory holding it with --modulepath DIR")));
  } else if (!run.missing_dependencies.empty()) {
    // Only what is on no directory of the modulepath: a dependency that is there is not why
    // the compile failed.
    std::string deps;
    for (const auto& d : run.missing_dependencies) absl::StrAppend(&deps, " ", d);
    end.say.push_back(Note(absl::StrCat("the module depends on", deps,
                                        ", which no --modulepath directory holds; give the "
                                        "directories holding them with --modulepath DIR")));
  } else if (!core.empty() && exec::LacksModules(log)) {
    // A control repo's modules are its Puppetfile's; a module's come from a modulepath.
    const std::string give =
        run.environment_dir.empty()
            ? std::string("give the directory holding it with --modulepath DIR")
            : absl::StrCat("name it in the control repo's Puppetfile (", run.environment_dir,
                           "/Puppetfile: mod '", core, "')");
    end.say.push_back(Note(absl::StrCat("Puppet did not find the type ", unfound,
                                        ", which Puppet 6 moved out of Puppet into the module ",
                                        core, " (the root's Puppet does not bundle it); ", give)));
  } else if (exec::LacksModules(log) && !run.environment_dir.empty()) {
    // A control repo names its modules in its Puppetfile and its modulepath.
    end.say.push_back(Note(absl::StrCat(
        "Puppet did not find a class, defined type or function the control repo uses; a module "
        "comes from its Puppetfile (",
        run.environment_dir,
        "/Puppetfile, deployed with r10k) or a directory of its environment.conf's modulepath "
        "(site/ for roles and profiles)")));
  } else if (exec::LacksModules(log)) {
    // A manifest (or -e code) has no metadata.json to name what it needs.
    end.say.push_back(
        Note("Puppet did not find a class, defined type or function the code uses; give the "
             "directories of the modules holding them with --modulepath DIR"));
  }
  return end;
}

}  // namespace

std::optional<End> EndBeforeReport(const exec::RunResult& run, bool work_dir_kept,
                                   int timeout_seconds, const std::string& puppet_version) {
  switch (run.end) {
    case exec::RunEnd::kInterrupted:
      return End{ExitForSignal(run.signal),
                 {Info(absl::StrCat("interrupted (", sigabbrev_np(run.signal),
                                    "): Puppet, strace and the sandbox were stopped",
                                    work_dir_kept ? "; logs in " + run.work_dir : ""))}};
    case exec::RunEnd::kSetupFailed:
      return End{
          kExitError,
          {Error(absl::StrCat(run.error, work_dir_kept ? " (logs in " + run.work_dir + ")" : ""))}};
    case exec::RunEnd::kCompileFailed:
      return CompileFailed(run, puppet_version);
    case exec::RunEnd::kTimedOut: {
      const std::string& phase = run.summary.timed_out_phase;
      if (phase == "apply") return std::nullopt;  // a report of what ran
      // Nothing was applied: there is no run to report on.
      return End{kExitError,
                 {Error(absl::StrCat(
                     "Puppet ",
                     phase == "compile" ? std::string("was still compiling the catalog")
                                        : "had not started the apply (phase " + phase + ")",
                     " after ", timeout_seconds,
                     " s (--timeout); everything was killed and nothing was applied"))}};
    }
    case exec::RunEnd::kApplied:
      break;
  }
  return std::nullopt;
}

std::vector<std::string> ServicesWantingSystemd(const base::RunSummary& summary) {
  std::vector<std::string> out;
  if (summary.init == "systemd") return out;
  for (const base::FailedResource& f : summary.failed) {
    // No init script of its name, or a systemd provider the module asked for, which Puppet
    // confines to a PID 1 that is systemd.
    if (f.resource.starts_with("Service[") &&
        (f.message.find("Could not find init script") != std::string::npos ||
         f.message.find("Provider systemd is not functional on this host") != std::string::npos)) {
      out.push_back(f.resource);
    }
  }
  return out;
}

End EndAfterReport(const exec::RunResult& run, int report_status, int timeout_seconds,
                   bool limit_hit) {
  // A run that did not finish gives a report of what ran, and an error status.
  const base::RunSummary& s = run.summary;
  if (run.end == exec::RunEnd::kTimedOut) {
    return End{kExitError,
               {Error(absl::StrCat("puppet apply did not finish within ", timeout_seconds,
                                   " s (--timeout); everything was killed and the "
                                   "report covers what ran"))}};
  }
  if (!s.trace_complete) {
    return End{kExitError,
               {Error(absl::StrCat("the trace ends before Puppet did (strace: ", s.strace_end,
                                   "); the report covers only what was traced"))}};
  }
  if (s.puppet_exit_code > 128) {
    return End{kExitError,
               {Error(absl::StrCat("puppet apply was killed by signal ", s.puppet_exit_code - 128,
                                   "; the report covers the resources applied before"))}};
  }
  End end{report_status, {}};
  if (report_status != kExitError && !s.failed.empty()) {
    end.say.push_back(Note(absl::StrCat(
        s.failed.size(), " resource", s.failed.size() == 1 ? "" : "s",
        " failed in Puppet's run (see the report; Puppet's log: ", s.puppet_log, ")")));
    if (const std::vector<std::string> services = ServicesWantingSystemd(s); !services.empty()) {
      end.say.push_back(Note(absl::StrCat(
          absl::StrJoin(services, ", "), services.size() == 1 ? " needs" : " need",
          " systemd: no init script of that name in this root, or the systemd provider, and its "
          "PID 1 is not systemd; check again with --init systemd")));
    }
  }
  if (report_status == kExitIncomplete && limit_hit) {
    end.say.push_back(
        Info("fsmove reached a limit of its own (said above), so the check is incomplete (exit "
             "3; the report says what was not seen; the limit's flag raises it)"));
  } else if (report_status == kExitIncomplete) {
    end.say.push_back(
        Info("Puppet did not apply the whole catalog, so the check is incomplete (exit 3; the "
             "report says what was not seen; --allow-failed judges it on its findings alone)"));
  }
  return end;
}

}  // namespace fsmove::check
