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

}  // namespace
}  // namespace fsmove::exec
