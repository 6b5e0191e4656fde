// Tests for the DOT and JSON writers: exact output on a small catalog, escaping of odd
// titles, cycles and warnings.
#include "fsmove/graph/graph_writers.h"

#include "../catalog/catalog_test_support.h"
#include "gtest/gtest.h"

namespace fsmove::graph {
namespace {

using ::fsmove::testing::LoadTestCatalog;
using ::fsmove::testing::MakeCatalog;
using ::fsmove::testing::Res;

TEST(GraphWritersTest, DotQuoting) {
  EXPECT_EQ(DotQuoted("Exec[quotes ' and \"]"), R"("Exec[quotes ' and \"]")");
  EXPECT_EQ(DotQuoted("Exec[line\nbreak]"), R"("Exec[line\nbreak]")");
  EXPECT_EQ(DotQuoted("C:\\dir"), R"("C:\\dir")");
  EXPECT_EQ(DotQuoted("Grüße"), "\"Grüße\"");
  // Controls a terminal or a viewer would obey, as the text of their escape.
  EXPECT_EQ(DotQuoted("x\x1b[2J\xe2\x80\xae"
                      "evil\x07\xff"),
            R"("x\\e[2J\\u202eevil\\x07\\xff")");
}

TEST(GraphWritersTest, DotListsNodesEdgesAndCycles) {
  const catalog::Catalog catalog =
      MakeCatalog({Res("File", "/d"), Res("File", "/d/f", {{"notify", "Exec[x \"y\"]"}}),
                   Res("Exec", "x \"y\"", {{"before", "File[/d/f]"}})});
  const DependencyGraph graph = DependencyGraph::Build(catalog);
  EXPECT_EQ(ToDot(graph),
            "digraph fsmove {\n"
            "  \"Stage[main]\" [type=\"Stage\", shape=box];\n"
            "  \"Class[main]\" [type=\"Class\", shape=box];\n"
            "  \"File[/d]\" [type=\"File\"];\n"
            "  \"File[/d/f]\" [type=\"File\"];\n"
            "  \"Exec[x \\\"y\\\"]\" [type=\"Exec\"];\n"
            "  \"File[/d/f]\" -> \"Exec[x \\\"y\\\"]\" [kind=\"notify\", origin=\"parameter\", "
            "rule=\"notify\", "
            "style=dashed];\n"
            "  \"Exec[x \\\"y\\\"]\" -> \"File[/d/f]\" [kind=\"before\", origin=\"parameter\", "
            "rule=\"before\"];\n"
            "  \"File[/d]\" -> \"File[/d/f]\" [kind=\"before\", origin=\"autorequire\", "
            "rule=\"file:parent-directory\"];\n"
            "  \"Stage[main]\" -> \"Class[main]\" [kind=\"notify\", origin=\"stage\", "
            "rule=\"contains\", color=grey];\n"
            "  \"Class[main]\" -> \"File[/d]\" [kind=\"notify\", origin=\"containment\", "
            "rule=\"contains\", "
            "color=grey];\n"
            "  \"Class[main]\" -> \"File[/d/f]\" [kind=\"notify\", origin=\"containment\", "
            "rule=\"contains\", "
            "color=grey];\n"
            "  \"Class[main]\" -> \"Exec[x \\\"y\\\"]\" [kind=\"notify\", origin=\"containment\", "
            "rule=\"contains\", "
            "color=grey];\n"
            "  // cycle: \"File[/d/f]\" \"Exec[x \\\"y\\\"]\" \"File[/d/f]\"\n"
            "}\n");
}

TEST(GraphWritersTest, DotCarriesFileAndLine) {
  const catalog::Catalog catalog = LoadTestCatalog("cycle.json");
  const std::string dot = ToDot(DependencyGraph::Build(catalog));
  // The catalog was compiled in another checkout: compare the path's stable end only.
  const std::string attrs = "tests/data/catalogs/src/cycle.pp\", line=2];";
  const size_t node = dot.find("\"Exec[x]\" [type=\"Exec\", file=\"");
  ASSERT_NE(node, std::string::npos) << dot;
  const size_t line_end = dot.find('\n', node);
  EXPECT_TRUE(dot.substr(node, line_end - node).ends_with(attrs)) << dot;
}

TEST(GraphWritersTest, Json) {
  const catalog::Catalog catalog =
      MakeCatalog({Res("Exec", "a", {{"require", "Exec[missing]"}, {"notify", "Exec[b]"}}),
                   Res("Exec", "b", {{"before", "Exec[a]"}})});
  const nlohmann::json json = ToJson(DependencyGraph::Build(catalog));
  EXPECT_EQ(json["nodes"][2], (nlohmann::json{{"ref", "Exec[a]"},
                                              {"type", "Exec"},
                                              {"title", "a"},
                                              {"file", nullptr},
                                              {"line", nullptr}}));
  EXPECT_EQ(json["nodes"].size(), 4u);
  EXPECT_EQ(json["edges"][0], (nlohmann::json{{"source", "Exec[a]"},
                                              {"target", "Exec[b]"},
                                              {"kind", "notify"},
                                              {"origin", "parameter"},
                                              {"rule", "notify"}}));
  EXPECT_EQ(json["edges"][2], (nlohmann::json{{"source", "Stage[main]"},
                                              {"target", "Class[main]"},
                                              {"kind", "notify"},
                                              {"origin", "stage"},
                                              {"rule", "contains"}}));
  EXPECT_EQ(json["cycles"], (nlohmann::json{{"Exec[a]", "Exec[b]", "Exec[a]"}}));
  EXPECT_EQ(
      json["warnings"],
      (nlohmann::json{{{"pointer", "/resources/2/parameters/require"},
                       {"message", "Exec[a] require: Exec[missing] is not in the catalog"}}}));
}

TEST(GraphWritersTest, JsonKeepsUtf8AndNewlines) {
  const catalog::Catalog catalog = LoadTestCatalog("titles.json");
  const std::string text = ToJson(DependencyGraph::Build(catalog)).dump();
  EXPECT_NE(text.find(R"("ref":"Exec[line\nbreak]")"), std::string::npos);
  EXPECT_NE(text.find("\"ref\":\"Exec[Grüße ☃]\""), std::string::npos);
  EXPECT_NE(text.find(R"("ref":"Exec[quotes ' and \"]")"), std::string::npos);
}

}  // namespace
}  // namespace fsmove::graph
