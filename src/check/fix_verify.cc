// The re-check of patched copies; see fix_verify.h.
#include "fsmove/check/fix_verify.h"

#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/output_file.h"
#include "fsmove/check/confirm.h"
#include "fsmove/check/traced_run.h"
#include "fsmove/exec/executor.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/exec/puppet_log.h"
#include "fsmove/exec/replay.h"

namespace fsmove::check {
namespace fs = std::filesystem;
namespace {

// Re-checks of single patches after a failed re-check of all of them together.
constexpr size_t kMaxSingleRechecks = 8;

// Copies the module tree (without its .git) from `from` to `to`.
absl::Status CopyTree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot make ", to.string(), ": ", ec.message()));
  for (const fs::directory_entry& e : fs::directory_iterator(from, ec)) {
    if (e.path().filename() == ".git") continue;
    fs::copy(e.path(), to / e.path().filename(),
             fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot copy ", e.path().string(), ": ", ec.message()));
    }
  }
  if (ec)
    return absl::InternalError(absl::StrCat("cannot read ", from.string(), ": ", ec.message()));
  return absl::OkStatus();
}

class ScratchCopy {
 public:
  ScratchCopy() {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl =
        absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp", "/fsmove-fixcheck-XXXXXX");
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchCopy() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  ScratchCopy(const ScratchCopy&) = delete;
  ScratchCopy& operator=(const ScratchCopy&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string PairKey(const checker::Finding& f, const catalog::Catalog& cat) {
  return absl::StrCat(std::string(checker::FaultKindName(f.kind)), " ", cat.resource(f.source).ref,
                      " -> ", cat.resource(f.target).ref);
}

// What a re-check of some patches showed.
struct Outcome {
  std::string failure;                    // the run itself went wrong: nothing is proven
  std::map<size_t, std::string> still;    // findings the re-check still has
  std::vector<std::string> new_findings;  // findings the original check did not have
  // Confirmed findings (--confirm) whose replay on the patched code no longer breaks: how.
  std::map<size_t, std::string> replayed;
};

class Verifier {
 public:
  explicit Verifier(const FixVerifyInputs& in) : in_(in) {}

  void Run(const report::FindingsContext& ctx, checker::CheckResult* result,
           const fix::FixPlanner& planner) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < result->findings.size(); ++i) {
      const checker::Finding& f = result->findings[i];
      if (planner.Planned(i) && f.patch && f.patch->verdict != checker::FixVerdict::kFailed) {
        candidates.push_back(i);
      }
      fingerprints_.insert(f.fingerprint);
      pairs_.insert(PairKey(f, *ctx.catalog));
    }
    Outcome all = Recheck(*ctx.catalog, *result, planner, candidates);
    if (Interrupted()) {
      for (size_t i : candidates) Fail(result->findings[i], all.failure);
      return;
    }
    if (all.failure.empty() && all.new_findings.empty()) {
      for (size_t i : candidates) Judge(result->findings[i], all, i);
      return;
    }
    if (candidates.size() == 1) {
      Judge(result->findings[candidates[0]], all, candidates[0]);
      return;
    }
    for (size_t k = 0; k < candidates.size(); ++k) {
      checker::Finding& f = result->findings[candidates[k]];
      if (k >= kMaxSingleRechecks) {
        Fail(f, absl::StrCat("not verified: the patches failed together (", Why(all),
                             ") and only the first ", kMaxSingleRechecks,
                             " were re-checked on their own"));
        continue;
      }
      if (Interrupted()) {
        Fail(f, absl::StrCat("not verified: interrupted (", sigabbrev_np(*in_.interrupted_by),
                             ") before its own re-check"));
        continue;
      }
      Judge(f, Recheck(*ctx.catalog, *result, planner, {candidates[k]}), candidates[k]);
    }
  }

 private:
  bool Interrupted() const { return in_.interrupted_by != nullptr && *in_.interrupted_by != 0; }

  // Whether `run` was interrupted by a signal; if so, records it, and `why` says so.
  bool TookSignal(const exec::RunResult& run, std::string_view what, std::string* why) const {
    if (run.end != exec::RunEnd::kInterrupted) return false;
    if (in_.interrupted_by != nullptr) *in_.interrupted_by = run.signal;
    *why = absl::StrCat("not verified: interrupted (", sigabbrev_np(run.signal), ") during ",
                        std::string(what));
    return true;
  }

  static std::string Why(const Outcome& o) {
    if (!o.failure.empty()) return o.failure;
    return absl::StrCat("new finding", o.new_findings.size() == 1 ? "" : "s",
                        " on the re-check: ", absl::StrJoin(o.new_findings, "; "));
  }

  static void Fail(checker::Finding& f, std::string reason) {
    f.patch->verdict = checker::FixVerdict::kFailed;
    f.patch->reason = std::move(reason);
  }

  static void Judge(checker::Finding& f, const Outcome& o, size_t i) {
    if (!o.failure.empty() || !o.new_findings.empty()) return Fail(f, Why(o));
    if (auto it = o.still.find(i); it != o.still.end()) return Fail(f, it->second);
    f.patch->verdict = checker::FixVerdict::kVerified;
    std::string proof =
        "verified: the patched code compiled and applied in a fresh "
        "sandbox, and its re-check found neither this nor anything new";
    if (auto it = o.replayed.find(i); it != o.replayed.end())
      absl::StrAppend(&proof, "; ", it->second);
    f.patch->reason = f.patch->reason.empty() ? proof : absl::StrCat(proof, "; ", f.patch->reason);
  }

  // The check's request on a copy of the code in `dir` with `fix` made.
  absl::StatusOr<exec::CheckRequest> PatchedRequest(const fix::RenderedFix& fix,
                                                    const std::string& root,
                                                    const std::string& dir) const {
    exec::CheckRequest req = in_.request.Rerun();
    const fs::path copy = fs::path(dir) / fs::path(root).filename();
    const bool module = !in_.target.module_dir.empty() && root == in_.target.module_dir;
    if (in_.target.kind == exec::ResolvedTarget::Kind::kEnvironment) {
      // A control repo: the copy is checked as the repo was (its Puppetfile's deployment is
      // the same, cached by the Puppetfile's content).
      if (absl::Status st = CopyTree(root, copy); !st.ok()) return st;
      req.target.path = copy.string();
      if (absl::Status st = WriteChanged(fix, copy); !st.ok()) return st;
      return req;
    }
    if (module) {
      if (absl::Status st = CopyTree(root, copy); !st.ok()) return st;
      // Its sibling modules stay where they are (after the copy's own directory).
      if (!in_.target.link_module) {
        req.target.modulepath.push_back(fs::path(in_.target.module_dir).parent_path().string());
      }
    }
    if (in_.target.kind == exec::ResolvedTarget::Kind::kModule) {
      req.target.path = copy.string();
    } else if (module) {
      // A manifest of the module (examples/) is the copy's; one beside it is copied too.
      const std::string rel =
          fs::path(in_.target.manifest_path).lexically_relative(in_.target.module_dir).string();
      if (!rel.empty() && !rel.starts_with("..")) {
        req.target.path = (copy / rel).string();
      } else {
        std::error_code ec;
        const fs::path manifest = fs::path(dir) / fs::path(in_.target.manifest_path).filename();
        fs::copy_file(in_.target.manifest_path, manifest, ec);
        if (ec)
          return absl::InternalError(absl::StrCat("cannot copy the manifest: ", ec.message()));
        req.target.path = manifest.string();
        req.target.with_module = copy.string();
      }
    } else {
      std::error_code ec;
      fs::create_directories(copy, ec);
      const fs::path manifest = copy / fs::path(in_.target.manifest_path).filename();
      fs::copy_file(in_.target.manifest_path, manifest, ec);
      if (ec) return absl::InternalError(absl::StrCat("cannot copy the manifest: ", ec.message()));
      req.target.path = manifest.string();
      if (req.target.with_module.empty()) req.target.with_module = in_.target.module_dir;
    }
    if (absl::Status st = WriteChanged(fix, copy); !st.ok()) return st;
    return req;
  }

  // The fix made in the copy: beneath it, never through a link (the copy keeps the code's
  // links as links, and one of them may lead out of it: manifests/sub -> /etc).
  static absl::Status WriteChanged(const fix::RenderedFix& fix, const fs::path& copy) {
    for (const fix::ChangedFile& f : fix.files) {
      if (absl::Status st = base::WriteFileBeneath(copy.string(), f.relative, f.new_text);
          !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  }

  // Why the re-check's run proves nothing; empty when it ran as the check's own did.
  std::string RunProblem(const exec::RunResult& run) const {
    if (run.end == exec::RunEnd::kCompileFailed) {
      std::string log = exec::DeduplicateErrors(exec::StripAnsi(run.compile_log));
      if (log.size() > 600) log = log.substr(0, 600) + "...";
      return absl::StrCat("the patched code does not compile: ", log);
    }
    if (run.end != exec::RunEnd::kApplied || !run.summary.ApplyFinished()) {
      return "the re-check's apply did not finish" + (run.error.empty() ? "" : ": " + run.error);
    }
    for (const std::string& e : run.summary.errors) {
      if (e.find("cycle") != std::string::npos || e.find("elationship") != std::string::npos) {
        return "Puppet refused the patched catalog: " + e;
      }
    }
    for (const report::FailedResource& f : run.summary.failed) {
      if (std::find(in_.failed_before.begin(), in_.failed_before.end(), f.resource) ==
          in_.failed_before.end()) {
        return absl::StrCat("the patched code fails ", f.resource, ": ", f.message);
      }
    }
    return "";
  }

  Outcome Recheck(const catalog::Catalog& cat, const checker::CheckResult& original,
                  const fix::FixPlanner& planner, const std::vector<size_t>& which) {
    Outcome o;
    auto fix = planner.Render(which);
    ScratchCopy scratch;
    if (!fix.ok() || scratch.path().empty()) {
      o.failure =
          fix.ok() ? "cannot make a scratch directory" : std::string(fix.status().message());
      return o;
    }
    auto req = PatchedRequest(*fix, planner.scope().root, scratch.path());
    if (!req.ok()) {
      o.failure = std::string(req.status().message());
      return o;
    }
    analysis::Analyzer analyzer(AnalyzerOptionsFor(*req));
    auto run = RunTraced(*req, in_.full_trace, analyzer);
    if (!run.ok()) {
      o.failure = absl::StrCat("the re-check could not run: ", run.status().message());
      return o;
    }
    struct RemoveWork {
      std::string dir;
      ~RemoveWork() {
        std::error_code ec;
        fs::remove_all(dir, ec);
      }
    } remove_work{run->work_dir};
    if (TookSignal(*run, "the re-check", &o.failure)) return o;
    if (o.failure = RunProblem(*run); !o.failure.empty()) return o;
    auto recat = exec::LoadRunCatalog(*run, req->budget);
    if (!recat.ok()) {
      o.failure = absl::StrCat("the re-check's catalog: ", recat.status().message());
      return o;
    }
    std::optional<pipeline::PuppetGraphInput> graph;
    if (!run->puppet_graph.empty())
      graph.emplace(pipeline::PuppetGraphInput{"Puppet's graph", run->puppet_graph, false});
    auto found = pipeline::CheckFindings(in_.settings, in_.project, *recat, analyzer,
                                         graph ? &*graph : nullptr);
    if (!found.ok()) {
      o.failure = absl::StrCat("the re-check failed: ", found.status().message());
      return o;
    }
    Compare(cat, original, *recat, *found, which, &o);
    if (o.new_findings.empty()) ReplayConfirmed(cat, original, *recat, *run, *req, which, &o);
    return o;
  }

  // A finding a replay confirmed (--confirm) is fixed only when what broke in that replay can
  // no longer happen on the patched code, replayed there the same way: the order it forced
  // is now a dependency cycle Puppet refuses (an ordering), or the service's daemon no longer
  // runs stale after the change (a notifier). Else it stays in `still`, saying why.
  void ReplayConfirmed(const catalog::Catalog& cat, const checker::CheckResult& original,
                       const catalog::Catalog& recat, const exec::RunResult& patched,
                       const exec::CheckRequest& patched_request, const std::vector<size_t>& which,
                       Outcome* o) const {
    for (size_t i : which) {
      const checker::Finding& f = original.findings[i];
      if (!f.confirmation.confirmed || o->still.contains(i)) continue;
      const catalog::Resource& source = cat.resource(f.source);
      const catalog::Resource& target = cat.resource(f.target);
      const auto s = recat.Find(source.type, source.title);
      const auto t = recat.Find(target.type, target.title);
      if (!s || !t) {
        o->still[i] = absl::StrCat("the patched catalog lacks ", s ? target.ref : source.ref,
                                   ", so the confirming replay cannot be made again");
        continue;
      }
      exec::CheckRequest req = patched_request;
      req.untraced = true;
      req.probe_paths.assign(f.paths.begin(),
                             f.paths.begin() + std::min(f.paths.size(), kMaxPathsPerFinding));
      std::string proof;
      if (f.kind == checker::FaultKind::kMissingOrdering) {
        const auto [first, original_second] = OrderToForce(f, cat);
        const catalog::Resource& second = recat.resource(&original_second == &source ? *s : *t);
        auto forced = exec::ForceOrder(patched.catalog_text, second.json_index, first.ref);
        if (!forced.ok()) {
          o->still[i] = absl::StrCat(
              "the confirming order cannot be forced on the patched "
              "catalog: ",
              forced.status().message());
          continue;
        }
        req.apply_catalog = std::move(*forced);
        proof = absl::StrCat("the order the confirming replay forced (", first.ref, " before ",
                             second.ref,
                             ") is a dependency cycle Puppet refuses on the "
                             "patched code");
      } else {
        auto held = exec::HoldBack(patched.catalog_text, {source.ref});
        auto refresh = exec::RefreshCatalog(patched.catalog_text, target.ref);
        if (!held.ok() || !refresh.ok()) {
          o->still[i] = absl::StrCat(
              "the confirming replay cannot be made on the patched "
              "catalog: ",
              (held.ok() ? refresh : held).status().message());
          continue;
        }
        req.apply_catalog = std::move(*held);
        req.refresh_catalog = std::move(*refresh);
        req.second_catalog = patched.catalog_text;
        req.reapplies = 1;
      }
      auto replay = exec::RunCheck(req, nullptr);  // untraced: no trace to read
      if (replay.ok()) {
        std::error_code ec;
        fs::remove_all(replay->work_dir, ec);
      }
      if (std::string why; replay.ok() && TookSignal(*replay, "the confirming replay", &why)) {
        for (size_t left : which) {
          if (original.findings[left].confirmation.confirmed && !o->replayed.contains(left))
            o->still.try_emplace(left, why);
        }
        return;
      }
      if (!replay.ok()) {
        o->still[i] = absl::StrCat("the confirming replay on the patched code could not run: ",
                                   replay.status().message());
      } else if (f.kind == checker::FaultKind::kMissingOrdering) {
        const bool refused = std::any_of(
            replay->summary.errors.begin(), replay->summary.errors.end(),
            [](const std::string& e) { return e.find("dependency cycle") != std::string::npos; });
        if (refused) {
          o->replayed[i] = std::move(proof);
        } else {
          o->still[i] = absl::StrCat(
              "the order the confirming replay forced still applies on "
              "the patched code (Puppet found no cycle)");
        }
      } else {
        std::string why, reason;
        std::vector<std::string> differences;
        if (!exec::ReplayRan(*replay, &why)) {
          o->still[i] = absl::StrCat(
              "the confirming replay on the patched code did not run to "
              "its end: ",
              why);
        } else if (exec::StaleDaemon(*replay, source.ref, target.ref, req.probe_paths, &differences,
                                     &reason)) {
          o->still[i] = absl::StrCat("replayed on the patched code, ", target.ref,
                                     " still runs stale after ", source.ref, "'s change");
        } else {
          o->replayed[i] = absl::StrCat(
              "the confirming replay, made again on the patched code, "
              "no longer shows a stale daemon: ",
              reason);
        }
      }
    }
  }

  void Compare(const catalog::Catalog& cat, const checker::CheckResult& original,
               const catalog::Catalog& recat, const pipeline::RecheckFindings& found,
               const std::vector<size_t>& which, Outcome* o) const {
    std::set<std::string> again_fp, again_pairs;
    for (size_t k = 0; k < found.result.findings.size(); ++k) {
      const checker::Finding& g = found.result.findings[k];
      const std::string pair = PairKey(g, recat);
      again_fp.insert(g.fingerprint);
      again_pairs.insert(pair);
      if (found.counted[k] && !fingerprints_.contains(g.fingerprint) && !pairs_.contains(pair)) {
        o->new_findings.push_back(pair);
      }
    }
    for (size_t i : which) {
      const checker::Finding& f = original.findings[i];
      const std::string pair = PairKey(f, cat);
      if (again_fp.contains(f.fingerprint) || again_pairs.contains(pair)) {
        o->still[i] = absl::StrCat("the re-check of the patched code still finds ", pair);
      }
    }
  }

  FixVerifyInputs in_;
  std::set<std::string> fingerprints_;
  std::set<std::string> pairs_;
};

}  // namespace

pipeline::VerifyFixes MakeFixVerifier(const FixVerifyInputs& inputs) {
  auto verifier = std::make_shared<Verifier>(inputs);
  return [verifier](const report::FindingsContext& ctx, checker::CheckResult* result,
                    const fix::FixPlanner& planner) { verifier->Run(ctx, result, planner); };
}

}  // namespace fsmove::check
