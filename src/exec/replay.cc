// Replays for --confirm; see replay.h.
#include "fsmove/exec/replay.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "fmt/format.h"
#include "fsmove/exec/service_observation.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace {

// The changed properties of an outcome: "ensure, content" (messages differ from run to run:
// content digests, an exec's output; which properties changed does not).
std::string ChangedProperties(const ResourceOutcome& o) {
  std::set<std::string> names;
  for (const std::string& c : o.changes) names.insert(c.substr(0, c.find(':')));
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// A catalog to rewrite for a replay: an object with a "resources" array.
absl::StatusOr<nlohmann::json> ReplayCatalog(std::string_view catalog_json) {
  nlohmann::json j = nlohmann::json::parse(catalog_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("resources") || !j["resources"].is_array()) {
    return absl::InvalidArgumentError("the catalog to replay has no \"resources\" array");
  }
  return j;
}

// A resource's "parameters" object, made when it has none.
absl::StatusOr<nlohmann::json*> ParametersOf(nlohmann::json& resource, std::string_view what) {
  nlohmann::json& params = resource["parameters"];
  if (params.is_null()) params = nlohmann::json::object();
  if (!params.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{} has parameters that are not an object", what));
  }
  return &params;
}

// A catalog resource's reference: Service[app].
std::string RefOf(const nlohmann::json& r) {
  return fmt::format("{}[{}]", r.value("type", ""), r.value("title", ""));
}

}  // namespace

absl::StatusOr<std::string> ForceOrder(std::string_view catalog_json, size_t second_index,
                                       const std::string& first_ref) {
  absl::StatusOr<nlohmann::json> j = ReplayCatalog(catalog_json);
  if (!j.ok()) return j.status();
  nlohmann::json& resources = (*j)["resources"];
  if (second_index >= resources.size() || !resources[second_index].is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("the catalog to replay has no resource at index {}", second_index));
  }
  absl::StatusOr<nlohmann::json*> params =
      ParametersOf(resources[second_index], "the resource to replay");
  if (!params.ok()) return params.status();
  nlohmann::json& require = (**params)["require"];
  if (require.is_null()) {
    require = first_ref;
  } else {
    if (!require.is_array()) require = nlohmann::json::array({require});
    require.push_back(first_ref);
  }
  return j->dump();
}

namespace {

// A daemon's comm (at most 15 characters) names the service: "sshd" for ssh, "mysqld" for
// mysql, "postgres" for postgresql, "influxd" for influxdb.
bool NamesService(std::string comm, const std::vector<std::string>& names) {
  for (char& c : comm) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (comm.size() < 3 || comm == "ruby" || comm == "puppet" || comm == "bash" || comm == "sleep") {
    return false;
  }
  for (std::string name : names) {
    if (name.ends_with(".service")) name.resize(name.size() - 8);
    if (size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name.size() < 3) continue;
    if (comm.starts_with(name) || name.starts_with(comm)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::string> HoldBack(std::string_view catalog_json,
                                     const std::vector<std::string>& refs) {
  absl::StatusOr<nlohmann::json> j = ReplayCatalog(catalog_json);
  if (!j.ok()) return j.status();
  size_t held = 0;
  for (nlohmann::json& r : (*j)["resources"]) {
    if (!r.is_object()) continue;
    const std::string ref = RefOf(r);
    if (std::find(refs.begin(), refs.end(), ref) == refs.end()) continue;
    absl::StatusOr<nlohmann::json*> params = ParametersOf(r, ref);
    if (!params.ok()) return params.status();
    (**params)["noop"] = true;
    ++held;
  }
  if (held < refs.size()) {
    return absl::InvalidArgumentError("the catalog to replay lacks a resource to hold back");
  }
  return j->dump();
}

absl::StatusOr<std::string> RefreshCatalog(std::string_view catalog_json,
                                           const std::string& service_ref) {
  absl::StatusOr<nlohmann::json> j = ReplayCatalog(catalog_json);
  if (!j.ok()) return j.status();
  nlohmann::json service;
  for (const nlohmann::json& r : (*j)["resources"]) {
    if (r.is_object() && RefOf(r) == service_ref) service = r;
  }
  if (service.is_null()) {
    return absl::InvalidArgumentError(fmt::format("the catalog to replay has no {}", service_ref));
  }
  if (service.contains("parameters") && service["parameters"].is_object()) {
    for (const char* relationship : {"require", "before", "notify", "subscribe"}) {
      service["parameters"].erase(relationship);
    }
  }
  nlohmann::json refresh = {
      {"type", "Exec"},
      {"title", "fsmove refresh"},
      {"tags", {"exec"}},
      {"exported", false},
      // Without it, Puppet takes the resource for a class or define (and fails on it).
      {"kind", "compilable_type"},
      {"parameters", {{"command", "/bin/true"}, {"notify", service_ref}}}};
  (*j)["resources"] = nlohmann::json::array({std::move(refresh), std::move(service)});
  (*j)["edges"] = nlohmann::json::array();
  (*j)["classes"] = nlohmann::json::array();
  return j->dump();
}

namespace {

// "/usr/bin/memcached -m 64 -p 11211" -> "memcached"; "[kworker]" stays.
std::string ProgramName(const std::string& command_line) {
  std::string first = command_line.substr(0, command_line.find(' '));
  if (size_t slash = first.rfind('/'); slash != std::string::npos) first = first.substr(slash + 1);
  if (first.ends_with(":")) first.pop_back();  // "sshd: /usr/sbin/sshd -D [listener]"
  return first;
}

// The command line observed of `pid` at stage 1.
std::string ProcessText(const std::vector<Observation>& observed, int pid) {
  for (const Observation& o : observed) {
    if (o.stage == 1 && o.kind == "process" && o.pid == pid) return o.text;
  }
  return "";
}

// A process the refresh stopped that held one of `paths` replaced (ReplacedFile; not a
// temporary file, which had no rereading window) before it, watching no file with inotify,
// when no process the refresh started holds it replaced.
const Observation* HolderOfReplaced(const std::vector<Observation>& observed,
                                    const RestartComparison& restart,
                                    const std::vector<std::string>& paths) {
  auto observed_as = [&](int stage, std::string_view kind, int pid, const std::string* text) {
    return std::any_of(observed.begin(), observed.end(), [&](const Observation& o) {
      return o.stage == stage && o.kind == kind && (pid == 0 || o.pid == pid) &&
             (text == nullptr || o.text == *text);
    });
  };
  for (const Observation& o : observed) {
    if (o.stage != 1 || o.kind != "replaced" || IsTemporaryFile(o.text)) continue;
    if (std::find(paths.begin(), paths.end(), o.text) == paths.end()) continue;
    const bool stopped = std::any_of(restart.stopped.begin(), restart.stopped.end(),
                                     [&](const Observation& s) { return s.pid == o.pid; });
    if (!stopped || observed_as(1, "watches", o.pid, nullptr)) continue;
    if (observed_as(2, "replaced", 0, &o.text)) continue;
    return &o;
  }
  return nullptr;
}

}  // namespace

bool StaleDaemon(const RunResult& replay, const std::string& source, const std::string& service,
                 const std::vector<std::string>& paths, std::vector<std::string>* differences,
                 std::string* reason) {
  if (replay.reapplies.empty()) {
    *reason = "the second apply did not run";
    return false;
  }
  const ApplyOutcomes& second = replay.reapplies.front().outcomes;
  auto a = second.resources.find(source);
  if (a == second.resources.end() || a->second.changes.empty()) {
    *reason = fmt::format("{} changed nothing in the second apply, after a first that held it back",
                          source);
    return false;
  }
  if (auto s = second.resources.find(service); s != second.resources.end() && s->second.refreshed) {
    *reason = fmt::format("{} was refreshed in the second apply", service);
    return false;
  }
  const PathState* newest = nullptr;
  for (const PathState& p : replay.probes) {
    if (!p.exists || std::find(paths.begin(), paths.end(), p.path) == paths.end()) continue;
    if (newest == nullptr || p.mtime > newest->mtime) newest = &p;
  }
  if (newest == nullptr) {
    *reason = "none of the paths exists after the second apply";
    return false;
  }
  if (replay.observed.empty()) {
    *reason =
        fmt::format("{} was not refreshed after the second apply: nothing to compare", service);
    return false;
  }
  const RestartComparison restart = CompareRestart(replay.observed);
  if (restart.stopped.empty()) {
    *reason = fmt::format(
        "refreshing {} stopped no process: either nothing of it ran, or its restart does not "
        "reach its daemon here (an init script that looks for another pid file)",
        service);
    return false;
  }
  if (restart.started.empty()) {
    *reason = fmt::format("refreshing {} stopped its processes and started none", service);
    return false;
  }
  const Observation* stale = nullptr;
  for (const Observation& o : restart.stopped) {
    if (o.start < newest->mtime && (stale == nullptr || o.start < stale->start)) stale = &o;
  }
  if (stale == nullptr) {
    *reason = fmt::format("every process a refresh of {} stopped started after {} changed", service,
                          newest->path);
    return false;
  }
  if (restart.differences.empty()) {
    // A daemon that holds the file it read, replaced since (Puppet renames a new file over
    // the old), still reads the old content: an outcome, whatever its command line.
    if (const Observation* holder = HolderOfReplaced(replay.observed, restart, paths)) {
      differences->push_back(
          fmt::format("{} changed {} in the second apply ({}) and {} was not refreshed", source,
                      holder->text, a->second.changes.front(), service));
      differences->push_back(fmt::format(
          "{} (pid {}) still holds the replaced {} open, {} s after the change: it reads the old "
          "content (it watches no file with inotify)",
          ProgramName(ProcessText(replay.observed, holder->pid)), holder->pid, holder->text,
          kRereadWindowSeconds));
      differences->push_back(fmt::format(
          "{} restarted, and no process of it holds the old {} any more", service, holder->text));
      return true;
    }
    *reason = fmt::format(
        "restarting {} with the changed {} changed neither the command lines of its processes, "
        "the sockets they listen on nor the files they write, and none of them held the "
        "replaced file open: nothing shows that it acts on what changed",
        service, newest->path);
    return false;
  }
  differences->push_back(
      fmt::format("{} changed {} in the second apply ({}) and {} was not refreshed", source,
                  newest->path, a->second.changes.front(), service));
  differences->push_back(fmt::format(
      "{} (pid {}) still runs, started {:.1f} s before that change: it uses the old {}",
      ProgramName(stale->text), stale->pid, newest->mtime - stale->start, newest->path));
  for (const std::string& d : restart.differences) {
    differences->push_back(fmt::format("{} {}", service, d));
  }
  return true;
}

bool ReplayRan(const RunResult& r, std::string* why) {
  switch (r.end) {
    case RunEnd::kApplied:
      if (r.summary.puppet_exit_code > 128) {
        *why = fmt::format("Puppet was killed by signal {}", r.summary.puppet_exit_code - 128);
        return false;
      }
      if (r.outcomes.dependency_cycle) {
        *why = "forcing the order closes a dependency cycle: Puppet refused the catalog";
        return false;
      }
      if (!r.outcomes.failed_to_apply.empty()) {
        *why = "Puppet stopped the apply: " + r.outcomes.failed_to_apply;
        return false;
      }
      return true;
    case RunEnd::kCompileFailed:
      *why = "the catalog could not be read";
      return false;
    case RunEnd::kSetupFailed:
      *why = "the sandbox failed: " + r.error;
      return false;
    case RunEnd::kTimedOut:
      *why = "the replay timed out (--timeout)";
      return false;
    case RunEnd::kInterrupted:
      *why = "interrupted";
      return false;
  }
  return false;
}

namespace {

// Which of the catalog's resources `r` began to evaluate, by position.
std::vector<bool> Evaluated(const RunResult& r, const catalog::Catalog& cat) {
  std::vector<bool> seen(cat.size(), false);
  for (const std::string& ref : r.outcomes.evaluated) {
    if (std::optional<catalog::ResourceId> id = cat.ResolveRef(ref)) seen[*id] = true;
  }
  return seen;
}

// "A, B, C and 4 more"
std::string FewOf(const std::vector<std::string>& list, size_t shown = 3) {
  std::string out;
  for (size_t i = 0; i < list.size() && i < shown; ++i) out += (i ? ", " : "") + list[i];
  if (list.size() > shown) out += fmt::format(" and {} more", list.size() - shown);
  return out;
}

}  // namespace

bool ReplayConclusive(const RunResult& forced, const RunResult& reference,
                      const catalog::Catalog& cat, const std::string& consumer, std::string* why) {
  // What the reference never evaluated either (a Service whose provider does not work here
  // fails before its evaluation) is the catalog's doing, not the order's.
  const std::vector<bool> now = Evaluated(forced, cat), was = Evaluated(reference, cat);
  std::vector<std::string> missing;
  for (catalog::ResourceId id = 0; id < cat.size(); ++id) {
    if (!now[id] && was[id]) missing.push_back(cat.resource(id).ref);
  }
  const size_t reached = static_cast<size_t>(std::count(was.begin(), was.end(), true));
  if (!missing.empty()) {
    *why = fmt::format(
        "Puppet evaluated only {} of the {} resources it evaluates in the catalog's order and "
        "stopped (a dependency cycle found only at apply time?); never evaluated: {}",
        reached - missing.size(), reached, FewOf(missing));
    return false;
  }
  const std::optional<catalog::ResourceId> consumer_id = cat.ResolveRef(consumer);
  // The consumer failing in the forced order stands on its own (other resources may fail
  // for other missing orderings of the same run); without that failure, a difference seen
  // while other resources failed proves nothing.
  bool consumer_failed = false;
  for (const auto& [ref, o] : forced.outcomes.resources) {
    const std::optional<catalog::ResourceId> id = cat.ResolveRef(ref);
    if (o.failed && (ref == consumer || (id && id == consumer_id))) consumer_failed = true;
  }
  std::vector<std::string> others;
  for (const auto& [ref, o] : forced.outcomes.resources) {
    if (!o.failed || consumer_failed) continue;
    const std::optional<catalog::ResourceId> id = cat.ResolveRef(ref);
    if (ref == consumer || (id && id == consumer_id)) continue;
    auto was = reference.outcomes.resources.find(ref);
    if (was != reference.outcomes.resources.end() && was->second.failed) continue;
    others.push_back(ref);
  }
  if (!others.empty()) {
    *why = fmt::format(
        "besides {}, {} failed in the forced order and not in the catalog's: the replay went "
        "wrong in more than the order it forced",
        consumer, FewOf(others));
    return false;
  }
  const int code = forced.summary.puppet_exit_code;
  const int reference_code = reference.summary.puppet_exit_code;
  if (code != 0 && code != reference_code && !consumer_failed) {
    *why = fmt::format("puppet apply exited with code {} in the forced order ({} in the catalog's)",
                       code, reference_code);
    return false;
  }
  return true;
}

std::vector<ReplayDifference> CompareReplays(const RunResult& reference, const RunResult& forced,
                                             const std::vector<ServiceNames>& services) {
  std::vector<ReplayDifference> out;
  auto add = [&out](const std::string& subject, std::string text, bool outcome) {
    out.push_back(ReplayDifference{subject, std::move(text), outcome});
  };
  static const ResourceOutcome kNothing;
  std::set<std::string> refs;
  for (const auto& [ref, o] : reference.outcomes.resources) refs.insert(ref);
  for (const auto& [ref, o] : forced.outcomes.resources) refs.insert(ref);
  for (const std::string& ref : refs) {
    if (!reference.outcomes.evaluated.contains(ref) || !forced.outcomes.evaluated.contains(ref)) {
      continue;  // one of the applies never reached it
    }
    auto a = reference.outcomes.resources.find(ref);
    auto b = forced.outcomes.resources.find(ref);
    const ResourceOutcome& was = a == reference.outcomes.resources.end() ? kNothing : a->second;
    const ResourceOutcome& now = b == forced.outcomes.resources.end() ? kNothing : b->second;
    if (now.failed && !was.failed) {
      // An exec's output (logged as changes of `returns` before its error) says why.
      std::string output;
      for (const std::string& c : now.changes) {
        if (c.starts_with("returns: ")) output += (output.empty() ? "" : "; ") + c.substr(9);
      }
      add(ref,
          output.empty() ? fmt::format("{} failed: {}", ref, now.error)
                         : fmt::format("{} failed: {} ({})", ref, output, now.error),
          true);
    } else if (was.failed && !now.failed) {
      add(ref,
          fmt::format("{} did not fail (with the catalog's order it failed: {})", ref,
                      FirstLine(was.error)),
          true);
    }
    if (now.skipped != was.skipped) {
      add(ref,
          now.skipped ? fmt::format("{} was skipped: its dependencies failed", ref)
                      : fmt::format("{} was not skipped (with the catalog's order its "
                                    "dependencies failed)",
                                    ref),
          true);
    }
    if (now.failed || was.failed || now.skipped || was.skipped) continue;
    const std::string changed_now = ChangedProperties(now), changed_was = ChangedProperties(was);
    if (changed_now != changed_was) {
      add(ref,
          fmt::format("{} changed {} (with the catalog's order: {})", ref,
                      changed_now.empty() ? "nothing" : changed_now,
                      changed_was.empty() ? "nothing" : changed_was),
          false);
    }
  }
  for (const PathState& now : forced.probes) {
    for (const PathState& was : reference.probes) {
      if (was.path != now.path || was == now) continue;
      add(now.path,
          fmt::format("{}: {} (with the catalog's order: {})", now.path, DescribePathState(now),
                      DescribePathState(was)),
          true);
    }
  }
  // Whether each service runs at the end: the comm of its processes, or none.
  auto running = [](const RunResult& r, const ServiceNames& s) {
    std::set<std::string> comms;
    for (const Daemon& d : r.daemons) {
      if (NamesService(d.comm, s.names)) comms.insert(d.comm);
    }
    std::string list;
    for (const std::string& c : comms) list += (list.empty() ? "" : ", ") + c;
    return list;
  };
  for (const ServiceNames& s : services) {
    const std::string was = running(reference, s), now = running(forced, s);
    if ((was.empty()) == (now.empty())) continue;
    add(s.ref,
        now.empty()
            ? fmt::format("{}: no process of it runs (with the catalog's order: {})", s.ref, was)
            : fmt::format("{}: {} runs (with the catalog's order: no process of it)", s.ref, now),
        true);
  }
  return out;
}

}  // namespace fsmove::exec
