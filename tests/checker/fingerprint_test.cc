// Finding fingerprints: pinned values (so a refactoring cannot silently invalidate every
// baseline users have committed), what they depend on and what they must not, and stability
// on real runs of two different manifests that have the same fault on different lines.
#include "fsmove/checker/fingerprint.h"

#include <gtest/gtest.h>

#include "../report/recorded_check.h"

namespace fsmove::testing {
namespace {

using checker::FaultKind;
using checker::FindingFingerprint;

TEST(FingerprintTest, PinnedValues) {
  // Computed independently with Python's hashlib from the documented text.
  EXPECT_EQ(FindingFingerprint(FaultKind::kMissingOrdering, "File[/etc/app/app.conf]",
                               "Exec[use config]", {"/etc/app/app.conf"}),
            "f61cecf2dc4827b419dcf7236ac2e348");
  EXPECT_EQ(
      FindingFingerprint(
          FaultKind::kMissingNotifier, "Package[memcached]", "Service[memcached]",
          {"/usr/share/memcached/scripts/start-memcached", "/etc/passwd", "/etc/memcached.conf",
           "/etc/init.d/memcached", "/usr/bin/memcached", "/etc/default/memcached"}),
      "2546526bee61400f145fb398f0dc3682");
}

TEST(FingerprintTest, DependsOnKindResourcesAndPaths) {
  auto fp = [](FaultKind k, const std::string& s, const std::string& t,
               std::vector<std::string> p) { return FindingFingerprint(k, s, t, std::move(p)); };
  std::string base = fp(FaultKind::kMissingOrdering, "File[/a]", "Exec[b]", {"/a"});
  EXPECT_EQ(base.size(), 32u);
  EXPECT_NE(base, fp(FaultKind::kMissingNotifier, "File[/a]", "Exec[b]", {"/a"}));
  EXPECT_NE(base, fp(FaultKind::kMissingOrdering, "Exec[b]", "File[/a]", {"/a"}));
  EXPECT_NE(base, fp(FaultKind::kMissingOrdering, "File[/a]", "Exec[c]", {"/a"}));
  EXPECT_NE(base, fp(FaultKind::kMissingOrdering, "File[/a]", "Exec[b]", {"/a", "/b"}));
  EXPECT_NE(base, fp(FaultKind::kMissingOrdering, "File[/a]", "Exec[b]", {}));
  // Order and repetition of paths do not matter.
  EXPECT_EQ(fp(FaultKind::kMissingOrdering, "File[/a]", "Exec[b]", {"/b", "/a", "/b"}),
            fp(FaultKind::kMissingOrdering, "File[/a]", "Exec[b]", {"/a", "/b"}));
  // Field boundaries are length-prefixed: moving bytes between fields changes the hash.
  EXPECT_NE(fp(FaultKind::kMissingOrdering, "A[x]", "B[y]", {"/p", "q"}),
            fp(FaultKind::kMissingOrdering, "A[x]", "B[y]", {"/pq"}));
  EXPECT_NE(fp(FaultKind::kMissingOrdering, "A[x]B", "[y]", {}),
            fp(FaultKind::kMissingOrdering, "A[x]", "B[y]", {}));
}

TEST(FingerprintTest, CheckerSetsItFromEveryPathNotTheCappedEvidence) {
  checker::CheckOptions capped;
  capped.package_notify = true;
  capped.max_evidence = 1;
  RecordedCheck run = CheckRecorded("faults-package-service-bad", capped);
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 1u);
  const checker::Finding& f = run.result.findings[0];
  EXPECT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.paths.size(), 5u);  // not /etc/passwd: the service names no account
  EXPECT_TRUE(std::is_sorted(f.paths.begin(), f.paths.end()));
  EXPECT_EQ(f.fingerprint, "8629f203fce58410743c1a09b5f3b575");
}

// bad.pp and bad-reversed.pp declare the same two resources in a different order (other
// lines) and Puppet applied them in a different order (other trace lines and syscalls):
// the finding is the same, and so is its fingerprint.
TEST(FingerprintTest, SameFaultInAnotherManifestAndOrderKeepsItsFingerprint) {
  RecordedCheck a = CheckRecorded("faults-configure-use-bad");
  RecordedCheck b = CheckRecorded("faults-configure-use-bad-reversed");
  ASSERT_TRUE(a.catalog && b.catalog);
  ASSERT_EQ(a.result.findings.size(), 1u);
  ASSERT_EQ(b.result.findings.size(), 1u);
  const checker::Finding& fa = a.result.findings[0];
  const checker::Finding& fb = b.result.findings[0];
  ASSERT_NE(a.catalog->resource(fa.source).line, b.catalog->resource(fb.source).line);
  ASSERT_NE(fa.evidence[0].target.line, fb.evidence[0].target.line);
  EXPECT_EQ(fa.fingerprint, fb.fingerprint);
  EXPECT_EQ(fa.fingerprint, "f61cecf2dc4827b419dcf7236ac2e348");
}

}  // namespace
}  // namespace fsmove::testing
