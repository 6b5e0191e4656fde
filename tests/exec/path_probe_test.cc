// What the supervisor reports of a path at the end of a run (replays compare these).
#include "fsmove/exec/path_probe.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

TEST(PathProbeTest, FilesDirectoriesLinksAndAbsentPaths) {
  const fs::path dir = fs::temp_directory_path() / ("fsmove-probe-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "f") << "abc";
  chmod((dir / "f").c_str(), 0640);
  fs::create_symlink("f", dir / "l");

  PathState f = ProbePath((dir / "f").string());
  EXPECT_TRUE(f.exists);
  EXPECT_EQ(f.type, "file");
  EXPECT_EQ(f.mode, 0640u);
  EXPECT_EQ(f.size, 3u);
  EXPECT_EQ(f.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");

  PathState l = ProbePath((dir / "l").string());  // the link itself, not what it names
  EXPECT_EQ(l.type, "symlink");
  EXPECT_EQ(l.target, "f");
  EXPECT_TRUE(l.sha256.empty());

  EXPECT_EQ(ProbePath(dir.string()).type, "directory");
  PathState gone = ProbePath((dir / "gone").string());
  EXPECT_FALSE(gone.exists);
  EXPECT_TRUE(gone.error.empty());  // absent is no error
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fsmove::exec
