// Tests for reference lookup with Puppet's rules: titles, class case, explicit aliases,
// namevar aliases, File title patterns, odd titles.
#include "fsmove/catalog/catalog.h"

#include "catalog_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::catalog {
namespace {

using ::fsmove::testing::LoadTestCatalog;
using ::fsmove::testing::MakeCatalog;
using ::fsmove::testing::Res;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

std::string RefOf(const Catalog& catalog, std::string_view ref) {
  const std::optional<ResourceId> id = catalog.ResolveRef(ref);
  return id ? catalog.resource(*id).ref : "<none>";
}

// An Exec's command is its namevar: a catalog leaves it out when the title is the command.
TEST(ResourceTest, AnExecsCommandIsItsTitleWithoutTheParameter) {
  const Catalog catalog = MakeCatalog({Res("Exec", "systemctl daemon-reload"),
                                       Res("Exec", "reload", {{"command", "/bin/kill -HUP 1"}}),
                                       Res("Service", "app")});
  auto at = [&](std::string_view ref) -> const Resource& {
    return catalog.resource(catalog.ResolveRef(ref).value());
  };
  EXPECT_EQ(at("Exec[systemctl daemon-reload]").CommandLine(), "systemctl daemon-reload");
  EXPECT_EQ(at("Exec[reload]").CommandLine(), "/bin/kill -HUP 1");
  EXPECT_EQ(at("Exec[systemctl daemon-reload]").CommandLine("unless"), std::nullopt);
  EXPECT_EQ(at("Service[app]").CommandLine(), std::nullopt);
}

TEST(CatalogLookupTest, ClassTitlesAreCaseInsensitive) {
  const Catalog catalog = LoadTestCatalog("containment.json");
  EXPECT_EQ(RefOf(catalog, "Class[main]"), "Class[main]");
  EXPECT_EQ(RefOf(catalog, "Class[Main]"), "Class[main]");  // how logs print it
  EXPECT_EQ(RefOf(catalog, "Class[containment::parent]"), "Class[Containment::Parent]");
  EXPECT_EQ(RefOf(catalog, "class[CONTAINMENT::PARENT]"), "Class[Containment::Parent]");
  EXPECT_EQ(catalog.LookupRef("Class[Main]")->how, RefMatchKind::kExact);
  // Other titles keep their case.
  EXPECT_EQ(RefOf(catalog, "Containment::Outer[ONE]"), "<none>");
  EXPECT_EQ(RefOf(catalog, "containment::outer[one]"), "Containment::Outer[one]");
}

TEST(CatalogLookupTest, ExplicitAliases) {
  const Catalog catalog = LoadTestCatalog("aliases.json");
  EXPECT_EQ(RefOf(catalog, "File[first-alias]"), "File[/tmp/fsmove-cat/named]");
  EXPECT_EQ(RefOf(catalog, "File[second-alias]"), "File[/tmp/fsmove-cat/named]");
  EXPECT_EQ(catalog.LookupRef("File[first-alias]")->how, RefMatchKind::kAlias);
  EXPECT_EQ(RefOf(catalog, "Exec[first-alias]"), "<none>");  // aliases are per type
}

TEST(CatalogLookupTest, NamevarAliases) {
  const Catalog catalog = LoadTestCatalog("aliases.json");
  EXPECT_EQ(RefOf(catalog, "File[/tmp/fsmove-cat/dir/config]"), "File[by-path]");
  // The namevar is canonicalised the way the File type munges `path`.
  EXPECT_EQ(RefOf(catalog, "File[/tmp/fsmove-cat/dir/messy]"), "File[messy-path]");
  EXPECT_EQ(RefOf(catalog, "User[fsmove-alias-user]"), "User[by-name-user]");
  // Package's key is (name, provider): Puppet does not find it by name alone.
  EXPECT_EQ(RefOf(catalog, "Package[fsmove-test-pkg]"), "<none>");
  EXPECT_EQ(RefOf(catalog, "Package[by-name-package]"), "Package[by-name-package]");
}

TEST(CatalogLookupTest, FileTitlePatternStripsTrailingSlashes) {
  const Catalog catalog = LoadTestCatalog("aliases.json");
  EXPECT_EQ(RefOf(catalog, "File[/tmp/fsmove-cat/dir/]"), "File[/tmp/fsmove-cat/dir/]");
  EXPECT_EQ(catalog.LookupRef("File[/tmp/fsmove-cat/dir/]")->how, RefMatchKind::kExact);
  EXPECT_EQ(RefOf(catalog, "File[/tmp/fsmove-cat/dir]"), "File[/tmp/fsmove-cat/dir/]");
  EXPECT_EQ(RefOf(catalog, "File[/tmp/fsmove-cat/dir///]"), "File[/tmp/fsmove-cat/dir/]");
  // Not a general canonicalisation: Puppet itself would not find these.
  EXPECT_EQ(RefOf(catalog, "File[/tmp//fsmove-cat/dir]"), "<none>");
  EXPECT_EQ(RefOf(catalog, "Exec[uses-slash-title/]"), "<none>");
}

TEST(CatalogLookupTest, OddTitlesRoundTrip) {
  const Catalog catalog = LoadTestCatalog("titles.json");
  for (const char* ref :
       {"Exec[with [brackets] inside]", "Exec[ends with ]]", "Exec[quotes ' and \"]",
        "Exec[line\nbreak]", "Exec[Grüße ☃]", "File[/tmp/fsmove-cat/üñí [x]]"}) {
    EXPECT_EQ(RefOf(catalog, ref), ref);
  }
  const Resource& needs_all = catalog.resource(*catalog.ResolveRef("Exec[needs-all]"));
  int incoming = 0;
  for (const Relationship& relationship : catalog.relationships()) {
    if (relationship.target == *catalog.ResolveRef("Exec[needs-all]")) ++incoming;
  }
  EXPECT_EQ(incoming, 6) << needs_all.parameters.dump();
  EXPECT_THAT(catalog.warnings(), IsEmpty());
}

TEST(CatalogLookupTest, AliasClashesAreWarnings) {
  const Catalog catalog = MakeCatalog({
      Res("File", "/a", {{"alias", "shared"}}),
      Res("File", "/b", {{"alias", "shared"}}),
      Res("File", "/c", {{"alias", "/a"}}),
  });
  EXPECT_EQ(RefOf(catalog, "File[shared]"), "File[/a]");
  EXPECT_THAT(
      catalog.warnings(),
      ElementsAre(Field(&CatalogWarning::message,
                        "cannot alias File[/b] to \"shared\": File[/a] already uses that alias"),
                  Field(&CatalogWarning::message,
                        "cannot alias File[/c] to \"/a\": File[/a] already has that title")));
}

TEST(CatalogLookupTest, ExecAndTidyHaveNoNamevarAlias) {
  const Catalog catalog = MakeCatalog({
      Res("Exec", "run it", {{"command", "/bin/true"}}),
      Res("Tidy", "clean", {{"path", "/var/tmp"}}),
      Res("Service", "web", {{"name", "apache2"}}),
  });
  EXPECT_EQ(RefOf(catalog, "Exec[/bin/true]"), "<none>");
  EXPECT_EQ(RefOf(catalog, "Tidy[/var/tmp]"), "<none>");
  EXPECT_EQ(RefOf(catalog, "Service[apache2]"), "Service[web]");
}

TEST(CatalogLookupTest, ResourcesOfType) {
  const Catalog catalog = LoadTestCatalog("chains.json");
  EXPECT_EQ(catalog.ResourcesOfType("file").size(), 4u);
  EXPECT_EQ(catalog.ResourcesOfType("Exec").size(), 5u);
  EXPECT_THAT(catalog.ResourcesOfType("Mount"), IsEmpty());
}

}  // namespace
}  // namespace fsmove::catalog
