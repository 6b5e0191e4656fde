// The Execs that restart or stop a service behind Puppet's graph, found once per check: a
// notify that reaches a restart relay refreshes the service, and an exec that stops a service
// before its configuration changes (stop-edit-start) leaves no daemon running stale. The rules
// restart-relay, refresh-guaranteed and stop-edit-start judge by them (registry.cc).
#pragma once

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fsmove/analysis/access_map.h"
#include "fsmove/catalog/catalog.h"
#include "fsmove/graph/dependency_graph.h"

namespace fsmove::checker {

class ServiceRelays {
 public:
  // Execs that restart, reload or signal a service, by their command (a service tool, or a
  // control program of control_programs.tsv: `syslog-ng-ctl reload`, and `systemctl
  // daemon-reload` for a timer, which systemd re-arms with its reloaded settings) or because
  // their processes ran the service's init script (`accesses` keyed by resource), and execs
  // whose command stops one.
  ServiceRelays(const catalog::Catalog& catalog, const graph::DependencyGraph& graph,
                analysis::AccessMap& accesses);

  // `exec` is an Exec that restarts `service`.
  bool IsRestartRelay(catalog::ResourceId exec, catalog::ResourceId service) const;
  // `exec` stops some service (and does not start it again).
  bool StopsAService(catalog::ResourceId exec) const { return stopped_by_.contains(exec); }
  // `a` refreshes service `s`: through the graph, or through an exec that restarts it.
  bool Refreshes(catalog::ResourceId a, catalog::ResourceId s) const;
  // `exec` is refreshonly and everything whose change notifies it (Puppet's graph: through its
  // containers and relays too) refreshes `service`: the service is refreshed whenever the exec
  // changes anything. The exec is not required to come before the service: what such an exec
  // writes is made from what its triggers changed, and a judged case (saz-timezone's
  // dpkg-reconfigure of the zone its Files set) rewrites the same content.
  bool TriggersRefresh(catalog::ResourceId exec, catalog::ResourceId service) const;
  // The stop-edit-start idiom: an exec that runs on every apply stops service `s` before
  // `producer` changes anything, and `s` is applied after it.
  bool StoppedAround(catalog::ResourceId producer, catalog::ResourceId s) const;

 private:
  const catalog::Catalog& catalog_;
  const graph::DependencyGraph& graph_;
  absl::flat_hash_map<catalog::ResourceId, std::vector<catalog::ResourceId>>
      restart_relays_;  // service -> execs
  absl::flat_hash_map<catalog::ResourceId, std::vector<catalog::ResourceId>>
      stop_execs_;                                       // service -> execs
  absl::flat_hash_set<catalog::ResourceId> stopped_by_;  // execs that stop a service
};

}  // namespace fsmove::checker
