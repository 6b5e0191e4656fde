// The sandbox's id ranges (/etc/subuid parsing, map lines) and its spec's round trip.
#include "fsmove/exec/user_namespace.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fsmove/exec/sandbox.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

TEST(FindSubordinateRangeTest, ByNameOrUidFirstBigEnough) {
  const std::string text =
      "alice:100000:65536\n"
      "bob:165536:1000\n"    // too few for the sandbox
      "bob:300000:65536\n"   // the next of bob's lines is taken
      "1001:400000:70000\n"  // by uid
      "broken line\n"
      "carol:x:65536\n";
  auto alice = FindSubordinateRange(text, "alice", 1000);
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->first, 100000u);
  EXPECT_EQ(alice->count, 65536u);
  auto bob = FindSubordinateRange(text, "bob", 1002);
  ASSERT_TRUE(bob.has_value());
  EXPECT_EQ(bob->first, 300000u);
  auto by_uid = FindSubordinateRange(text, "dave", 1001);
  ASSERT_TRUE(by_uid.has_value());
  EXPECT_EQ(by_uid->first, 400000u);
  EXPECT_FALSE(FindSubordinateRange(text, "carol", 1003).has_value());
  EXPECT_FALSE(FindSubordinateRange(text, "nobody", 65534).has_value());
  EXPECT_FALSE(FindSubordinateRange("", "alice", 1000).has_value());
  // A range that would wrap past the last uid, or that starts at 0 (the host's root), is no
  // range for a sandbox.
  EXPECT_FALSE(FindSubordinateRange("eve:4294967000:65536\n", "eve", 1).has_value());
  EXPECT_FALSE(FindSubordinateRange("eve:0:65536\n", "eve", 1).has_value());
}

TEST(IdMappingTest, MapLines) {
  IdMapping m;
  m.uid_first = 100000;
  m.gid_first = 200000;
  EXPECT_EQ(m.UidMapLine(), "0 100000 65536\n");
  EXPECT_EQ(m.GidMapLine(), "0 200000 65536\n");
}

TEST(IdMappingTest, RootMapsToAnUnprivilegedRange) {
  if (geteuid() != 0) GTEST_SKIP() << "the mapping of root";
  absl::StatusOr<IdMapping> m = SandboxIdMapping();
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(m->rootless);
  EXPECT_GT(m->uid_first, 0u);
  EXPECT_GT(m->gid_first, 0u);
}

// A child in a user namespace whose map this process writes is root there, and the host's
// uid of its files is in the range.
TEST(WriteIdMapsTest, ChildBecomesRootOfItsNamespace) {
  if (geteuid() != 0) GTEST_SKIP() << "writing maps directly needs root";
  if (!ProbeUserNamespace().ok()) GTEST_SKIP() << "no user namespaces here";
  int ready[2], go[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char b = 0;
    if (unshare(CLONE_NEWUSER) != 0) _exit(10);
    (void)!write(ready[1], &b, 1);
    if (read(go[0], &b, 1) != 1) _exit(11);
    if (setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0) _exit(12);
    _exit(getuid() == 0 && geteuid() == 0 ? 0 : 13);
  }
  char b = 0;
  ASSERT_EQ(read(ready[0], &b, 1), 1);
  IdMapping m;
  m.uid_first = m.gid_first = kRootModeIdBase;
  EXPECT_TRUE(WriteIdMaps(child, m).ok());
  ASSERT_EQ(write(go[1], &b, 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// What the sandbox's root owns on the host (a file of host uid kRootModeIdBase), the host's
// uid alone may not change without privilege; RunInUserNamespace's work may, as that root.
TEST(RunInUserNamespaceTest, WorkRunsAsTheSandboxesRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "writing maps directly needs root";
  if (!ProbeUserNamespace().ok()) GTEST_SKIP() << "no user namespaces here";
  char dir[] = "/tmp/fsmove-userns-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string owned = std::string(dir) + "/sandbox-root-owns";
  const std::string inner = owned + "/inner";
  ASSERT_EQ(mkdir(owned.c_str(), 0700), 0);
  ASSERT_EQ(mkdir(inner.c_str(), 0700), 0);
  // Removing `inner` needs write access to `owned`: its owner's, or capabilities that count
  // for files whose owner the namespace maps.
  ASSERT_EQ(chown(inner.c_str(), kRootModeIdBase, kRootModeIdBase), 0);
  ASSERT_EQ(chown(owned.c_str(), kRootModeIdBase, kRootModeIdBase), 0);
  IdMapping m;
  m.uid_first = m.gid_first = kRootModeIdBase;
  bool inside_root = false;  // set in the child only: the parent's copy stays false
  EXPECT_TRUE(RunInUserNamespace(m, [&] {
                inside_root = true;
                // The child's own uid is unmapped; its capabilities over the namespace's
                // files (the mapped ones) remain.
                if (rmdir(inner.c_str()) != 0 || rmdir(owned.c_str()) != 0) _exit(20);
              }).ok());
  EXPECT_FALSE(inside_root);
  struct stat st;
  EXPECT_NE(stat(owned.c_str(), &st), 0) << "the work did not run";
  rmdir(inner.c_str());
  rmdir(owned.c_str());
  // A failing work is an error.
  EXPECT_FALSE(RunInUserNamespace(m, [] { _exit(3); }).ok());
  rmdir(dir);
}

TEST(SandboxSpecTest, RoundTripKeepsTheLimitsAndTheLowerLayersOwner) {
  SandboxSpec s;
  s.work_dir = "/tmp/w";
  s.scratch_dir = "/tmp/w/sandbox";
  s.pids_limit = 4096;
  s.lower_id_base = 100000;
  s.init = "systemd";
  absl::StatusOr<SandboxSpec> back = SandboxSpecFromJson(SandboxSpecToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->pids_limit, 4096u);
  EXPECT_EQ(back->lower_id_base, 100000u);
  EXPECT_EQ(back->init, "systemd");
  EXPECT_EQ(InsideWorkDir(*back), kSandboxWorkDir);
  back->mode = SandboxMode::kNone;
  EXPECT_EQ(InsideWorkDir(*back), "/tmp/w/in");
}

// A modulepath directory of links: where each input is shown and which directories are the
// sandbox's own survive the trip to the keeper; a target list that does not match the inputs
// is refused, not half-applied.
TEST(SandboxSpecTest, RoundTripKeepsWhereModuleLinksAreShown) {
  SandboxSpec s;
  s.input_paths = {"/usr/share/puppet/modules.available/puppetlabs-concat", "/srv/site.pp"};
  s.input_at = {"/usr/share/puppet/modules/concat", ""};
  s.linked_module_dirs = {"/usr/share/puppet/modules"};
  absl::StatusOr<SandboxSpec> back = SandboxSpecFromJson(SandboxSpecToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->input_at, s.input_at);
  EXPECT_EQ(back->linked_module_dirs, s.linked_module_dirs);
  nlohmann::json j = SandboxSpecToJson(s);
  j["input_at"] = std::vector<std::string>{"/usr/share/puppet/modules/concat"};
  EXPECT_FALSE(SandboxSpecFromJson(j).ok());
}

}  // namespace
}  // namespace fsmove::exec
