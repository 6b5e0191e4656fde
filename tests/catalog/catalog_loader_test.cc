// Tests for loading catalog JSON: real compiled catalogs, log lines before the document,
// exported resources, unresolvable references, and exact messages for bad input.
#include <fstream>
#include <sstream>

#include "catalog_test_support.h"
#include "fsmove/catalog/catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::catalog {
namespace {

using ::fsmove::testing::CatalogDataPath;
using ::fsmove::testing::LoadTestCatalog;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string LoadError(std::string_view text) {
  absl::StatusOr<Catalog> catalog = Catalog::LoadString(text, "cat.json");
  EXPECT_FALSE(catalog.ok());
  return catalog.ok() ? std::string() : std::string(catalog.status().message());
}

TEST(CatalogLoaderTest, LoadsACompiledCatalog) {
  const Catalog catalog = LoadTestCatalog("chains.json");
  EXPECT_EQ(catalog.node_name(), "vm");
  ASSERT_EQ(catalog.size(), 14u);
  const Resource& file = catalog.resource(*catalog.ResolveRef("File[/tmp/fsmove-cat/b]"));
  EXPECT_EQ(file.type, "File");
  EXPECT_EQ(file.title, "/tmp/fsmove-cat/b");
  EXPECT_EQ(file.ref, "File[/tmp/fsmove-cat/b]");
  // Compiled in another checkout: the path's stable end is what this test can know.
  EXPECT_TRUE(file.file.ends_with("/tests/data/catalogs/src/chains.pp")) << file.file;
  EXPECT_TRUE(file.file.starts_with("/")) << file.file;
  EXPECT_EQ(file.line, 15);
  EXPECT_EQ(file.kind, "compilable_type");
  EXPECT_FALSE(file.is_container);
  EXPECT_THAT(file.tags, ElementsAre("file", "class"));
  EXPECT_EQ(file.parameters["ensure"], "file");
  EXPECT_THAT(catalog.warnings(), IsEmpty());
}

TEST(CatalogLoaderTest, ClassesWithoutLineAndContainersAreMarked) {
  const Catalog catalog = LoadTestCatalog("containment.json");
  const Resource& main = catalog.resource(*catalog.ResolveRef("Class[main]"));
  EXPECT_EQ(main.line, std::nullopt);
  EXPECT_TRUE(main.file.empty());
  EXPECT_TRUE(main.is_container);
  EXPECT_TRUE(catalog.resource(*catalog.ResolveRef("Stage[main]")).is_container);
  const Resource& outer = catalog.resource(*catalog.ResolveRef("Containment::Outer[one]"));
  EXPECT_EQ(outer.kind, "defined_type");
  EXPECT_TRUE(outer.is_container);
  EXPECT_EQ(catalog.resource(*catalog.ResolveRef("Class[Containment::Resource_like]")).kind,
            "class");
}

TEST(CatalogLoaderTest, SkipsLogLinesBeforeTheDocument) {
  const std::string text =
      "\x1b[mNotice: Compiled catalog for vm in environment production in 0.26 seconds\x1b[0m\n" +
      ReadFile(CatalogDataPath("chains.json"));
  absl::StatusOr<Catalog> catalog = Catalog::LoadString(text, "piped");
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_EQ(catalog->size(), 14u);
  EXPECT_EQ(catalog->source_name(), "piped");
}

TEST(CatalogLoaderTest, RelationshipsFromStringsAndArraysAreOriented) {
  const Catalog catalog = LoadTestCatalog("chains.json");
  const ResourceId a = *catalog.ResolveRef("File[/tmp/fsmove-cat/a]");
  const ResourceId b = *catalog.ResolveRef("File[/tmp/fsmove-cat/b]");
  const ResourceId target = *catalog.ResolveRef("Exec[target]");
  bool saw_require = false;
  bool saw_notify = false;
  for (const Relationship& relationship : catalog.relationships()) {
    if (relationship.parameter == "require" && relationship.target == b) {
      // require => File[a] (a single string) orders a before b.
      EXPECT_EQ(relationship.source, a);
      EXPECT_EQ(relationship.kind, RelationshipKind::kBefore);
      saw_require = true;
    }
    if (relationship.parameter == "notify" && relationship.source == b) {
      // File[b] ~> Exec[target] landed in b's notify array.
      EXPECT_EQ(relationship.target, target);
      EXPECT_EQ(relationship.kind, RelationshipKind::kNotify);
      saw_notify = true;
    }
  }
  EXPECT_TRUE(saw_require);
  EXPECT_TRUE(saw_notify);
  EXPECT_EQ(catalog.relationships().size(), 10u);
}

TEST(CatalogLoaderTest, DropsExportedResources) {
  const Catalog catalog = LoadTestCatalog("handwritten/exported.json");
  EXPECT_EQ(catalog.exported_dropped(), 2u);
  EXPECT_EQ(catalog.ResolveRef("File[/tmp/exported]"), std::nullopt);
  EXPECT_EQ(catalog.ResolveRef("Sshkey[host.example.com]"), std::nullopt);
  EXPECT_TRUE(catalog.ResolveRef("File[/tmp/local]").has_value());
  // Containment edges to exported resources are expected and silent; a reference to one
  // is worth a warning, since Puppet will fail to find it.
  EXPECT_THAT(catalog.warnings(),
              ElementsAre(AllOf(
                  Field(&CatalogWarning::json_pointer, "/resources/5/parameters/require"),
                  Field(&CatalogWarning::message,
                        "File[/tmp/local] require: File[/tmp/exported] is exported (@@) and never "
                        "applied here"))));
  EXPECT_THAT(catalog.relationships(), IsEmpty());
}

TEST(CatalogLoaderTest, MissingReferencesBecomeWarnings) {
  const Catalog catalog = LoadTestCatalog("handwritten/missing_ref.json");
  EXPECT_THAT(
      catalog.warnings(),
      ElementsAre(
          AllOf(Field(&CatalogWarning::json_pointer, "/edges/13/target"),
                Field(&CatalogWarning::message,
                      "containment edge: Exec[missing-exec] is not in the catalog")),
          AllOf(
              Field(&CatalogWarning::json_pointer, "/resources/9/parameters/notify"),
              Field(&CatalogWarning::message,
                    "Exec[single-before] notify: \"not a reference\" is not a resource reference")),
          AllOf(Field(&CatalogWarning::json_pointer, "/resources/10/parameters/require/1"),
                Field(&CatalogWarning::message,
                      "Exec[target] require: Package[missing-package] is not in the catalog"))));
  // The resolvable part of the same parameter is kept.
  const ResourceId target = *catalog.ResolveRef("Exec[target]");
  const ResourceId a = *catalog.ResolveRef("File[/tmp/fsmove-cat/a]");
  int found = 0;
  for (const Relationship& relationship : catalog.relationships()) {
    if (relationship.parameter == "require" && relationship.target == target &&
        relationship.source == a)
      ++found;
  }
  EXPECT_EQ(found, 1);
}

TEST(CatalogLoaderTest, MissingFileIsAnError) {
  absl::StatusOr<Catalog> catalog = Catalog::LoadFile("/nonexistent/cat.json");
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(catalog.status().message(),
            "cannot read catalog /nonexistent/cat.json: No such file or directory");
}

TEST(CatalogLoaderTest, NotJson) {
  EXPECT_EQ(LoadError(""), "cat.json: no JSON document found (expected a compiled Puppet catalog)");
  EXPECT_EQ(LoadError("Error: Could not find node\n"),
            "cat.json: no JSON document found (expected a compiled Puppet catalog)");
  EXPECT_EQ(LoadError("{\"resources\": [}"),
            "cat.json:1:16: not valid JSON: syntax error while parsing value - unexpected '}'; "
            "expected '[', '{', "
            "or a literal");
  // Positions count from the start of the file, log lines included.
  EXPECT_EQ(LoadError("Notice: compiled\n{\n  \"resources\": [1,\n"),
            "cat.json:4:1: not valid JSON: syntax error while parsing value - unexpected end of "
            "input; expected '[', "
            "'{', or a literal");
  // The text it stopped at is never quoted (a catalog holds secrets: file contents).
  EXPECT_EQ(LoadError("{\"resources\": [{\"title\": \"SECRET-hunter2\u0001\"}]}"),
            "cat.json:1:41: not valid JSON: syntax error while parsing value - invalid string: "
            "control character U+0001 (SOH) must be escaped to \\u0001");
}

TEST(CatalogLoaderTest, NotACatalog) {
  EXPECT_EQ(LoadError("[1, 2]"), "cat.json: /: expected a catalog object, got an array");
  EXPECT_EQ(LoadError("{}"),
            "cat.json: /resources: missing (a compiled catalog lists its resources there)");
  EXPECT_EQ(LoadError(R"({"resources": {}})"),
            "cat.json: /resources: expected an array, got an object");
  EXPECT_EQ(LoadError(R"({"resources": [], "edges": {}})"),
            "cat.json: /edges: expected an array, got an object");
  EXPECT_EQ(LoadError(R"({"resources": [], "name": 3})"),
            "cat.json: /name: expected a string, got a number");
}

TEST(CatalogLoaderTest, MissingResourceFields) {
  EXPECT_EQ(LoadError(R"({"resources": ["File[/x]"]})"),
            "cat.json: /resources/0: expected a resource object, got a string");
  EXPECT_EQ(LoadError(R"({"resources": [{"title": "/x"}]})"),
            "cat.json: /resources/0/type: missing");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/a"}, {"type": "File"}]})"),
            "cat.json: /resources/1/title: missing");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "", "title": "/x"}]})"),
            "cat.json: /resources/0/type: must not be empty");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "Fi le", "title": "/x"}]})"),
            "cat.json: /resources/0/type: not a resource type name: \"Fi le\"");
  EXPECT_EQ(
      LoadError(
          R"({"resources": [{"type": "File", "title": "/x"}, {"type": "file", "title": "/x"}]})"),
      "cat.json: /resources/1: duplicate resource File[/x] (first at /resources/0)");
  EXPECT_EQ(LoadError(R"({"resources": [], "edges": [{"source": "Class[main]"}]})"),
            "cat.json: /edges/0/target: missing");
}

// Found by catalog_fuzzer: nlohmann throws out_of_range (not parse_error) for a number a
// double cannot hold, and the loader let it escape: fsmove aborted on such a catalog.
TEST(CatalogLoaderTest, NumberTooLargeForADoubleIsASyntaxErrorWithItsPosition) {
  EXPECT_EQ(LoadError("{\"resources\": [],\n \"version\": 1e400}"),
            "cat.json:2:13: not valid JSON: number overflow");
  // The same digits inside a string earlier do not mislead the position.
  EXPECT_EQ(LoadError("{\"name\": \"1e400\", \"x\": [-1e400]}"),
            "cat.json:1:25: not valid JSON: number overflow");
}

TEST(CatalogLoaderTest, CatalogFormatsItCannotReadAreRefused) {
  EXPECT_EQ(
      LoadError(R"({"catalog_format": 3, "resources": []})"),
      "cat.json: /catalog_format: unsupported catalog format 3 (fsmove reads formats 1 and 2)");
  EXPECT_EQ(LoadError(R"({"catalog_format": "2", "resources": []})"),
            "cat.json: /catalog_format: expected an integer, got a string");
  for (std::string_view ok :
       {R"({"catalog_format": 1, "resources": []})", R"({"catalog_format": 2, "resources": []})",
        R"({"resources": []})"}) {
    EXPECT_TRUE(Catalog::LoadString(ok, "cat.json").ok()) << ok;
  }
}

TEST(CatalogLoaderTest, LineNumbersThatDoNotFitAreRefusedNotWrapped) {
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "line": 99999999999}]})"),
            "cat.json: /resources/0/line: line number out of range: 99999999999");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "line": -4}]})"),
            "cat.json: /resources/0/line: line number out of range: -4");
  auto max = Catalog::LoadString(
      R"({"resources": [{"type": "File", "title": "/x", "line": 2147483647}]})", "cat.json");
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->resource(0).line, 2147483647);
}

TEST(CatalogLoaderTest, WrongFieldTypes) {
  EXPECT_EQ(LoadError(R"({"resources": [{"type": 1, "title": "/x"}]})"),
            "cat.json: /resources/0/type: expected a string, got a number");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": ["/x"]}]})"),
            "cat.json: /resources/0/title: expected a string, got an array");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "line": "3"}]})"),
            "cat.json: /resources/0/line: expected an integer, got a string");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "file": 7}]})"),
            "cat.json: /resources/0/file: expected a string, got a number");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "tags": ["a", 1]}]})"),
            "cat.json: /resources/0/tags/1: expected a string, got a number");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "exported": "no"}]})"),
            "cat.json: /resources/0/exported: expected a boolean, got a string");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "parameters": []}]})"),
            "cat.json: /resources/0/parameters: expected an object, got an array");
  EXPECT_EQ(LoadError(R"({"resources": [{"type": "File", "title": "/x", "kind": false}]})"),
            "cat.json: /resources/0/kind: expected a string, got a boolean");
  EXPECT_EQ(
      LoadError(
          R"({"resources": [{"type": "File", "title": "/x", "parameters": {"require": [1]}}]})"),
      "cat.json: /resources/0/parameters/require/0: expected a resource reference string or an "
      "array of "
      "them, got a number");
  EXPECT_EQ(LoadError(R"({"resources": [], "edges": [{"source": "Class[main]", "target": null}]})"),
            "cat.json: /edges/0/target: expected a string, got null");
}

TEST(CatalogLoaderTest, PointerTokensAreEscaped) {
  EXPECT_EQ(
      LoadError(
          R"({"resources": [{"type": "File", "title": "/x", "parameters": {"a/b~c": 1, "before": {}}}]})"),
      "cat.json: /resources/0/parameters/before: expected a resource reference string or an array "
      "of them, got an object");
}

TEST(CatalogLoaderTest, HostileNestingIsAnErrorNotACrash) {
  const auto nested = [](int depth) {
    return std::string(depth, '[') + "\"File[/x]\"" + std::string(depth, ']');
  };
  EXPECT_EQ(
      LoadError(R"({"resources": [{"type": "Exec", "title": "a", "parameters": {"require": )" +
                nested(20) + "}}]}"),
      "cat.json: /resources/0/parameters/require/0/0/0/0/0/0/0/0: arrays of references nested too "
      "deeply");
  EXPECT_EQ(LoadError("{\"resources\": " + nested(100000) + "}"),
            "cat.json:1:526: JSON nested deeper than 512 levels");
}

TEST(CatalogLoaderTest, DirectoryIsNotACatalog) {
  absl::StatusOr<Catalog> catalog = Catalog::LoadFile(FSMOVE_SOURCE_DIR);
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().message(),
            "cannot read catalog " + std::string(FSMOVE_SOURCE_DIR) + ": Is a directory");
}

TEST(CatalogLoaderTest, NullOptionalFieldsAreAbsent) {
  absl::StatusOr<Catalog> catalog = Catalog::LoadString(
      R"({"resources": [{"type": "File", "title": "/x", "file": null, "line": null, "tags": null,
                         "parameters": null, "exported": null}], "edges": []})",
      "cat.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_EQ(catalog->resource(0).line, std::nullopt);
  EXPECT_EQ(catalog->resource(0).FindParameter("ensure"), nullptr);
}

TEST(CatalogLoaderTest, MissingEdgesIsAWarningNotAnError) {
  absl::StatusOr<Catalog> catalog = Catalog::LoadString(R"({"resources": []})", "cat.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_THAT(
      catalog->warnings(),
      ElementsAre(Field(&CatalogWarning::message,
                        "missing: no containment known, relationships on classes reach nothing")));
}

TEST(CatalogLoaderTest, ContainmentFromANativeResourceIsIgnored) {
  absl::StatusOr<Catalog> catalog = Catalog::LoadString(
      R"({"resources": [{"type": "File", "title": "/a", "kind": "compilable_type"},
                        {"type": "File", "title": "/b", "kind": "compilable_type"}],
          "edges": [{"source": "File[/a]", "target": "File[/b]"}]})",
      "cat.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_THAT(catalog->containment(), IsEmpty());
  EXPECT_THAT(catalog->warnings(),
              ElementsAre(Field(
                  &CatalogWarning::message,
                  "containment edge from File[/a], which is not a class, stage or defined type: "
                  "ignored")));
}

TEST(CatalogLoaderTest, WithoutKindAnythingThatContainsIsAContainer) {
  absl::StatusOr<Catalog> catalog = Catalog::LoadString(
      R"({"resources": [{"type": "App::Inst", "title": "one"}, {"type": "File", "title": "/b"}],
          "edges": [{"source": "App::Inst[one]", "target": "File[/b]"}]})",
      "cat.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_TRUE(catalog->resource(0).is_container);
  EXPECT_FALSE(catalog->resource(1).is_container);
  EXPECT_EQ(catalog->containment().size(), 1u);
}

}  // namespace
}  // namespace fsmove::catalog
