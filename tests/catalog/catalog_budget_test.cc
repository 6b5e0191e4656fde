// The host's budget on a catalog: a text past max_bytes is not parsed, and a document that
// holds more than max_values JSON values at once (one resource, one edge, or what lies outside
// them) stops being read, however the values are shaped; each resource and edge is dropped
// once taken, so a catalog of many small resources stays within a small limit.
#include <fstream>
#include <string>

#include "fsmove/catalog/catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::catalog {
namespace {

using ::testing::HasSubstr;

// `n` Notify resources, each of a few values, contained in Class[main].
std::string ManyResources(int n) {
  std::string text = R"({"catalog_format": 2, "resources": [{"type": "Class", "title": "main"})";
  for (int i = 0; i < n; ++i) {
    text += R"(, {"type": "Notify", "title": "n)" + std::to_string(i) +
            R"(", "file": "/etc/puppet/site.pp", "line": 3, "parameters": {"message": "hi"}})";
  }
  text += R"(], "edges": [)";
  for (int i = 0; i < n; ++i) {
    text += std::string(i ? ", " : "") + R"({"source": "Class[main]", "target": "Notify[n)" +
            std::to_string(i) + R"(]"})";
  }
  return text + "]}";
}

// One integer array of `n` elements where `where` says: a resource's parameter, or a key of
// the document's own.
std::string IntegerArray(int n, bool in_resource) {
  std::string array = "[";
  for (int i = 0; i < n; ++i) array += std::string(i ? "," : "") + "1";
  array += "]";
  if (in_resource) {
    return R"({"resources": [{"type": "Notify", "title": "x", "parameters": {"data": )" + array +
           "}}], \"edges\": []}";
  }
  return R"({"resources": [], "edges": [], "data": )" + array + "}";
}

LoadOptions Budget(uint64_t bytes, uint64_t values) {
  LoadOptions o;
  o.max_bytes = bytes;
  o.max_values = values;
  return o;
}

TEST(CatalogBudgetTest, ManySmallResourcesStayWithinASmallValueLimit) {
  const std::string text = ManyResources(2000);
  absl::StatusOr<Catalog> cat = Catalog::LoadString(text, "cat.json", Budget(1 << 30, 100));
  ASSERT_TRUE(cat.ok()) << cat.status();
  EXPECT_EQ(cat->size(), 2001u);
}

TEST(CatalogBudgetTest, OneLargeParameterIsRefused) {
  absl::StatusOr<Catalog> cat =
      Catalog::LoadString(IntegerArray(5000, true), "cat.json", Budget(1 << 30, 1000));
  ASSERT_FALSE(cat.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(cat.status())) << cat.status();
  EXPECT_EQ(cat.status().message(),
            "cat.json holds more than 1000 JSON values at once (in one resource, one edge, "
            "or outside them) (--max-catalog-values): it was not read, so nothing was checked; "
            "raise it with --max-catalog-values N");
  // Raised, the same catalog loads.
  EXPECT_TRUE(
      Catalog::LoadString(IntegerArray(5000, true), "cat.json", Budget(1 << 30, 6000)).ok());
}

TEST(CatalogBudgetTest, ALargeArrayOutsideTheResourcesIsRefused) {
  // What a 40 MB catalog of one integer array was (a DOM of 1 GB), in small.
  absl::StatusOr<Catalog> cat =
      Catalog::LoadString(IntegerArray(5000, false), "cat.json", Budget(1 << 30, 1000));
  ASSERT_FALSE(cat.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(cat.status()));
  EXPECT_THAT(cat.status().message(), HasSubstr("(--max-catalog-values)"));
}

TEST(CatalogBudgetTest, ATextPastTheByteLimitIsNotParsed) {
  const std::string text = ManyResources(100);
  absl::StatusOr<Catalog> cat = Catalog::LoadString(text, "cat.json", Budget(1024, 1 << 20));
  ASSERT_FALSE(cat.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(cat.status()));
  EXPECT_EQ(cat.status().message(),
            "cat.json is larger than the limit of 1 KiB on a catalog (--max-catalog-bytes): it "
            "was not read, so nothing was checked; raise it with --max-catalog-bytes SIZE");
  EXPECT_TRUE(Catalog::LoadString(text, "cat.json", Budget(text.size(), 1 << 20)).ok());
}

TEST(CatalogBudgetTest, AFilePastTheByteLimitIsNotRead) {
  const std::string path = ::testing::TempDir() + "/budget-catalog.json";
  std::ofstream(path) << ManyResources(100);
  absl::StatusOr<Catalog> cat = Catalog::LoadFile(path, Budget(2048, 1 << 20));
  ASSERT_FALSE(cat.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(cat.status()));
  EXPECT_THAT(cat.status().message(),
              HasSubstr(path + " is larger than the limit of 2 KiB on a catalog"));
}

TEST(CatalogBudgetTest, ManifestPathsAreRewrittenAsResourcesAreRead) {
  LoadOptions o;
  o.file_prefixes = {{"/etc/puppet/", "/home/me/module/"}};
  absl::StatusOr<Catalog> cat = Catalog::LoadString(ManyResources(2), "cat.json", o);
  ASSERT_TRUE(cat.ok()) << cat.status();
  EXPECT_EQ(cat->resource(*cat->ResolveRef("Notify[n1]")).file, "/home/me/module/site.pp");
}

}  // namespace
}  // namespace fsmove::catalog
