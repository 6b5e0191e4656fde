#include "fsmove/exec/preflight.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scoped_env.h"

namespace fsmove::exec {
namespace {

using ::testing::HasSubstr;

class PreflightTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/preflight_test";
    std::filesystem::create_directories(dir_);
  }
  // An executable shell script.
  std::string Script(const std::string& name, const std::string& body) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  // Without the overlay sandbox (no root needed) on the host.
  static CheckRequest Request() {
    CheckRequest r;
    r.sandbox = SandboxMode::kNone;
    return r;
  }
  std::string dir_;
};

TEST_F(PreflightTest, TheEnvironmentNamesTheTools) {
  ScopedEnv puppet("FSMOVE_PUPPET", "/opt/x/puppet");
  ScopedEnv strace("FSMOVE_STRACE", "/opt/x/strace");
  EXPECT_EQ(PuppetExecutable(), "/opt/x/puppet");
  EXPECT_EQ(StraceExecutable(), "/opt/x/strace");
}

TEST_F(PreflightTest, AMissingPuppetSaysHowToInstallIt) {
  ScopedEnv puppet("FSMOVE_PUPPET", dir_ + "/no-such-puppet");
  ScopedEnv strace("FSMOVE_STRACE", Script("strace-ok", "exit 0"));
  absl::Status st = Preflight(Request());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("puppet not found (" + dir_ + "/no-such-puppet)"));
  EXPECT_THAT(std::string(st.message()), HasSubstr("FSMOVE_PUPPET"));
}

TEST_F(PreflightTest, AMissingStraceSaysHowToInstallIt) {
  ScopedEnv puppet("FSMOVE_PUPPET", Script("puppet", "exit 0"));
  ScopedEnv strace("FSMOVE_STRACE", dir_ + "/no-such-strace");
  absl::Status st = Preflight(Request());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("strace not found (" + dir_ + "/no-such-strace)"));
}

TEST_F(PreflightTest, AStraceThatCannotTraceIsRefusedWithItsError) {
  ScopedEnv puppet("FSMOVE_PUPPET", Script("puppet", "exit 0"));
  ScopedEnv strace(
      "FSMOVE_STRACE",
      Script("strace-denied",
             "echo 'strace: ptrace(PTRACE_TRACEME): Operation not permitted' >&2; exit 1"));
  absl::Status st = Preflight(Request());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("strace cannot trace processes here (exit code 1: "
                        "strace: ptrace(PTRACE_TRACEME): Operation not permitted)"));
}

TEST_F(PreflightTest, WorkingToolsPass) {
  ScopedEnv puppet("FSMOVE_PUPPET", Script("puppet", "exit 0"));
  ScopedEnv strace("FSMOVE_STRACE", Script("strace-ok", "exit 0"));
  EXPECT_TRUE(Preflight(Request()).ok());
}

TEST_F(PreflightTest, APinnedRootOrSystemdNeedsTheOverlay) {
  ScopedEnv puppet("FSMOVE_PUPPET", Script("puppet", "exit 0"));
  ScopedEnv strace("FSMOVE_STRACE", Script("strace-ok", "exit 0"));
  CheckRequest pinned = Request();
  pinned.root = OsRoot{"debian-12", dir_, ""};
  EXPECT_THAT(std::string(Preflight(pinned).message()),
              HasSubstr("--root needs the overlay sandbox"));
  CheckRequest systemd = Request();
  systemd.init = "systemd";
  EXPECT_THAT(std::string(Preflight(systemd).message()),
              HasSubstr("--init systemd needs the overlay sandbox"));
}

}  // namespace
}  // namespace fsmove::exec
