// Puppet's graph read back from a run's work directory: the file under out/, never through a
// symbolic link (of the directory or the file), a note saying why when it cannot be read, and
// --save-graph's copy of exactly what was read.
#include "fsmove/exec/run_graph.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fsmove/exec/sandbox.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGraph = "digraph Relationships {\n  \"File[/a]\" -> \"File[/b]\";\n}\n";

class RunGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "fsmove-run-graph-XXXXXX").string();
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    work_ = dir;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(work_, ec);
  }
  void WriteGraph(const fs::path& path) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << kGraph;
  }
  fs::path out() const { return work_ / kOutDir; }

  fs::path work_;
};

std::string ReadText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

TEST_F(RunGraphTest, ReadsTheGraphOfTheOutDirectory) {
  WriteGraph(out() / kExpandedGraphFile);
  RunResult run;
  ReadPuppetGraph(work_.string(), "", &run);
  EXPECT_EQ(run.puppet_graph, kGraph);
  EXPECT_EQ(run.puppet_graph_path, (out() / kExpandedGraphFile).string());
  EXPECT_EQ(run.puppet_graph_note, "");
}

TEST_F(RunGraphTest, NoOutDirectoryIsANote) {
  RunResult run;
  ReadPuppetGraph(work_.string(), "", &run);
  EXPECT_EQ(run.puppet_graph, "");
  EXPECT_EQ(run.puppet_graph_note,
            "cannot open " + work_.string() + "/out: No such file or directory");
}

TEST_F(RunGraphTest, NeverFollowsASymbolicLink) {
  WriteGraph(work_ / "elsewhere" / kExpandedGraphFile);
  fs::create_directories(out());
  fs::create_symlink(work_ / "elsewhere" / kExpandedGraphFile, out() / kExpandedGraphFile);
  RunResult run;
  ReadPuppetGraph(work_.string(), "", &run);
  EXPECT_EQ(run.puppet_graph, "");
  EXPECT_NE(run.puppet_graph_note.find("symbolic link"), std::string::npos)
      << run.puppet_graph_note;

  // Nor one in place of the out directory.
  fs::remove_all(out());
  fs::create_directory_symlink(work_ / "elsewhere", out());
  RunResult linked;
  ReadPuppetGraph(work_.string(), "", &linked);
  EXPECT_EQ(linked.puppet_graph, "");
  EXPECT_EQ(linked.puppet_graph_note.rfind("cannot open " + work_.string() + "/out: ", 0), 0u)
      << linked.puppet_graph_note;
}

TEST_F(RunGraphTest, SaveGraphKeepsWhatWasRead) {
  WriteGraph(out() / kExpandedGraphFile);
  RunResult run;
  const fs::path saved = work_ / "saved.dot";
  ReadPuppetGraph(work_.string(), saved.string(), &run);
  EXPECT_EQ(ReadText(saved), kGraph);
  EXPECT_TRUE(run.notes.empty());

  // A copy that cannot be written is a note of the run, and the graph is still read.
  RunResult unsaved;
  ReadPuppetGraph(work_.string(), (work_ / "no" / "such" / "dir" / "g.dot").string(), &unsaved);
  EXPECT_EQ(unsaved.puppet_graph, kGraph);
  ASSERT_EQ(unsaved.notes.size(), 1u);
  EXPECT_EQ(unsaved.notes[0].rfind("cannot write Puppet's graph to ", 0), 0u) << unsaved.notes[0];
  EXPECT_EQ(unsaved.summary.notes, unsaved.notes);
}

}  // namespace
}  // namespace fsmove::exec
