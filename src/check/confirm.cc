// `fsmove check --confirm`; see confirm.h.
#include "fsmove/check/confirm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "fmt/format.h"
#include "fsmove/base/progress_line.h"
#include "fsmove/exec/replay.h"

namespace fsmove::check {
namespace {

// Conflicting paths probed at the end of each replay, in all (kMaxPathsPerFinding: per finding).
constexpr size_t kMaxPaths = 512;

struct Replay {
  std::string name;                // "reference", the finding's number, or "notifiers-NN"
  std::string catalog;             // what to apply
  std::vector<std::string> probe;  // the missing notifiers' replay: their paths
  std::string refresh;             // and the catalog that refreshes their service
  std::string not_made;            // why that replay could not be made
  std::vector<size_t> notifiers;   // the MN findings (of one service) it confirms
  std::string kept;                // --keep-replays: "DIR/NN.catalog.json, DIR/NN.puppet.log"
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

// The findings a check replays: MOR, one replay each, and MN, by service: one replay each,
// since refreshing a service is what shows its daemon.
struct ToConfirm {
  std::vector<size_t> chosen;  // MOR
  std::map<catalog::ResourceId, std::vector<size_t>> notifiers;
  std::vector<std::string> paths;  // the MOR replays' probes
};

ToConfirm ChooseFindings(const checker::CheckResult& result, const report::FindingsContext& ctx) {
  ToConfirm to;
  for (size_t i = 0; i < result.findings.size(); ++i) {
    const checker::Finding& f = result.findings[i];
    if (ctx.IsSuppressed(i) || ctx.IsHidden(i)) continue;
    if (f.kind == checker::FaultKind::kMissingNotifier) {
      to.notifiers[f.target].push_back(i);
    } else {
      to.chosen.push_back(i);
      AddPaths(f, &to.paths);
    }
  }
  return to;
}

// Replay 0 applies the catalog as compiled; replay k forces finding chosen[k-1]'s order
// the other way round from this run's (OrderToForce). A finding whose order cannot be forced
// is inconclusive, and its replay has no catalog.
std::vector<Replay> OrderReplays(const exec::RunResult& run, const catalog::Catalog& cat,
                                 const std::vector<size_t>& chosen, checker::CheckResult* result) {
  std::vector<Replay> replays(chosen.size() + 1);
  replays[0].name = "reference";
  replays[0].catalog = run.catalog_text;
  for (size_t k = 0; k < chosen.size(); ++k) {
    checker::Finding& f = result->findings[chosen[k]];
    const auto [first, second] = OrderToForce(f, cat);
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
  return replays;
}

// The missing notifiers of each service, in one replay: the catalog applied with their
// sources held back (noop), so that the service starts with the paths as they were before
// them; applied as it is, which changes them and (the fault) does not refresh the service;
// then the service refreshed: is its daemon older than the change, and does the restart
// change what it does?
void AddNotifierReplays(const exec::RunResult& run, const catalog::Catalog& cat,
                        const std::map<catalog::ResourceId, std::vector<size_t>>& notifiers,
                        const checker::CheckResult& result, std::vector<Replay>* replays) {
  for (const auto& [service, findings] : notifiers) {
    Replay mn;
    mn.name = fmt::format("notifiers-{:02}", replays->size());
    mn.notifiers = findings;
    std::vector<std::string> sources;
    for (size_t i : findings) {
      const checker::Finding& f = result.findings[i];
      AddPaths(f, &mn.probe);
      sources.push_back(cat.resource(f.source).ref);
    }
    absl::StatusOr<std::string> held = exec::HoldBack(run.catalog_text, sources);
    absl::StatusOr<std::string> refresh =
        exec::RefreshCatalog(run.catalog_text, cat.resource(service).ref);
    if (held.ok() && refresh.ok()) {
      mn.catalog = std::move(*held);
      mn.refresh = std::move(*refresh);
    } else {
      mn.not_made = std::string((held.ok() ? refresh : held).status().message());
    }
    replays->push_back(std::move(mn));
  }
}

// The check request of replay k (`r`), untraced, with `left` of the replays' --timeout; with
// --keep-replays, r->kept says where its catalog and logs are kept.
exec::CheckRequest ReplayRequest(const exec::CheckRequest& base, const exec::RunResult& run,
                                 const ConfirmOptions& o, const std::vector<std::string>& paths,
                                 size_t k, std::chrono::seconds left, Replay* r) {
  exec::CheckRequest req = base.Rerun();
  req.timeout_seconds = static_cast<int>(left.count());
  req.untraced = true;
  req.apply_catalog = r->catalog;
  req.probe_paths = r->notifiers.empty() ? paths : r->probe;
  req.refresh_catalog = r->refresh;
  if (!r->notifiers.empty()) req.second_catalog = run.catalog_text;
  req.reapplies = r->notifiers.empty() ? 0 : 1;
  if (!o.keep_dir.empty()) {
    const std::string stem = o.keep_dir + "/" + (k == 0 ? std::string("00-reference") : r->name);
    req.save_catalog = stem + ".catalog.json";
    req.puppet_log = stem + ".puppet.log";
    r->kept = req.save_catalog + ", " + req.puppet_log;
    if (!r->notifiers.empty()) {
      r->kept += ", " + exec::ReapplyLogCopy(req.puppet_log, 2) + ", " +
                 exec::RefreshLogCopy(req.puppet_log);
    }
  }
  return req;
}

// Runs the replays that have a catalog, o.jobs at a time. Returns 0, or the signal that
// interrupted one (no more are started).
int RunReplays(const exec::CheckRequest& base, const exec::RunResult& run, const ConfirmOptions& o,
               const std::vector<std::string>& paths, std::vector<Replay>* replays_out) {
  std::vector<Replay>& replays = *replays_out;
  // The replays share one more --timeout: each gets what is left of it.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(base.timeout_seconds);
  std::atomic<size_t> next{0};
  std::atomic<int> interrupted{0};  // Ctrl-C, SIGTERM, SIGHUP stopped a replay: start no more
  std::mutex mu;
  base::ProgressLine progress(o.progress);
  size_t done = 0;
  const uint64_t at_once =
      std::max<uint64_t>(1, std::min<uint64_t>(std::max(1, o.jobs), replays.size()));
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
      exec::CheckRequest req = ReplayRequest(base, run, o, paths, k, left, &r);
      // The replays running at once share the check's memory limit, as a scan's checks share
      // the machine's.
      req.memory_limit /= at_once;
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
  for (uint64_t t = 0; t < at_once; ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  progress.Clear();
  return interrupted.load();
}

// Each MN finding's confirmation, from its service's replay: confirmed when the daemon is
// stale (exec::StaleDaemon).
void JudgeNotifierReplays(const std::vector<Replay>& replays, const catalog::Catalog& cat,
                          checker::CheckResult* result) {
  for (const Replay& r : replays) {
    if (r.notifiers.empty()) continue;
    std::string ran_why;
    const bool ran = Ran(r, &ran_why);
    for (size_t i : r.notifiers) {
      checker::Finding& f = result->findings[i];
      checker::Confirmation& c = f.confirmation;
      c.attempted = true;
      c.kept = r.kept;
      c.seconds = r.seconds;
      if (r.result.ok()) c.apply_seconds = r.result->summary.apply_seconds;
      c.forced = fmt::format(
          "{} held back (noop) in a first apply and applied in a second, then {} refreshed",
          cat.resource(f.source).ref, cat.resource(f.target).ref);
      if (!r.not_made.empty()) {
        c.inconclusive = true;
        c.reason = "the replay could not be made: " + r.not_made;
        continue;
      }
      if (!ran) {
        c.inconclusive = true;
        c.reason = "the replay did not run to its end: " + ran_why;
        continue;
      }
      c.confirmed =
          exec::StaleDaemon(*r.result, cat.resource(f.source).ref, cat.resource(f.target).ref,
                            f.paths, &c.differences, &c.reason);
    }
  }
}

// The catalog's services, by each name they go by (their title and their name parameter).
std::vector<exec::ServiceNames> ServicesOf(const catalog::Catalog& cat) {
  std::vector<exec::ServiceNames> services;
  for (catalog::ResourceId id = 0; id < cat.size(); ++id) {
    const catalog::Resource& r = cat.resource(id);
    if (r.type != "Service") continue;
    exec::ServiceNames s{r.ref, {r.title}};
    if (auto name = r.StringParameter("name")) s.names.push_back(*name);
    services.push_back(std::move(s));
  }
  return services;
}

// Each MOR finding's confirmation, from its replay against the reference: confirmed when
// they differ.
void JudgeOrderReplays(const std::vector<Replay>& replays, const std::vector<size_t>& chosen,
                       const catalog::Catalog& cat, checker::CheckResult* result) {
  const std::vector<exec::ServiceNames> services = ServicesOf(cat);
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
}

}  // namespace

ForcedOrder OrderToForce(const checker::Finding& f, const catalog::Catalog& cat) {
  const catalog::Resource& source = cat.resource(f.source);
  const catalog::Resource& target = cat.resource(f.target);
  return f.applied_in_reverse ? ForcedOrder{source, target} : ForcedOrder{target, source};
}

int ConfirmFindings(const exec::CheckRequest& base, const exec::RunResult& run,
                    const catalog::Catalog& cat, const report::FindingsContext& ctx,
                    const ConfirmOptions& o, checker::CheckResult* result) {
  const ToConfirm to = ChooseFindings(*result, ctx);
  if (to.chosen.empty() && to.notifiers.empty()) return 0;
  std::vector<Replay> replays = OrderReplays(run, cat, to.chosen, result);
  AddNotifierReplays(run, cat, to.notifiers, *result, &replays);
  if (to.chosen.empty()) replays[0].catalog.clear();  // no reference needed
  const int interrupted = RunReplays(base, run, o, to.paths, &replays);
  JudgeNotifierReplays(replays, cat, result);
  if (to.chosen.empty()) return interrupted;
  JudgeOrderReplays(replays, to.chosen, cat, result);
  return interrupted;
}

}  // namespace fsmove::check
