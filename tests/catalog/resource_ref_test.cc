// Tests for parsing "Type[title]" references and canonical type names.
#include "fsmove/catalog/resource_ref.h"

#include "gtest/gtest.h"

namespace fsmove::catalog {
namespace {

TEST(CatalogResourceRefTest, SplitsAtFirstOpenAndLastCloseBracket) {
  EXPECT_EQ(ParseResourceRef("File[/tmp/x]"), (ResourceRef{"File", "/tmp/x"}));
  EXPECT_EQ(ParseResourceRef("Exec[with [brackets] inside]"),
            (ResourceRef{"Exec", "with [brackets] inside"}));
  EXPECT_EQ(ParseResourceRef("Exec[ends with ]]"), (ResourceRef{"Exec", "ends with ]"}));
  EXPECT_EQ(ParseResourceRef("Exec[quotes ' and \"]"), (ResourceRef{"Exec", "quotes ' and \""}));
  EXPECT_EQ(ParseResourceRef("Exec[line\nbreak]"), (ResourceRef{"Exec", "line\nbreak"}));
  EXPECT_EQ(ParseResourceRef("Exec[Grüße ☃]"), (ResourceRef{"Exec", "Grüße ☃"}));
}

TEST(CatalogResourceRefTest, CanonicalisesTheTypeName) {
  EXPECT_EQ(ParseResourceRef("app::inst[one]"), (ResourceRef{"App::Inst", "one"}));
  EXPECT_EQ(ParseResourceRef("ssh_authorized_key[k]"), (ResourceRef{"Ssh_authorized_key", "k"}));
  EXPECT_EQ(CanonicalTypeName("FILE"), "File");
  EXPECT_EQ(CanonicalTypeName("App::Config"), "App::Config");
}

TEST(CatalogResourceRefTest, RejectsTextThatIsNotAReference) {
  EXPECT_EQ(ParseResourceRef(""), std::nullopt);
  EXPECT_EQ(ParseResourceRef("File"), std::nullopt);
  EXPECT_EQ(ParseResourceRef("File[]"), std::nullopt);
  EXPECT_EQ(ParseResourceRef("[x]"), std::nullopt);
  EXPECT_EQ(ParseResourceRef("File[x] trailing"), std::nullopt);
  EXPECT_EQ(ParseResourceRef("Main/File[/x]"), std::nullopt);  // a path prefix is not a type
  EXPECT_EQ(ParseResourceRef("1File[x]"), std::nullopt);
  EXPECT_EQ(ParseResourceRef("App:Inst[x]"), std::nullopt);
  EXPECT_EQ(ParseResourceRef("App::[x]"), std::nullopt);
}

TEST(CatalogResourceRefTest, ValidTypeNames) {
  EXPECT_TRUE(IsValidTypeName("File"));
  EXPECT_TRUE(IsValidTypeName("App::Inst2"));
  EXPECT_TRUE(IsValidTypeName("Mysql_grant"));
  EXPECT_FALSE(IsValidTypeName("::App"));
  EXPECT_FALSE(IsValidTypeName("App::"));
  EXPECT_FALSE(IsValidTypeName("A b"));
}

TEST(CatalogResourceRefTest, FormatsWithCanonicalType) {
  EXPECT_EQ(FormatResourceRef("file", "/x"), "File[/x]");
  EXPECT_EQ((ResourceRef{"Exec", "a]b"}).ToString(), "Exec[a]b]");
  EXPECT_EQ(AsciiLowercase("Class Ü"), "class Ü");
}

}  // namespace
}  // namespace fsmove::catalog
