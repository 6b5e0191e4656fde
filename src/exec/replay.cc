// Replays for --confirm; see replay.h.
#include "fsmove/exec/replay.h"

#include <set>

#include "fmt/format.h"
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

}  // namespace

absl::StatusOr<std::string> ForceOrder(std::string_view catalog_json, size_t second_index,
                                       const std::string& first_ref) {
  nlohmann::json j = nlohmann::json::parse(catalog_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("resources") || !j["resources"].is_array()) {
    return absl::InvalidArgumentError("the catalog to replay has no \"resources\" array");
  }
  nlohmann::json& resources = j["resources"];
  if (second_index >= resources.size() || !resources[second_index].is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("the catalog to replay has no resource at index {}", second_index));
  }
  nlohmann::json& params = resources[second_index]["parameters"];
  if (params.is_null()) params = nlohmann::json::object();
  if (!params.is_object()) {
    return absl::InvalidArgumentError("the resource to replay has parameters that are not an object");
  }
  nlohmann::json& require = params["require"];
  if (require.is_null()) {
    require = first_ref;
  } else {
    if (!require.is_array()) require = nlohmann::json::array({require});
    require.push_back(first_ref);
  }
  return j.dump();
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

std::vector<std::string> ReplayDifferences(const RunResult& reference, const RunResult& forced) {
  std::vector<std::string> out;
  static const ResourceOutcome kNothing;
  std::set<std::string> refs;
  for (const auto& [ref, o] : reference.outcomes.resources) refs.insert(ref);
  for (const auto& [ref, o] : forced.outcomes.resources) refs.insert(ref);
  for (const std::string& ref : refs) {
    auto a = reference.outcomes.resources.find(ref);
    auto b = forced.outcomes.resources.find(ref);
    const ResourceOutcome& was = a == reference.outcomes.resources.end() ? kNothing : a->second;
    const ResourceOutcome& now = b == forced.outcomes.resources.end() ? kNothing : b->second;
    if (now.failed && !was.failed) {
      out.push_back(fmt::format("{} failed: {}", ref, now.error));
    } else if (was.failed && !now.failed) {
      out.push_back(fmt::format("{} did not fail (with the catalog's order it failed: {})", ref,
                                FirstLine(was.error)));
    }
    if (now.skipped != was.skipped) {
      out.push_back(now.skipped ? fmt::format("{} was skipped: its dependencies failed", ref)
                                : fmt::format("{} was not skipped (with the catalog's order its "
                                              "dependencies failed)", ref));
    }
    if (now.failed || was.failed || now.skipped || was.skipped) continue;
    const std::string changed_now = ChangedProperties(now), changed_was = ChangedProperties(was);
    if (changed_now != changed_was) {
      out.push_back(fmt::format("{} changed {} (with the catalog's order: {})", ref,
                                changed_now.empty() ? "nothing" : changed_now,
                                changed_was.empty() ? "nothing" : changed_was));
    }
  }
  for (const PathState& now : forced.probes) {
    for (const PathState& was : reference.probes) {
      if (was.path != now.path || was == now) continue;
      out.push_back(fmt::format("{}: {} (with the catalog's order: {})", now.path,
                                DescribePathState(now), DescribePathState(was)));
    }
  }
  return out;
}

}  // namespace fsmove::exec
