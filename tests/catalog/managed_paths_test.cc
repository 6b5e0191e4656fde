// Tests for which paths each resource manages and the exact-path reverse index.
#include "fsmove/catalog/managed_paths.h"

#include "catalog_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::catalog {
namespace {

using ::fsmove::testing::Id;
using ::fsmove::testing::LoadTestCatalog;
using ::fsmove::testing::MakeCatalog;
using ::fsmove::testing::Res;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CatalogManagedPathsTest, PathsPerType) {
  const Catalog catalog = MakeCatalog({
      Res("File", "/etc/app.conf/"),
      Res("File", "by-path", {{"path", "/etc//app/./x/"}}),
      Res("Exec", "one-creates", {{"creates", "/opt/app/installed"}}),
      Res("Exec", "many-creates",
          {{"creates", nlohmann::json::array({"/opt/a", "relative/b", "/opt/c/"})}}),
      Res("File_line", "line", {{"path", "/etc/hosts"}, {"line", "x"}}),
      Res("Concat_file", "/etc/motd"),
      Res("Concat_file", "named", {{"path", "/etc/issue"}}),
      Res("Concat", "/etc/concat-define"),
      Res("Ini_setting", "setting", {{"path", "/etc/php.ini"}}),
      Res("Augeas", "with-incl", {{"incl", "/etc/ssh/sshd_config"}}),
      Res("Augeas", "without-incl", {{"context", "/files/etc/hosts"}}),
      Res("Service", "web"),
  });
  const ManagedPaths paths(catalog);
  EXPECT_THAT(paths.PathsOf(Id(catalog, "File[/etc/app.conf/]")), ElementsAre("/etc/app.conf"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "File[by-path]")), ElementsAre("/etc/app/x"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Exec[one-creates]")), ElementsAre("/opt/app/installed"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Exec[many-creates]")), ElementsAre("/opt/a", "/opt/c"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "File_line[line]")), ElementsAre("/etc/hosts"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Concat_file[/etc/motd]")), ElementsAre("/etc/motd"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Concat_file[named]")), ElementsAre("/etc/issue"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Concat[/etc/concat-define]")),
              ElementsAre("/etc/concat-define"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Ini_setting[setting]")), ElementsAre("/etc/php.ini"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Augeas[with-incl]")), ElementsAre("/etc/ssh/sshd_config"));
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Augeas[without-incl]")), IsEmpty());
  EXPECT_THAT(paths.PathsOf(Id(catalog, "Service[web]")), IsEmpty());
}

TEST(CatalogManagedPathsTest, ManagersOfIsExactNeverASubstring) {
  const Catalog catalog = MakeCatalog({Res("File", "/etc"), Res("File", "/etc/hosts"),
                                       Res("File_line", "hosts-line", {{"path", "/etc/hosts"}})});
  const ManagedPaths paths(catalog);
  EXPECT_THAT(paths.ManagersOf("/etc/hosts"),
              ElementsAre(Id(catalog, "File[/etc/hosts]"), Id(catalog, "File_line[hosts-line]")));
  EXPECT_THAT(paths.ManagersOf("/etc//hosts/"),
              ElementsAre(Id(catalog, "File[/etc/hosts]"), Id(catalog, "File_line[hosts-line]")));
  // The original tool's bug: File[/etc] "produced" /usr/local/etc/x.
  EXPECT_THAT(paths.ManagersOf("/usr/local/etc/x"), IsEmpty());
  EXPECT_THAT(paths.ManagersOf("/etc/x"), IsEmpty());
  EXPECT_THAT(paths.ManagersOf("/et"), IsEmpty());
  EXPECT_EQ(paths.FileAt("/etc/hosts"), Id(catalog, "File[/etc/hosts]"));
  EXPECT_EQ(paths.FileAt("/etc/passwd"), std::nullopt);
}

TEST(CatalogManagedPathsTest, NearestManagedAncestor) {
  const Catalog catalog =
      MakeCatalog({Res("File", "/srv"), Res("Exec", "mkdir", {{"creates", "/srv/app/data"}}),
                   Res("File", "/"), Res("File", "/srv/app/data/cache/x")});
  const ManagedPaths paths(catalog);
  EXPECT_EQ(paths.NearestManagedAncestor("/srv/app/data/cache/x"), "/srv/app/data");
  EXPECT_EQ(paths.NearestFileAncestor("/srv/app/data/cache/x"), Id(catalog, "File[/srv]"));
  EXPECT_EQ(paths.NearestManagedAncestor("/srv"), "/");
  EXPECT_EQ(paths.NearestManagedAncestor("/"), std::nullopt);
  EXPECT_EQ(paths.NearestFileAncestor("/opt/x"), Id(catalog, "File[/]"));
}

TEST(CatalogManagedPathsTest, RealCatalogCanonicalisesMessyPaths) {
  const Catalog catalog = LoadTestCatalog("aliases.json");
  const ManagedPaths paths(catalog);
  EXPECT_EQ(paths.FileAt("/tmp/fsmove-cat/dir/messy"), Id(catalog, "File[messy-path]"));
  EXPECT_EQ(paths.FileAt("/tmp/fsmove-cat/dir"), Id(catalog, "File[/tmp/fsmove-cat/dir/]"));
  EXPECT_EQ(paths.NearestFileAncestor("/tmp/fsmove-cat/dir/messy"),
            Id(catalog, "File[/tmp/fsmove-cat/dir/]"));
}

}  // namespace
}  // namespace fsmove::catalog
