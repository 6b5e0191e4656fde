// Relation inference (paper, section 3.3.2) and its extensions: ordering with the "b2 does not
// produce p" exclusion, notification to services, write-write races, evidence.
#include "fsmove/analysis/relations.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace_harness.h"

namespace fsmove::testing {
namespace {

using analysis::RelationKind;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

TEST(RelationsTest, ConsumerRunBeforeProducerStillYieldsTheOrder) {
  // The paper's Figure 4: the exec ran first and read the default content.
  Harness h(Cat({Block("Exec[init]", {"open(\"/etc/my.cnf\", O_RDONLY) = 3"}),
                 Block("File[/etc/my.cnf]",
                       {"openat(AT_FDCWD, \"/etc/my.cnf.tmp\", O_WRONLY|O_CREAT|O_EXCL, 0600) = 7",
                        "rename(\"/etc/my.cnf.tmp\", \"/etc/my.cnf\") = 0"})}));
  EXPECT_THAT(h.Pairs(RelationKind::kOrdering),
              UnorderedElementsAre(Pair("File[/etc/my.cnf]", "Exec[init]")));
  EXPECT_THAT(h.Pairs(RelationKind::kNotification), IsEmpty());
}

TEST(RelationsTest, AConsumerThatAlsoProducesThePathIsNotOrdered) {
  Harness h(Cat({Block("Exec[a]", {"open(\"/x\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"}),
                 Block("Exec[b]", {"open(\"/x\", O_RDONLY) = 3",
                                   "open(\"/x\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"})}));
  EXPECT_THAT(h.Pairs(RelationKind::kOrdering), IsEmpty());
  EXPECT_THAT(h.Pairs(RelationKind::kWriteWrite), UnorderedElementsAre(Pair("Exec[a]", "Exec[b]")));
}

TEST(RelationsTest, ExpungingWhatAnotherProducedIsOrdered) {
  Harness h(Cat({Block("Exec[make]", {"mkdir(\"/srv/cache\", 0755) = 0"}),
                 Block("File[/srv/cache]", {"rmdir(\"/srv/cache\") = 0"})}));
  EXPECT_THAT(h.Pairs(RelationKind::kOrdering),
              UnorderedElementsAre(Pair("Exec[make]", "File[/srv/cache]")));
}

TEST(RelationsTest, ServicesReadingProducedFilesNeedNotification) {
  Harness h(Cat({Block("File[/etc/app.conf]",
                       {"open(\"/etc/app.conf\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"}),
                 Block("Service[app]", {"clone(child_stack=NULL, flags=SIGCHLD) = 300"}),
                 {"300 open(\"/etc/app.conf\", O_RDONLY) = 3"}}));
  EXPECT_THAT(h.Pairs(RelationKind::kNotification),
              UnorderedElementsAre(Pair("File[/etc/app.conf]", "Service[app]")));
  EXPECT_THAT(h.Pairs(RelationKind::kOrdering),
              UnorderedElementsAre(Pair("File[/etc/app.conf]", "Service[app]")));
}

TEST(RelationsTest, EvidenceNamesPathsSyscallsAndLines) {
  Harness h(Cat({Block("File[/a]", {"open(\"/a\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"}),
                 Block("Exec[b]", {"stat(\"/a\", {st_mode=S_IFREG|0644, ...}) = 0"})}));
  analysis::Relations r = h.analyzer.ComputeRelations();
  ASSERT_EQ(r.ordering.size(), 1u);
  ASSERT_EQ(r.ordering[0].evidence.size(), 1u);
  const analysis::Evidence& e = r.ordering[0].evidence[0];
  EXPECT_EQ(e.path, "/a");
  EXPECT_EQ(fstrace::SyscallName(e.first.syscall), "open");
  EXPECT_EQ(e.first.line, 2u);
  EXPECT_EQ(fstrace::SyscallName(e.second.syscall), "stat");
  EXPECT_EQ(e.second.line, 5u);
}

TEST(RelationsTest, CreatingInsideADirectoryNeedsTheDirectory) {
  Harness h(Cat({Block("Package[app]", {"mkdir(\"/etc/app\", 0755) = 0"}),
                 Block("File[/etc/app/app.conf]",
                       {"open(\"/etc/app/app.conf\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"})}));
  EXPECT_THAT(h.Pairs(RelationKind::kOrdering),
              UnorderedElementsAre(Pair("Package[app]", "File[/etc/app/app.conf]")));
}

}  // namespace
}  // namespace fsmove::testing
