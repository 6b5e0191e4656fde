// `fsmove check --confirm`; see confirm.h.
#include "fsmove/check/confirm.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
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
  replays[0].name = "00-reference";
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

// Missing notifiers replayed one at a time, at most, when their service's replay held back
// several sources at once and confirmed nothing (see ConfirmFindings).
constexpr size_t kMaxSingleNotifierReplays = 8;

// The replay of missing notifiers `findings` of `service`: the catalog applied with their
// sources held back (noop), so that the service starts with the paths as they were before
// them; applied as it is, which changes them and (the fault) does not refresh the service;
// then the service refreshed: is its daemon older than the change, and does the restart
// change what it does?
Replay NotifierReplay(const exec::RunResult& run, const catalog::Catalog& cat,
                      catalog::ResourceId service, const std::vector<size_t>& findings,
                      const checker::CheckResult& result, std::string name) {
  Replay mn;
  mn.name = std::move(name);
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
  return mn;
}

// The missing notifiers of each service, in one replay.
void AddNotifierReplays(const exec::RunResult& run, const catalog::Catalog& cat,
                        const std::map<catalog::ResourceId, std::vector<size_t>>& notifiers,
                        const checker::CheckResult& result, std::vector<Replay>* replays) {
  for (const auto& [service, findings] : notifiers) {
    replays->push_back(NotifierReplay(run, cat, service, findings, result,
                                      fmt::format("notifiers-{:02}", replays->size())));
  }
}

// A service's replay that held back several sources and confirmed nothing may have held back
// what its daemon needs to start at all (its program, its unit file): the daemon then starts
// only in the second apply, with every change made, and cannot be stale. Each of those
// missing notifiers is replayed again with its own source alone held back (the first
// kMaxSingleNotifierReplays): a configuration file the apply creates shows its stale daemon
// there.
std::vector<Replay> SingleNotifierReplays(const exec::RunResult& run, const catalog::Catalog& cat,
                                          const std::vector<Replay>& replays,
                                          const checker::CheckResult& result) {
  std::vector<Replay> out;
  for (const Replay& r : replays) {
    if (r.notifiers.size() < 2 || !r.not_made.empty()) continue;
    for (size_t i : r.notifiers) {
      const checker::Finding& f = result.findings[i];
      if (f.confirmation.confirmed || out.size() >= kMaxSingleNotifierReplays) continue;
      out.push_back(NotifierReplay(run, cat, f.target, {i}, result,
                                   fmt::format("notifier-{:02}-alone", i + 1)));
    }
  }
  return out;
}

// The check request of replay `r`, untraced, with `left` of the replays' --timeout; with
// --keep-replays, r->kept says where its catalog and logs are kept (named after r->name).
exec::CheckRequest ReplayRequest(const exec::CheckRequest& base, const exec::RunResult& run,
                                 const ConfirmOptions& o, const std::vector<std::string>& paths,
                                 std::chrono::seconds left, Replay* r) {
  exec::CheckRequest req = base.Rerun();
  req.timeout_seconds = static_cast<int>(left.count());
  req.untraced = true;
  req.apply_catalog = r->catalog;
  req.probe_paths = r->notifiers.empty() ? paths : r->probe;
  req.refresh_catalog = r->refresh;
  if (!r->notifiers.empty()) req.second_catalog = run.catalog_text;
  req.reapplies = r->notifiers.empty() ? 0 : 1;
  if (!o.keep_dir.empty()) {
    const std::string stem = o.keep_dir + "/" + r->name;
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

// Runs the replays that have a catalog, o.jobs at a time, each with what is left until
// `deadline`. Returns 0, or the signal that interrupted one (no more are started).
int RunReplays(const exec::CheckRequest& base, const exec::RunResult& run, const ConfirmOptions& o,
               const std::vector<std::string>& paths,
               std::chrono::steady_clock::time_point deadline, std::vector<Replay>* replays_out) {
  std::vector<Replay>& replays = *replays_out;
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
      exec::CheckRequest req = ReplayRequest(base, run, o, paths, left, &r);
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
      c = checker::Confirmation{};  // a replay of it alone judges it again
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

// The MOR replays that can be compared with the reference; the others' confirmations are
// made inconclusive, with the reason.
std::vector<OrderComparison> CompareOrderReplays(const std::vector<Replay>& replays,
                                                 const std::vector<size_t>& chosen,
                                                 const catalog::Catalog& cat,
                                                 const std::vector<exec::ServiceNames>& services,
                                                 checker::CheckResult* result) {
  std::vector<OrderComparison> out;
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
    out.push_back({chosen[k], exec::CompareReplays(*reference.result, *r.result, services)});
  }
  return out;
}

bool HasOutcome(const std::vector<exec::ReplayDifference>& list) {
  return std::any_of(list.begin(), list.end(),
                     [](const exec::ReplayDifference& d) { return d.outcome; });
}

// The subjects whose outcome differs between two applies of the catalog in its own order.
std::set<std::string> UnstableSubjects(const exec::RunResult& first, const exec::RunResult& second,
                                       const std::vector<exec::ServiceNames>& services) {
  std::set<std::string> out;
  for (const exec::ReplayDifference& d : exec::CompareReplays(first, second, services)) {
    if (d.outcome) out.insert(d.subject);
  }
  return out;
}

}  // namespace

ForcedOrder OrderToForce(const checker::Finding& f, const catalog::Catalog& cat) {
  const catalog::Resource& source = cat.resource(f.source);
  const catalog::Resource& target = cat.resource(f.target);
  return f.applied_in_reverse ? ForcedOrder{source, target} : ForcedOrder{target, source};
}

void JudgeOrderComparisons(const std::vector<OrderComparison>& compared,
                           const std::set<std::string>& unstable, const std::string& again_why,
                           checker::CheckResult* result) {
  for (const OrderComparison& oc : compared) {
    checker::Confirmation& c = result->findings[oc.finding].confirmation;
    std::vector<std::string> decisive, varying, messages;
    for (const exec::ReplayDifference& d : oc.differences) {
      if (!d.outcome) {
        messages.push_back(d.text);
      } else if (unstable.contains(d.subject)) {
        varying.push_back(d.text + " (differs between two applies in the catalog's order too)");
      } else {
        decisive.push_back(d.text);
      }
    }
    c.differences = decisive;
    c.differences.insert(c.differences.end(), varying.begin(), varying.end());
    c.differences.insert(c.differences.end(), messages.begin(), messages.end());
    if (!decisive.empty() && !again_why.empty()) {
      c.inconclusive = true;
      c.reason =
          "the catalog's order was not applied a second time, which shows what differs "
          "from run to run anyway: " +
          again_why;
      continue;
    }
    c.confirmed = !decisive.empty();
    if (c.confirmed) continue;
    if (!varying.empty()) {
      c.reason =
          "what the forced order changed also changes between two applies in the catalog's own "
          "order: it is not the order's doing";
    } else if (!messages.empty()) {
      c.reason =
          "only Puppet's messages differ (what it says it changed): every resource ended as with "
          "the catalog's order, and the conflicting paths ended the same";
    } else {
      c.reason =
          "every resource did the same as with the catalog's order, and the conflicting "
          "paths ended the same: here the order makes no visible difference";
    }
  }
}

int ConfirmFindings(const exec::CheckRequest& base, const exec::RunResult& run,
                    const catalog::Catalog& cat, const report::FindingsContext& ctx,
                    const ConfirmOptions& o, checker::CheckResult* result) {
  const ToConfirm to = ChooseFindings(*result, ctx);
  if (to.chosen.empty() && to.notifiers.empty()) return 0;
  // The replays share one more --timeout: each gets what is left of it.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(base.timeout_seconds);
  std::vector<Replay> replays = OrderReplays(run, cat, to.chosen, result);
  AddNotifierReplays(run, cat, to.notifiers, *result, &replays);
  if (to.chosen.empty()) replays[0].catalog.clear();  // no reference needed
  int interrupted = RunReplays(base, run, o, to.paths, deadline, &replays);
  JudgeNotifierReplays(replays, cat, result);
  const std::vector<exec::ServiceNames> services = ServicesOf(cat);
  const std::vector<OrderComparison> compared =
      to.chosen.empty() ? std::vector<OrderComparison>{}
                        : CompareOrderReplays(replays, to.chosen, cat, services, result);
  // Then, in one more round: a different outcome confirms only if the catalog's own order
  // does not vary there too, so the reference is applied once more when some outcome differs
  // (what differs between its two applies, a timestamp written into a file or a flaky
  // download, proves nothing); and the missing notifiers of services whose replay held back
  // several sources and confirmed nothing, one at a time.
  const bool again_needed = std::any_of(compared.begin(), compared.end(),
                                        [](const auto& c) { return HasOutcome(c.differences); });
  std::vector<Replay> more = SingleNotifierReplays(run, cat, replays, *result);
  if (again_needed) {
    more.emplace(more.begin());
    more[0].name = "00-reference-again";
    more[0].catalog = replays[0].catalog;
  }
  if (!more.empty() && interrupted == 0) {
    interrupted = RunReplays(base, run, o, to.paths, deadline, &more);
    JudgeNotifierReplays(more, cat, result);  // else their service's replay's judgement stays
  }
  std::set<std::string> unstable;
  std::string again_why;
  if (again_needed) {
    if (Ran(more[0], &again_why)) {
      again_why.clear();
      unstable = UnstableSubjects(*replays[0].result, *more[0].result, services);
    } else if (again_why.empty()) {
      again_why = "it did not run";
    }
  }
  JudgeOrderComparisons(compared, unstable, again_why, result);
  return interrupted;
}

}  // namespace fsmove::check
