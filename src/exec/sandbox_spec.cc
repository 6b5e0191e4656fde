// The sandbox's spec as the executor writes it and the keeper reads it; see sandbox.h.
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fsmove/exec/overlay_mount.h"
#include "fsmove/exec/sandbox.h"

namespace fsmove::exec {

std::string InsideWorkDir(const SandboxSpec& spec) {
  return spec.mode == SandboxMode::kOverlay ? kSandboxWorkDir : spec.work_dir + "/in";
}

nlohmann::json SandboxSpecToJson(const SandboxSpec& s) {
  return {{"mode", s.mode == SandboxMode::kOverlay ? "overlay" : "none"},
          {"work_dir", s.work_dir},
          {"scratch_dir", s.scratch_dir},
          {"input_paths", s.input_paths},
          {"input_at", s.input_at},
          {"linked_module_dirs", s.linked_module_dirs},
          {"policy_rc", s.policy_rc},
          {"prep", s.prep},
          {"preinstalled", s.preinstalled},
          {"keep_dir", s.keep_dir},
          {"trace_cpu", s.trace_cpu},
          {"memory_limit", s.memory_limit},
          {"cgroup_name", s.cgroup_name},
          {"lower_dir", s.lower_dir},
          {"init", s.init},
          {"env", s.env},
          {"compile_argv", s.compile_argv},
          {"strace_argv", s.strace_argv},
          {"apply_argv", s.apply_argv},
          {"reapplies", s.reapplies},
          {"probe_paths", s.probe_paths},
          {"refresh", s.refresh},
          {"pids_limit", s.pids_limit},
          {"lower_id_base", s.lower_id_base},
          {"overlay_mount", s.overlay_mount}};
}

absl::StatusOr<SandboxSpec> SandboxSpecFromJson(const nlohmann::json& j) {
  SandboxSpec s;
  try {
    std::string mode = j.at("mode").get<std::string>();
    if (mode != "overlay" && mode != "none") return absl::InvalidArgumentError("bad mode");
    s.mode = mode == "overlay" ? SandboxMode::kOverlay : SandboxMode::kNone;
    s.work_dir = j.at("work_dir").get<std::string>();
    s.scratch_dir = j.at("scratch_dir").get<std::string>();
    s.input_paths = j.at("input_paths").get<std::vector<std::string>>();
    s.input_at = j.value("input_at", std::vector<std::string>());
    if (!s.input_at.empty() && s.input_at.size() != s.input_paths.size())
      return absl::InvalidArgumentError("bad input_at");
    s.linked_module_dirs = j.value("linked_module_dirs", std::vector<std::string>());
    s.policy_rc = j.at("policy_rc").get<std::string>();
    s.prep = j.at("prep").get<bool>();
    s.preinstalled = j.value("preinstalled", std::string("remove"));
    if (s.preinstalled != "remove" && s.preinstalled != "keep")
      return absl::InvalidArgumentError("bad preinstalled");
    s.keep_dir = j.at("keep_dir").get<std::string>();
    s.trace_cpu = j.value("trace_cpu", -1);
    s.memory_limit = j.value("memory_limit", uint64_t{0});
    s.cgroup_name = j.value("cgroup_name", std::string());
    s.lower_dir = j.value("lower_dir", std::string("/"));
    s.init = j.value("init", std::string("none"));
    if (s.init != "none" && s.init != "systemd") return absl::InvalidArgumentError("bad init");
    s.env = j.at("env").get<std::vector<std::string>>();
    s.compile_argv = j.at("compile_argv").get<std::vector<std::string>>();
    s.strace_argv = j.at("strace_argv").get<std::vector<std::string>>();
    s.apply_argv = j.at("apply_argv").get<std::vector<std::string>>();
    s.reapplies = j.value("reapplies", 0);
    if (s.reapplies < 0 || s.reapplies > 9) return absl::InvalidArgumentError("bad reapplies");
    s.probe_paths = j.value("probe_paths", std::vector<std::string>());
    s.refresh = j.value("refresh", false);
    s.pids_limit = j.value("pids_limit", uint32_t{0});
    s.lower_id_base = j.value("lower_id_base", uint32_t{0});
    s.overlay_mount = j.value("overlay_mount", std::string("auto"));
    if (!ParseOverlayMount(s.overlay_mount)) return absl::InvalidArgumentError("bad overlay_mount");
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(fmt::format("sandbox spec: {}", e.what()));
  }
  return s;
}

}  // namespace fsmove::exec
