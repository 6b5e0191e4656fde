// The analysis result an Analyzer leaves for the checker (analysis_result.h), from strace
// lines: the blocks and accesses, what Puppet said went wrong on its stderr, which package
// dpkg was unpacking, and paths through the symlinks known before the trace. The checker's own
// tests build such a result without strace text (tests/checker/analysis_builder.h); this is
// where the two meet.
#include "fsmove/analysis/analysis_result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace_harness.h"

namespace fsmove::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Puppet's log line on its stderr, as strace shows it.
std::string Stderr(const std::string& text) {
  return "100 writev(2, [{iov_base=\"\\33[1;31m" + text +
         "\\33[0m\", iov_len=99}, {iov_base=\"\\n\", iov_len=1}], 2) = 100";
}

TEST(AnalysisResultTest, PuppetsProblemsFromItsStderr) {
  Harness h(
      Cat({Block("Exec[fails]",
                 {Stderr("Error: /Stage[main]/Main/Exec[fails]/returns: change from 'notrun' to "
                         "['0'] failed: '/bin/false' returned 1 instead of one of [0]")
                      .substr(4)}),
           Block("File[/etc/after]",
                 {"writev(2, [{iov_base=\"\\33[mWarning: /Stage[main]/Main/File[/etc/after]: "
                  "Skipping because of failed dependencies\\33[0m\", iov_len=80}], 1) = 80"}),
           {Stderr("Error: Found 1 dependency cycle:")}}));
  const analysis::AnalysisResult result = h.analyzer.result();
  ASSERT_EQ(result.problems().size(), 3u);
  EXPECT_EQ(result.problems()[0].kind, strace::ProblemKind::kResourceFailed);
  EXPECT_EQ(result.problems()[0].ref, "Exec[fails]");
  EXPECT_THAT(result.problems()[0].message, HasSubstr("'/bin/false' returned 1"));
  EXPECT_EQ(result.problems()[1].kind, strace::ProblemKind::kResourceSkipped);
  EXPECT_EQ(result.problems()[1].ref, "File[/etc/after]");
  EXPECT_EQ(result.problems()[2].kind, strace::ProblemKind::kApplyFailed);
  EXPECT_EQ(result.problems()[2].message, "Found 1 dependency cycle:");
  ASSERT_NE(result.trace, nullptr);
  EXPECT_GT(result.trace->lines, 0u);
}

// The blocks and accesses are the interpreter's; a path's package and canonical form are what
// the interpreter says of it.
TEST(AnalysisResultTest, AViewOfTheInterpreter) {
  Harness h(
      Cat({Block("Package[client]", {"open(\"/usr/lib/libfoo.so.1\", O_WRONLY|O_CREAT, 0644) = 3",
                                     "rename(\"/var/lib/dpkg/info/libfoo1:amd64.list-new\", "
                                     "\"/var/lib/dpkg/info/libfoo1:amd64.list\") = 0"}),
           Block("Exec[use]", {"open(\"/lib/libfoo.so.1\", O_RDONLY) = 3"})}));
  const analysis::AnalysisResult result = h.analyzer.result();
  EXPECT_EQ(result.blocks, &h.analyzer.interpreter().blocks());
  EXPECT_EQ(result.accesses, &h.analyzer.interpreter().accesses());
  std::vector<std::string> unpacked;
  for (analysis::PathId p = 0; p < result.accesses->path_count(); ++p) {
    const std::string_view path = result.accesses->path(p);
    EXPECT_EQ(result.CanonicalPath(path), h.analyzer.interpreter().CanonicalPath(path)) << path;
    if (!result.UnpackedFrom(p).empty()) {
      unpacked.push_back(std::string(path) + " " + std::string(result.UnpackedFrom(p)));
    }
  }
  EXPECT_THAT(unpacked, ElementsAre("/usr/lib/libfoo.so.1 libfoo1"));
}

// A result built by hand with neither function set takes paths as they are.
TEST(AnalysisResultTest, UnsetFunctionsKeepPathsAsTheyAre) {
  analysis::AnalysisResult result;
  EXPECT_EQ(result.CanonicalPath("/lib/x"), "/lib/x");
  EXPECT_EQ(result.UnpackedFrom(0), "");
  EXPECT_TRUE(result.problems().empty());
}

}  // namespace
}  // namespace fsmove::testing
