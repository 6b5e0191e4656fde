// Tests for mapping trace block names (markers) to catalog resources, generated ones included.
#include "fsmove/catalog/block_resolver.h"

#include "catalog_test_support.h"
#include "gtest/gtest.h"

namespace fsmove::catalog {
namespace {

using ::fsmove::testing::LoadTestCatalog;
using ::fsmove::testing::MakeCatalog;
using ::fsmove::testing::Res;

class CatalogBlockResolverTest : public ::testing::Test {
 protected:
  std::string Describe(const Catalog& catalog, std::string_view trailing,
                       std::string_view source = {}) {
    const ManagedPaths paths(catalog);
    const BlockResolver resolver(catalog, paths);
    const BlockResolution resolution = resolver.Resolve(trailing, source);
    const char* how = resolution.how == BlockMatch::kExact       ? "exact"
                      : resolution.how == BlockMatch::kAlias     ? "alias"
                      : resolution.how == BlockMatch::kGenerated ? "generated"
                                                                 : "unknown";
    return resolution.resource ? std::string(how) + " " + catalog.resource(*resolution.resource).ref
                               : std::string(how);
  }
};

TEST_F(CatalogBlockResolverTest, ExactAndAliasMatches) {
  const Catalog catalog = LoadTestCatalog("containment.json");
  EXPECT_EQ(
      Describe(catalog, "Exec[in-parent]", "/Stage[main]/Containment::Parent/Exec[in-parent]"),
      "exact Exec[in-parent]");
  EXPECT_EQ(
      Describe(
          catalog, "Exec[in-inner-one-inner]",
          "/Stage[main]/Containment::Parent/Containment::Outer[one]/Containment::Inner[one-inner]/"
          "Exec[in-inner-one-inner]"),
      "exact Exec[in-inner-one-inner]");
  // Whit markers print without a slash; Class[main] prints as Class[Main].
  EXPECT_EQ(Describe(catalog, "Class[Main]", "Class[Main]"), "exact Class[main]");
  EXPECT_EQ(Describe(catalog, "Containment::Outer[one]"), "exact Containment::Outer[one]");
  EXPECT_EQ(Describe(catalog, "Stage[main]"), "exact Stage[main]");
  const Catalog aliases = LoadTestCatalog("aliases.json");
  EXPECT_EQ(Describe(aliases, "File[/tmp/fsmove-cat/dir]"), "alias File[/tmp/fsmove-cat/dir/]");
  // With --debug some markers lose the /Stage[main]/... prefix.
  EXPECT_EQ(Describe(aliases, "User[by-name-user]", "/User[by-name-user]"),
            "exact User[by-name-user]");
}

TEST_F(CatalogBlockResolverTest, TitlesThatConfuseASplitterResolveThroughTheSourcePath) {
  const Catalog catalog = LoadTestCatalog("titles.json");
  EXPECT_EQ(Describe(catalog, "Exec[with [brackets] inside]",
                     "/Stage[main]/Main/Exec[with [brackets] inside]"),
            "exact Exec[with [brackets] inside]");
  // A parser that took "[brackets] inside]" as the title still lands on the resource.
  EXPECT_EQ(Describe(catalog, "inside]", "/Stage[main]/Main/Exec[with [brackets] inside]"),
            "exact Exec[with [brackets] inside]");
  EXPECT_EQ(Describe(catalog, "x]]", "/Stage[main]/Main/File[/tmp/fsmove-cat/üñí [x]]"),
            "exact File[/tmp/fsmove-cat/üñí [x]]");
}

TEST_F(CatalogBlockResolverTest, PuppetsOwnResourcesAreUnknown) {
  const Catalog catalog = LoadTestCatalog("containment.json");
  EXPECT_EQ(Describe(catalog, "Schedule[daily]", "/Schedule[daily]"), "unknown");
  EXPECT_EQ(Describe(catalog, "Filebucket[puppet]", "/Filebucket[puppet]"), "unknown");
  EXPECT_EQ(Describe(catalog, "not a marker"), "unknown");
}

TEST_F(CatalogBlockResolverTest, ChildrenOfARecursiveFileMapToIt) {
  const Catalog catalog = MakeCatalog({
      Res("File", "/srv/www", {{"recurse", true}, {"ensure", "directory"}}),
      Res("File", "/srv/www/static", {{"ensure", "directory"}}),  // managed, not recursive
      Res("File", "/opt/plain", {{"ensure", "directory"}}),
      Res("File", "/opt/remote", {{"recurse", "remote"}}),
      Res("File", "/opt/off", {{"recurse", false}}),
  });
  EXPECT_EQ(
      Describe(catalog, "File[/srv/www/index.html]", "/Stage[main]/Main/File[/srv/www/index.html]"),
      "generated File[/srv/www]");
  EXPECT_EQ(Describe(catalog, "File[/srv/www/static/css/site.css]"), "generated File[/srv/www]");
  EXPECT_EQ(Describe(catalog, "File[/opt/remote/a/b]"), "generated File[/opt/remote]");
  EXPECT_EQ(Describe(catalog, "File[/opt/plain/x]"), "unknown");
  EXPECT_EQ(Describe(catalog, "File[/opt/off/x]"), "unknown");
  EXPECT_EQ(Describe(catalog, "File[/srv/wwwx/y]"), "unknown");
  // The sentinel ending a recursive file's children prints as the bare path.
  EXPECT_EQ(Describe(catalog, "/srv/www"), "generated File[/srv/www]");
}

TEST_F(CatalogBlockResolverTest, ChildrenSentinelOfAFileWhoseTitleIsNotAPath) {
  const Catalog catalog = MakeCatalog({
      Res("File", "rules", {{"path", "/etc/audit/rules.d"}, {"recurse", true}}),
  });
  EXPECT_EQ(Describe(catalog, "rules"), "generated File[rules]");
  EXPECT_EQ(Describe(catalog, "/etc/audit/rules.d"), "generated File[rules]");
  EXPECT_EQ(Describe(catalog, "other"), "unknown");
}

// smoeding-bind's concat of keys: after File[/etc/bind/named.conf.keys], Puppet evaluates the
// end of its Concat_file's container, printed as "named.conf.keys:".
TEST_F(CatalogBlockResolverTest, TheEndOfAConcatFileWhoseTitleIsNotAPath) {
  const Catalog catalog = MakeCatalog({
      Res("Concat_file", "named.conf.keys", {{"path", "/etc/bind/named.conf.keys"}}),
  });
  EXPECT_EQ(Describe(catalog, "named.conf.keys"), "generated Concat_file[named.conf.keys]");
}

TEST_F(CatalogBlockResolverTest, ConcatTidyAndPurgeGenerators) {
  const Catalog catalog = MakeCatalog({
      Res("Concat_file", "/etc/motd", {{"tag", "motd"}}),
      Res("Concat_file", "app-config", {{"path", "/etc/app/app.conf"}}),
      Res("Tidy", "/var/cache/app", {{"age", "1w"}, {"recurse", true}}),
      Res("Resources", "user", {{"purge", true}}),
      Res("Resources", "group", {{"purge", false}}),
  });
  EXPECT_EQ(
      Describe(catalog, "File[/etc/motd]", "/Stage[main]/Main/Concat[/etc/motd]/File[/etc/motd]"),
      "generated Concat_file[/etc/motd]");
  EXPECT_EQ(Describe(catalog, "File[/etc/app/app.conf]"), "generated Concat_file[app-config]");
  EXPECT_EQ(Describe(catalog, "File[/var/cache/app/old/x.tmp]"), "generated Tidy[/var/cache/app]");
  EXPECT_EQ(Describe(catalog, "File[/var/cache/app]"), "generated Tidy[/var/cache/app]");
  EXPECT_EQ(Describe(catalog, "User[olduser]", "/User[olduser]"), "generated Resources[user]");
  EXPECT_EQ(Describe(catalog, "Group[oldgroup]"), "unknown");
}

// cirrax-knot: Knot_zone[x]'s `generate` copies it into Knot_zone_private[x], which Puppet
// adds to Knot_zone's container; what Knot_zone's `eval_generate` returns ends with a Whit
// named by its title alone.
TEST_F(CatalogBlockResolverTest, AResourceGeneratedUnderItsGeneratorsTitle) {
  nlohmann::json domain = Res("Knot::Domain", "x.org");
  domain["kind"] = "defined_type";
  nlohmann::json other = Res("Knot::Domain", "y.org");
  other["kind"] = "defined_type";
  const Catalog catalog =
      MakeCatalog({domain, other, Res("Knot_zone", "x.org"), Res("Knot_record", "ns0 in x.org"),
                   Res("Knot_zone", "y.org"), Res("Package", "y.org"), Res("Exec", "lonely")},
                  {{"Knot::Domain[x.org]", "Knot_zone[x.org]"},
                   {"Knot::Domain[x.org]", "Knot_record[ns0 in x.org]"},
                   {"Knot::Domain[y.org]", "Knot_zone[y.org]"},
                   {"Knot::Domain[y.org]", "Package[y.org]"}});
  EXPECT_EQ(Describe(catalog, "Knot_zone_private[x.org]",
                     "/Stage[main]/Main/Knot::Domain[x.org]/Knot_zone_private[x.org]"),
            "generated Knot_zone[x.org]");
  // Two resources of the container have the title: which one generated it is not known.
  EXPECT_EQ(Describe(catalog, "Knot_zone_private[y.org]",
                     "/Stage[main]/Main/Knot::Domain[y.org]/Knot_zone_private[y.org]"),
            "unknown");
  // Another title, or no container in the source path: not a copy of a resource there.
  EXPECT_EQ(Describe(catalog, "Knot_zone_private[z.org]",
                     "/Stage[main]/Main/Knot::Domain[x.org]/Knot_zone_private[z.org]"),
            "unknown");
  EXPECT_EQ(Describe(catalog, "Knot_zone_private[x.org]"), "unknown");
  // In a class: the same rule (Class[main] holds Exec[lonely]).
  EXPECT_EQ(Describe(catalog, "Cron_private[lonely]", "/Stage[main]/Main/Cron_private[lonely]"),
            "generated Exec[lonely]");
  // The eval_generate sentinel: the one resource with the title (not the defined type).
  EXPECT_EQ(Describe(catalog, "x.org", "x.org"), "generated Knot_zone[x.org]");
  EXPECT_EQ(Describe(catalog, "y.org", "y.org"), "unknown");  // Knot_zone and Package
  EXPECT_EQ(Describe(catalog, "nothing here"), "unknown");
}

}  // namespace
}  // namespace fsmove::catalog
