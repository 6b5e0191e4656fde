// `fsmove check --confirm`; see confirm.h.
#include "confirm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "fmt/format.h"
#include "fsmove/base/progress_line.h"
#include "fsmove/exec/replay.h"

namespace fsmove::cli {
namespace {

// Conflicting paths probed at the end of each replay: per finding, and in all.
constexpr size_t kMaxPathsPerFinding = 32;
constexpr size_t kMaxPaths = 512;

struct Replay {
  std::string name;                  // "reference", the finding's number, or "notifiers"
  std::string catalog;               // what to apply
  std::vector<std::string> restore;  // the missing notifiers' replay: paths put back
  std::string kept;                  // --keep-replays: "DIR/NN.catalog.json, DIR/NN.puppet.log"
  absl::StatusOr<exec::RunResult> result =
      absl::CancelledError("not started: the replays were interrupted");
  double seconds = 0;
};

// The replay ran Puppet's apply to its end; else `why` says what went wrong (the run's own
// error when it could not run at all).
bool Ran(const Replay& r, std::string* why) {
  if (!r.result.ok()) {
    *why = std::string(r.result.status().message());
    return false;
  }
  return exec::ReplayRan(*r.result, why);
}

// Adds a finding's first paths to `list`, once each, up to the caps.
void AddPaths(const checker::Finding& f, std::vector<std::string>* list) {
  for (size_t k = 0; k < f.paths.size() && k < kMaxPathsPerFinding; ++k) {
    if (list->size() < kMaxPaths &&
        std::find(list->begin(), list->end(), f.paths[k]) == list->end()) {
      list->push_back(f.paths[k]);
    }
  }
}

}  // namespace

int ConfirmFindings(const exec::CheckRequest& base, const exec::RunResult& run,
                    const catalog::Catalog& cat, const report::FindingsContext& ctx,
                    const ConfirmOptions& o, checker::CheckResult* result) {
  std::vector<size_t> chosen;     // MOR
  std::vector<size_t> notifiers;  // MN
  std::vector<std::string> paths, restore;
  for (size_t i = 0; i < result->findings.size(); ++i) {
    const checker::Finding& f = result->findings[i];
    if (ctx.IsSuppressed(i) || ctx.IsHidden(i)) continue;
    const bool mn = f.kind == checker::FaultKind::kMissingNotifier;
    (mn ? notifiers : chosen).push_back(i);
    AddPaths(f, mn ? &restore : &paths);
  }
  if (chosen.empty() && notifiers.empty()) return 0;

  // Replay 0 applies the catalog as compiled; replay k forces finding chosen[k-1]'s order
  // the other way round from this run's: the target before the source, or (a run that
  // applied them in reverse) the source before the target.
  std::vector<Replay> replays(chosen.size() + 1);
  replays[0].name = "reference";
  replays[0].catalog = run.catalog_text;
  for (size_t k = 0; k < chosen.size(); ++k) {
    checker::Finding& f = result->findings[chosen[k]];
    const catalog::Resource& source = cat.resource(f.source);
    const catalog::Resource& target = cat.resource(f.target);
    const catalog::Resource& first = f.applied_in_reverse ? source : target;
    const catalog::Resource& second = f.applied_in_reverse ? target : source;
    f.confirmation.attempted = true;
    f.confirmation.forced = fmt::format("{} before {}", first.ref, second.ref);
    absl::StatusOr<std::string> forced =
        exec::ForceOrder(run.catalog_text, second.json_index, first.ref);
    if (!forced.ok()) {
      f.confirmation.inconclusive = true;
      f.confirmation.reason = std::string(forced.status().message());
      continue;
    }
    replays[k + 1].name = fmt::format("{:02}", k + 1);
    replays[k + 1].catalog = std::move(*forced);
  }
  // The missing notifiers, all in one replay: the catalog applied, their paths put back as
  // the OS root had them, applied again; then, is the service's daemon older than the files?
  if (!notifiers.empty()) {
    Replay mn;
    mn.name = "notifiers";
    mn.catalog = run.catalog_text;
    mn.restore = restore;
    replays.push_back(std::move(mn));
  }
  if (chosen.empty()) replays[0].catalog.clear();  // no reference needed

  // The replays share one more --timeout: each gets what is left of it.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(base.timeout_seconds);
  std::atomic<size_t> next{0};
  std::atomic<int> interrupted{0};  // Ctrl-C, SIGTERM, SIGHUP stopped a replay: start no more
  std::mutex mu;
  base::ProgressLine progress(o.progress);
  size_t done = 0;
  auto worker = [&] {
    for (size_t k; interrupted.load() == 0 && (k = next.fetch_add(1)) < replays.size();) {
      Replay& r = replays[k];
      if (r.catalog.empty()) continue;
      const auto left = std::chrono::duration_cast<std::chrono::seconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() < 1) {
        r.result = absl::DeadlineExceededError(
            "not started: the replays' --timeout (as long as the check's) ran out");
        continue;
      }
      exec::CheckRequest req = base;
      req.timeout_seconds = static_cast<int>(left.count());
      req.untraced = true;
      req.apply_catalog = r.catalog;
      req.probe_paths = r.restore.empty() ? paths : r.restore;
      req.restore_paths = r.restore;
      req.reapplies = r.restore.empty() ? 0 : 1;
      req.progress = false;
      req.save_trace.clear();
      req.save_graph.clear();
      req.keep_sandbox.clear();
      req.save_catalog.clear();
      req.puppet_log.clear();
      if (!o.keep_dir.empty()) {
        const std::string stem = o.keep_dir + "/" + (k == 0 ? std::string("00-reference") : r.name);
        req.save_catalog = stem + ".catalog.json";
        req.puppet_log = stem + ".puppet.log";
        r.kept = req.save_catalog + ", " + req.puppet_log;
        if (!r.restore.empty()) r.kept += ", " + exec::ReapplyLogCopy(req.puppet_log, 2);
      }
      const auto t0 = std::chrono::steady_clock::now();
      r.result = exec::RunCheck(req, nullptr);  // untraced: no trace to read
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r.result.ok() && r.result->end == exec::RunEnd::kInterrupted) {
        interrupted.store(r.result->signal);
      }
      if (r.result.ok()) {
        std::error_code ec;
        std::filesystem::remove_all(r.result->work_dir, ec);
      }
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      progress.Show(fmt::format("confirming: {} of {} replays done", done, replays.size()));
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, o.jobs); ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  progress.Clear();

  if (!notifiers.empty()) {
    const Replay& r = replays.back();
    std::string ran_why;
    const bool ran = Ran(r, &ran_why);
    for (size_t i : notifiers) {
      checker::Finding& f = result->findings[i];
      checker::Confirmation& c = f.confirmation;
      c.attempted = true;
      c.kept = r.kept;
      c.seconds = r.seconds;
      if (r.result.ok()) c.apply_seconds = r.result->summary.apply_seconds;
      std::string shown;
      for (size_t k = 0; k < f.paths.size() && k < 3; ++k) shown += (k ? ", " : "") + f.paths[k];
      if (f.paths.size() > 3) shown += ", ...";
      c.forced = fmt::format("a second apply after putting back {} as the OS root had it", shown);
      if (!ran) {
        c.inconclusive = true;
        c.reason = "the replay did not run to its end: " + ran_why;
        continue;
      }
      const catalog::Resource& service = cat.resource(f.target);
      std::vector<std::string> names = {service.title};
      if (auto name = service.StringParameter("name")) names.push_back(*name);
      c.confirmed = exec::StaleDaemon(*r.result, cat.resource(f.source).ref, service.ref, names,
                                      f.paths, &c.differences, &c.reason);
    }
  }
  if (chosen.empty()) return interrupted.load();

  std::vector<exec::ServiceNames> services;
  for (catalog::ResourceId id = 0; id < cat.size(); ++id) {
    const catalog::Resource& r = cat.resource(id);
    if (r.type != "Service") continue;
    exec::ServiceNames s{r.ref, {r.title}};
    if (auto name = r.StringParameter("name")) s.names.push_back(*name);
    services.push_back(std::move(s));
  }

  std::string why;
  const Replay& reference = replays[0];
  const bool reference_ran = Ran(reference, &why);
  for (size_t k = 0; k < chosen.size(); ++k) {
    checker::Confirmation& c = result->findings[chosen[k]].confirmation;
    const Replay& r = replays[k + 1];
    if (r.catalog.empty()) continue;  // the reason is set
    c.kept = r.kept;
    c.seconds = r.seconds;
    if (r.result.ok()) c.apply_seconds = r.result->summary.apply_seconds;
    if (!reference_ran) {
      c.inconclusive = true;
      c.reason = "the replay of the catalog as compiled did not run to its end: " + why;
      continue;
    }
    std::string failed;
    if (!Ran(r, &failed)) {
      c.inconclusive = true;
      c.reason = r.result.ok() ? failed : "the replay could not run: " + failed;
      continue;
    }
    // A replay that stopped part-way or went wrong elsewhere would count every resource it
    // never applied as a difference: it proves nothing.
    const checker::Finding& f = result->findings[chosen[k]];
    if (!exec::ReplayConclusive(*r.result, *reference.result, cat, cat.resource(f.target).ref,
                                &failed)) {
      c.inconclusive = true;
      c.reason = failed;
      continue;
    }
    c.differences = exec::ReplayDifferences(*reference.result, *r.result, services);
    c.confirmed = !c.differences.empty();
    if (!c.confirmed) {
      c.reason =
          "every resource did the same as with the catalog's order, and the conflicting "
          "paths ended the same: here the order makes no visible difference";
    }
  }
  return interrupted.load();
}

}  // namespace fsmove::cli
