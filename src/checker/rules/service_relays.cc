// Restart relays and stop-edit-start execs; see service_relays.h.
#include "fsmove/checker/rules/service_relays.h"

#include <algorithm>
#include <optional>
#include <string>

#include "fsmove/checker/resource_semantics.h"
#include "fsmove/fstrace/lowering.h"

namespace fsmove::checker {

using catalog::ResourceId;

ServiceRelays::ServiceRelays(const catalog::Catalog& catalog, const graph::DependencyGraph& graph,
                             analysis::AccessMap& accesses)
    : catalog_(catalog), graph_(graph) {
  for (ResourceId s : catalog_.ResourcesOfType("Service")) {
    std::string name = ServiceName(catalog_.resource(s));
    absl::flat_hash_set<ResourceId> ran_script;
    for (const analysis::Access& a : accesses.accesses(accesses.Intern("/etc/init.d/" + name))) {
      if (fstrace::SyscallName(a.syscall) == "execve") ran_script.insert(a.block);
    }
    for (ResourceId e : catalog_.ResourcesOfType("Exec")) {
      std::optional<std::string> command = catalog_.resource(e).CommandLine();
      if (command && CommandStopsService(*command, name)) {  // ran the script to stop
        stop_execs_[s].push_back(e);
        stopped_by_.insert(e);
      } else if (ran_script.contains(e) ||
                 (command && (CommandRestartsService(*command, name) ||
                              ControlProgramRefreshes(*command, name) != nullptr))) {
        restart_relays_[s].push_back(e);
      }
    }
  }
}

bool ServiceRelays::IsRestartRelay(ResourceId exec, ResourceId service) const {
  if (catalog_.resource(exec).type != "Exec") return false;
  auto it = restart_relays_.find(service);
  return it != restart_relays_.end() &&
         std::find(it->second.begin(), it->second.end(), exec) != it->second.end();
}

bool ServiceRelays::Refreshes(ResourceId a, ResourceId s) const {
  if (graph_.Notifies(a, s)) return true;
  auto it = restart_relays_.find(s);
  if (it == restart_relays_.end()) return false;
  for (ResourceId e : it->second) {
    if (e == a || graph_.Notifies(a, e)) return true;
  }
  return false;
}

bool ServiceRelays::TriggersRefresh(ResourceId exec, ResourceId service) const {
  const catalog::Resource& r = catalog_.resource(exec);
  if (r.type != "Exec" || !IsRefreshOnly(r)) return false;
  // Its triggers as Puppet's graph has them: a notify of the Exec itself, or of a class or
  // defined type that contains it (`notify => Class['sendmail::makeall']`), or through a relay.
  size_t triggers = 0;
  for (ResourceId x = 0; x < catalog_.size(); ++x) {
    if (x == exec || catalog_.resource(x).is_container || !graph_.Notifies(x, exec)) continue;
    ++triggers;
    if (!Refreshes(x, service)) return false;
  }
  return triggers > 0;
}

bool ServiceRelays::StoppedAround(ResourceId producer, ResourceId s) const {
  auto it = stop_execs_.find(s);
  if (it == stop_execs_.end() || !graph_.HappensBefore(producer, s)) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](ResourceId e) {
    return RunsEveryApply(catalog_.resource(e)) && graph_.HappensBefore(e, producer);
  });
}

}  // namespace fsmove::checker
