// Replays for `fsmove check --confirm`: the compiled catalog applied again, untraced, each
// time in a fresh sandbox, once as compiled (the reference) and once per finding with the
// opposite order forced. What a forced replay does differently from the reference (a
// resource that fails, is skipped or changes otherwise; a conflicting path whose final
// content, owner or mode differs) is the proof that the order matters.
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

// What the forced replay did differently from the reference, one sentence each: resources
// (by reference; only those both applies evaluated: a resource one of them never reached says
// nothing about the order), then paths (in `probes` order), then services: "Exec[use] failed: ...",
// "Service[app] was skipped (its dependencies failed)", "File[/x] changed content (with the
// catalog's order: nothing)", "/etc/app.conf: absent (with the catalog's order: file 0644
// 0:0, 12 bytes, sha256 ...)", "Service[app]: no process of it runs (with the catalog's
// order: appd)".
std::vector<std::string> ReplayDifferences(const RunResult& reference, const RunResult& forced,
                                           const std::vector<ServiceNames>& services = {});

// A missing notifier `source` ~> `service`, replayed: the catalog applied, `paths` put back as
// the OS root had them, the catalog applied again (RunResult::reapplies[0]). Stale when the
// second apply changed them again through `source`, did not refresh `service`, and a process
// of the service (its comm matches one of `service_names`) that started before the newest of
// their new modification times still runs. Confirmed: `differences` says so; else `reason`
// says which condition failed.
bool StaleDaemon(const RunResult& replay, const std::string& source, const std::string& service,
                 const std::vector<std::string>& service_names,
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
