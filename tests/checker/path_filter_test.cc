// Globs for --ignore-path, the documented default ignores, and package-manager state.
#include "fsmove/checker/path_filter.h"

#include <gtest/gtest.h>

namespace fsmove::checker {
namespace {

TEST(PathFilterTest, GlobsStayWithinComponentsUnlessDoubleStar) {
  auto f = PathFilter::Create({"/var/log/*.log", "/srv/**/cache", "/opt/app/**"}, false);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->Ignored("/var/log/app.log"));
  EXPECT_FALSE(f->Ignored("/var/log/app/x.log"));
  EXPECT_TRUE(f->Ignored("/srv/cache"));
  EXPECT_TRUE(f->Ignored("/srv/a/b/cache"));
  EXPECT_FALSE(f->Ignored("/srv/a/b/cache/x"));
  EXPECT_TRUE(f->Ignored("/opt/app"));
  EXPECT_TRUE(f->Ignored("/opt/app/bin/x"));
  EXPECT_FALSE(f->Ignored("/opt/application"));
}

TEST(PathFilterTest, SpecialCharactersAreLiteral) {
  auto f = PathFilter::Create({"/etc/a+b (1).conf", "/x/?.[ch]"}, false);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->Ignored("/etc/a+b (1).conf"));
  EXPECT_FALSE(f->Ignored("/etc/aab (1).conf"));
  EXPECT_TRUE(f->Ignored("/x/y.[ch]"));
  EXPECT_FALSE(f->Ignored("/x/y.c"));
}

TEST(PathFilterTest, DefaultsIgnorePuppetStateAndVirtualFileSystems) {
  auto f = PathFilter::Create({}, true);
  ASSERT_TRUE(f.ok());
  for (const char* p :
       {"/proc/self/fd/3", "/dev/null", "/sys/kernel/mm", "/var/lib/puppet/state/state.yaml",
        "/etc/ld.so.cache", "/dev", "/run/systemd/generator/local-fs.target.wants/tmp.mount",
        "/run/systemd/generator.late/app.service", "/.rnd", "/root/.rnd", "/run/systemd/propagate",
        "/run/systemd/incoming/x", "/run/systemd/inaccessible/reg",
        "/run/systemd/mount-rootfs/etc"}) {
    EXPECT_TRUE(f->Ignored(p)) << p;
  }
  for (const char* p : {"/etc/app.conf", "/var/lib/dpkg/status", "/tmp/generated", "/devices",
                        "/run/systemd/system/app.service", "/etc/.rnd.conf"}) {
    EXPECT_FALSE(f->Ignored(p)) << p;
  }
  auto none = PathFilter::Create({}, false);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->Ignored("/dev/null"));
}

// Each glob's literal start and end let most paths skip RE2's match: the slash a wildcard
// may leave out must not be required.
TEST(PathFilterTest, LiteralBoundsKeepEveryMatch) {
  auto f =
      PathFilter::Create({"**/cache", "/srv/**", "/a?c/**/d*", "/e/**x/f", "/etc/exact"}, false);
  ASSERT_TRUE(f.ok());
  for (const char* p : {"cache", "/x/cache", "/srv", "/srv/y", "/abc/d", "/abc/q/r/dz", "/e/x/f",
                        "/e/1/2x/f", "/etc/exact"}) {
    EXPECT_TRUE(f->Ignored(p)) << p;
  }
  for (const char* p :
       {"/x/cachex", "/srvx", "/ab/d", "/abc/e", "/e/x/g", "/etc/exact/", "/etc/exac"}) {
    EXPECT_FALSE(f->Ignored(p)) << p;
  }
}

TEST(PathFilterTest, EmptyGlobIsAnError) {
  auto f = PathFilter::Create({""}, false);
  EXPECT_FALSE(f.ok());
}

TEST(PathFilterTest, PackageManagerState) {
  EXPECT_TRUE(PathFilter::IsPackageManagerState("/var/lib/dpkg/status"));
  EXPECT_TRUE(PathFilter::IsPackageManagerState("/var/cache/apt/pkgcache.bin"));
  EXPECT_TRUE(PathFilter::IsPackageManagerState("/etc/passwd"));
  EXPECT_FALSE(PathFilter::IsPackageManagerState("/var/lib/dpkgx"));
  EXPECT_FALSE(PathFilter::IsPackageManagerState("/etc/apt/sources.list.d/x.list"));
  EXPECT_TRUE(PathFilter::IsPackageManagerState("/etc/rc2.d/S01tftpd-hpa"));
  EXPECT_TRUE(PathFilter::IsEnablementLink("/etc/rcS.d/S01udev"));
  EXPECT_TRUE(PathFilter::IsEnablementLink("/etc/systemd/system/timers.target.wants/a.timer"));
  EXPECT_TRUE(PathFilter::IsEnablementLink("/etc/systemd/system/a.service.requires/b.service"));
  EXPECT_FALSE(PathFilter::IsEnablementLink("/etc/rc.local"));
  EXPECT_FALSE(PathFilter::IsEnablementLink("/etc/rc2.d"));
  EXPECT_FALSE(PathFilter::IsEnablementLink("/etc/rc7.d/S01x"));
  EXPECT_FALSE(PathFilter::IsEnablementLink("/etc/systemd/system/a.service"));
  EXPECT_FALSE(PathFilter::IsEnablementLink("/etc/systemd/system/a.service.d/x.conf"));
}

}  // namespace
}  // namespace fsmove::checker
