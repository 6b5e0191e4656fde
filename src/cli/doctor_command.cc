// `fsmove doctor`: whether this machine has what `fsmove check` needs, one line per check,
// with the command that supplies what is missing (exec/doctor.h).
#include <iostream>
#include <memory>

#include "commands.h"
#include "fmt/format.h"
#include "fsmove/exec/doctor.h"
#include "fsmove/exec/os_root.h"
#include "nlohmann/json.hpp"

namespace fsmove::cli {
namespace {

struct DoctorCliOptions {
  std::string root = std::string(kDefaultRoot);
  std::string format = "text";
};

// "ok       NAME: DETAIL", "missing  NAME: DETAIL; fix: FIX", "warning  ..." (not required).
void PrintText(const std::vector<exec::DoctorCheck>& checks, bool ready, std::string_view root) {
  for (const exec::DoctorCheck& c : checks) {
    const char* state = c.ok ? "ok" : c.required ? "missing" : "warning";
    std::cout << fmt::format("{:<8} {}: {}{}\n", state, c.name, c.detail,
                             c.fix.empty() ? "" : "; fix: " + c.fix);
  }
  std::cout << (ready ? fmt::format("fsmove check --root {} can run here\n", root)
                      : fmt::format("fsmove check --root {} cannot run here: fix what is missing\n",
                                    root));
}

void PrintJson(const std::vector<exec::DoctorCheck>& checks, bool ready, std::string_view root) {
  nlohmann::json j;
  j["root"] = root;
  j["ready"] = ready;
  j["checks"] = nlohmann::json::array();
  for (const exec::DoctorCheck& c : checks) {
    j["checks"].push_back({{"name", c.name},
                           {"ok", c.ok},
                           {"required", c.required},
                           {"detail", c.detail},
                           {"fix", c.fix}});
  }
  std::cout << j.dump(2) << "\n";
}

}  // namespace

std::function<int()> RegisterDoctor(CLI::App& app) {
  auto o = std::make_shared<DoctorCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "Check that this machine has what `fsmove check` needs (kernel features, tools, "
      "subordinate ids, the root cache) and say how to add what is missing");
  cmd->add_option("--root", o->root,
                  "the root the check would run on (" + RootNames() +
                      "): host needs this machine's Puppet, a pinned root mmdebstrap until built")
      ->type_name("NAME|DIR")
      ->default_str(std::string(kDefaultRoot));
  cmd->add_option("--format", o->format, "text (one line per check) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text");
  cmd->footer(R"(
Each line is ok, missing (check cannot run without it) or warning (it runs, with less:
no memory limit, no network, a root it builds first), with the command that fixes it.

Exit status:
  0  everything `fsmove check` needs is there
  1  something is missing: check cannot run in its default mode
  2  usage error

Documentation: docs/check.md ("fsmove doctor"), man fsmove-doctor)");
  return [o] {
    const std::vector<exec::DoctorCheck> checks =
        exec::RunDoctor(exec::ProbeThisMachine(), o->root);
    const bool ready = exec::DoctorReady(checks);
    if (o->format == "json") {
      PrintJson(checks, ready, o->root);
    } else {
      PrintText(checks, ready, o->root);
    }
    std::cout.flush();
    return ready ? kExitOk : kExitFindings;
  };
}

}  // namespace fsmove::cli
