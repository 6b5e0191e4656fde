// --init systemd: the sandbox's PID 1 becomes systemd, and the check waits for it to boot.
//
// PID 1 masks the units that would wait for consoles and logins the sandbox does not have,
// forks, and execs /lib/systemd/systemd (its log, written to the sandbox's /dev/console,
// drained by a process of its own into the out directory's kSystemdLog; the module's
// capability set, a clean environment with container=fsmove). The child asks
// `systemctl is-system-running --wait` until systemd says it has booted, at most a minute,
// then runs the check and hands its exit code to the keeper through `done_fd`; the keeper
// then ends PID 1, and with it the namespace.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/exec/status_message.h"

namespace fsmove::exec {

inline constexpr const char* kSystemdPath = "/lib/systemd/systemd";

// What `systemctl is-system-running` printed, as the wait for the boot reads it.
enum class SystemState {
  kBooting,  // initializing, starting, or offline/nothing (systemctl cannot reach it yet)
  kBooted,   // running, or degraded: a unit of the root failed, which the module does not need
  kDown,     // maintenance (emergency or rescue), stopping: it will not boot
};
SystemState ClassifySystemState(std::string_view printed);

// The units masked in `root` (a directory holding etc/systemd/system) before systemd starts:
// gettys and logind, which wait for terminals and seats the sandbox has not.
void MaskConsoleUnits(const std::string& root);

// systemd's argv and environment as PID 1 of the sandbox.
std::vector<std::string> SystemdArgv();
std::vector<std::string> SystemdEnvironment();

// Waits until systemd has booted (true) or a minute has gone or it is down (false: said).
// `for_what` ends the note that says it booted ("" for the apply, " for the compile").
bool WaitForSystemdBoot(const std::vector<std::string>& env, std::string_view for_what,
                        const StatusWriter& status);

// The service units whose start condition systemd found unmet at or after `since_usec`
// (CLOCK_MONOTONIC, in microseconds): blocks of `systemctl show -p
// Id,ConditionResult,ConditionTimestampMonotonic` (a blank line between units) with
// ConditionResult=no and a timestamp at or after it. A unit whose condition was never tested has
// timestamp 0. At most kMaxFailedUnits, in the order shown.
std::vector<std::string> UnitsSkippedSince(std::string_view show, uint64_t since_usec);

// The first unmet condition that `systemctl status UNIT` names (its "└─ CONDITION was not met"
// line under "Condition: start condition failed") or `systemd-analyze condition --unit=UNIT`
// does ("UNIT: CONDITION failed."), as "CONDITION was not met"; "" when neither names one.
// systemctl status forgets which condition failed after a daemon-reload (the result stays);
// systemd-analyze tests them again, now.
std::string UnmetCondition(std::string_view printed);

// In PID 1: the whole boot. What systemd writes to the console (`console`: the master of the
// sandbox's /dev/console, sandbox_layout.h; taken; -1: none) is drained into `log` (taken;
// -1: dropped), a file of the out directory that nothing in the sandbox can open.
// `supervise` runs in the child once systemd has booted; its result goes to `done_fd` and is
// the child's exit code. Returns only when systemd could not be started (the exit code to
// give).
int BootSystemdAsPid1(int log, int console, const std::vector<std::string>& env,
                      std::string_view for_what, const StatusWriter& status, int done_fd,
                      const std::function<int()>& supervise);

}  // namespace fsmove::exec
