// --init systemd's pure parts: which sandboxes boot it, how the boot wait reads systemctl, the
// units masked in the root, systemd's argv and environment.
#include "fsmove/exec/systemd_boot.h"

#include <unistd.h>

#include <filesystem>
#include <string>

#include "fsmove/exec/supervisor.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

TEST(SystemdBootTest, ClassifiesWhatSystemctlPrints) {
  EXPECT_EQ(ClassifySystemState("running\n"), SystemState::kBooted);
  EXPECT_EQ(ClassifySystemState("degraded\n"), SystemState::kBooted);
  EXPECT_EQ(ClassifySystemState("starting\n"), SystemState::kBooting);
  EXPECT_EQ(ClassifySystemState("initializing"), SystemState::kBooting);
  EXPECT_EQ(ClassifySystemState(""), SystemState::kBooting);  // the bus is not up yet
  EXPECT_EQ(ClassifySystemState("maintenance\n"), SystemState::kDown);
  EXPECT_EQ(ClassifySystemState("stopping \n"), SystemState::kDown);
  // Before its bus is up, systemctl says "offline": still booting.
  EXPECT_EQ(ClassifySystemState("offline\n"), SystemState::kBooting);
  EXPECT_EQ(ClassifySystemState("runnin"), SystemState::kBooting);
}

// --init systemd boots systemd in both sandboxes of a check, so that the catalog is compiled
// with the facts of the system it is applied on; never on the host (--sandbox none).
TEST(SystemdBootTest, BothSandboxesBootIt) {
  SandboxSpec spec;
  spec.init = "systemd";
  EXPECT_TRUE(BootsSystemd(spec, SupervisorPhase::kCompile));
  EXPECT_TRUE(BootsSystemd(spec, SupervisorPhase::kApply));
  EXPECT_FALSE(BootsSystemd(spec, SupervisorPhase::kBoth));
  spec.init = "none";
  EXPECT_FALSE(BootsSystemd(spec, SupervisorPhase::kCompile));
  EXPECT_FALSE(BootsSystemd(spec, SupervisorPhase::kApply));
}

TEST(SystemdBootTest, MasksConsoleUnitsOverWhatTheRootHad) {
  const fs::path root = fs::temp_directory_path() / ("fsmove-systemd-" + std::to_string(getpid()));
  const fs::path units = root / "etc/systemd/system";
  fs::create_directories(units);
  fs::create_symlink("/lib/systemd/system/getty@.service", units / "getty@.service");
  MaskConsoleUnits(root.string());
  for (const char* unit :
       {"console-getty.service", "getty@.service", "getty.target", "systemd-logind.service"}) {
    ASSERT_TRUE(fs::is_symlink(units / unit)) << unit;
    EXPECT_EQ(fs::read_symlink(units / unit), "/dev/null") << unit;
  }
  fs::remove_all(root);
}

TEST(SystemdBootTest, ArgvAndEnvironment) {
  const auto argv = SystemdArgv();
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv[0], kSystemdPath);
  // Its log goes to the console (the work directory's file), without status lines.
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--log-target=console"), argv.end());
  const auto env = SystemdEnvironment();
  // systemd detects the container from it (and skips what a container must not do).
  EXPECT_NE(std::find(env.begin(), env.end(), "container=fsmove"), env.end());
  for (const std::string& e : env) {
    EXPECT_TRUE(e.starts_with("container=") || e.starts_with("PATH=") || e.starts_with("LANG="))
        << "nothing of fsmove's environment: " << e;
  }
}

// What systemctl printed in a sandbox of the debian-12 root (systemd 252) after Puppet started
// irqbalance, whose unit has ConditionVirtualization=!container: its condition was tested during
// the apply and failed; the units of the boot passed theirs, before the apply began.
constexpr std::string_view kShow =
    "Id=systemd-update-utmp.service\n"
    "ConditionResult=yes\n"
    "ConditionTimestampMonotonic=1782292046\n"
    "\n"
    "Id=irqbalance.service\n"
    "ConditionResult=no\n"
    "ConditionTimestampMonotonic=1796828779\n"
    "\n"
    "Id=getty-static.service\n"
    "ConditionResult=no\n"
    "ConditionTimestampMonotonic=1782300000\n"
    "\n"
    "Id=never-started.service\n"
    "ConditionResult=no\n"
    "ConditionTimestampMonotonic=0\n";

TEST(SystemdBootTest, UnitsSkippedDuringTheApply) {
  EXPECT_EQ(UnitsSkippedSince(kShow, 1790000000), std::vector<std::string>{"irqbalance.service"});
  // Since the boot: the unit skipped at boot too; never a unit whose condition was never tested.
  EXPECT_EQ(UnitsSkippedSince(kShow, 0),
            (std::vector<std::string>{"irqbalance.service", "getty-static.service"}));
  EXPECT_TRUE(UnitsSkippedSince("", 0).empty());
  EXPECT_TRUE(UnitsSkippedSince("garbage\nConditionTimestampMonotonic=x\n", 0).empty());
}

TEST(SystemdBootTest, TheUnmetConditionSystemctlStatusNames) {
  constexpr std::string_view kStatus =
      "\u25cb irqbalance.service - irqbalance daemon\n"
      "     Loaded: loaded (/lib/systemd/system/irqbalance.service; enabled; preset: enabled)\n"
      "     Active: inactive (dead)\n"
      "  Condition: start condition failed at Mon 2026-11-30 22:39:15 UTC; 1s ago\n"
      "             \u2514\u2500 ConditionVirtualization=!container was not met\n"
      "       Docs: man:irqbalance(1)\n";
  EXPECT_EQ(UnmetCondition(kStatus), "ConditionVirtualization=!container was not met");
  EXPECT_EQ(UnmetCondition("     Active: active (running)\n"), "");
  EXPECT_EQ(UnmetCondition("  \u2514\u2500 AssertPathExists=/etc/x was not met\n"),
            "AssertPathExists=/etc/x was not met");
  // systemd-analyze condition --unit=fsmove-skipped.service, as it printed in the sandbox.
  EXPECT_EQ(UnmetCondition("fsmove-skipped.service: ConditionPathExists=/etc/fsmove-never "
                           "failed.\nConditions failed.\n"),
            "ConditionPathExists=/etc/fsmove-never was not met");
  EXPECT_EQ(UnmetCondition("Conditions failed.\n"), "");
}

}  // namespace
}  // namespace fsmove::exec
