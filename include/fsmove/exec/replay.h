// Replays for `fsmove check --confirm`: the compiled catalog applied again, untraced, each
// time in a fresh sandbox, once as compiled (the reference) and once per finding with the
// opposite order forced. A different outcome of the forced replay (a resource that fails or is
// skipped; a conflicting path whose end state differs; a service that runs or not), which a
// second apply in the catalog's order does not show too, is the proof that the order matters.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/exec/executor.h"

namespace fsmove::exec {

// The catalog with an edge forcing `first` before the resource at `second_index` of its
// "resources" array: `first_ref` joins that resource's `require` (a string or an array; the
// other relationships stay). An error if the text is not a catalog or has no such resource.
absl::StatusOr<std::string> ForceOrder(std::string_view catalog_json, size_t second_index,
                                       const std::string& first_ref);

// A Service resource of the catalog and the names its daemon may have (its title, its `name`).
struct ServiceNames {
  std::string ref;
  std::vector<std::string> names;
};

// One thing the forced replay did differently from the reference.
struct ReplayDifference {
  // What differed: a resource's reference, a probed path, or a Service's reference.
  std::string subject;
  // One sentence: "Exec[use] failed: ...", "Service[app] was skipped (its dependencies
  // failed)", "File[/x] changed content (with the catalog's order: nothing)", "/etc/app.conf:
  // absent (with the catalog's order: file 0644 0:0, 12 bytes, sha256 ...)", "Service[app]: no
  // process of it runs (with the catalog's order: appd)".
  std::string text;
  // An outcome: a resource that fails (or no longer fails) or is skipped, a probed path's end
  // state (existence, type, content, owner, mode, link target), whether a service runs. Else
  // only Puppet's messages differ (which properties it says it changed: "ensure created"
  // against "content changed"), which may lead to the same end state.
  bool outcome = false;
};

// What the forced replay did differently from the reference: resources (by reference; only
// those both applies evaluated: a resource one of them never reached says nothing about the
// order), then paths (in `probes` order), then services.
std::vector<ReplayDifference> CompareReplays(const RunResult& reference, const RunResult& forced,
                                             const std::vector<ServiceNames>& services = {});

// The catalog with `noop => true` on each resource of `refs`: the first apply of a replay of
// missing notifiers, which holds their sources' changes back. An error if the text is not a
// catalog or lacks one of them.
absl::StatusOr<std::string> HoldBack(std::string_view catalog_json,
                                     const std::vector<std::string>& refs);

// The catalog applied to refresh `service_ref` (a Service of `catalog_json`) as a notify
// would: that Service alone, with its own parameters (provider, restart command, ...) but no
// relationships, and an Exec that always runs and notifies it. An error if the text is not a
// catalog or has no such Service.
absl::StatusOr<std::string> RefreshCatalog(std::string_view catalog_json,
                                           const std::string& service_ref);

// A missing notifier `source` ~> `service`, replayed (CheckRequest::refresh_catalog): the
// catalog applied with `source` held back (HoldBack: the service starts with the paths as
// they were before it), the catalog applied (RunResult::reapplies[0]), then the service
// refreshed, the sandbox observed before and after (RunResult::observed).
// Confirmed only when all of these hold, each said in `differences`: the second apply changed
// the paths again through `source` and did not refresh `service`; a process that the last
// refresh stopped (the service's daemon, whatever its name) started before the newest of their
// new modification times; and the restart changed what the daemon does: a command line or a
// listening socket (CompareRestart). A daemon that reads a file whose content it does not act
// on is not confirmed. Else `reason` says which condition failed.
bool StaleDaemon(const RunResult& replay, const std::string& source, const std::string& service,
                 const std::vector<std::string>& paths, std::vector<std::string>* differences,
                 std::string* reason);

// The replay ran Puppet's apply to its end (else `why` says what went wrong).
bool ReplayRan(const RunResult& r, std::string* why);

// A forced replay that ran (ReplayRan) proves something only if it applied the same catalog as
// far as the reference did: Puppet evaluated every resource of `cat` (a forced order that
// closes a dependency cycle Puppet finds only at apply time makes it stop part-way, leaving
// the rest unapplied), no resource failed but `consumer` (the finding's resource that needs
// the other's work: its failure is the proof) and those that failed in `reference` too, and
// puppet apply exited as it did there. Else false, and `why` says what the replay missed.
bool ReplayConclusive(const RunResult& forced, const RunResult& reference,
                      const catalog::Catalog& cat, const std::string& consumer, std::string* why);

}  // namespace fsmove::exec
