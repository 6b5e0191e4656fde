// Tests for the neighbourhood of a resource or a pair: what is drawn (the connection between a
// pair first, then the closest), the bound, the edges kept, and the DOT and Mermaid drawings,
// with titles that try to break out of their labels.
#include "fsmove/graph/neighbourhood.h"

#include <sstream>
#include <string>
#include <vector>

#include "../catalog/catalog_test_support.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mermaid_check.h"

namespace fsmove::graph {
namespace {

using ::fsmove::testing::Id;
using ::fsmove::testing::MakeCatalog;
using ::fsmove::testing::MermaidProblem;
using ::fsmove::testing::Res;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

std::vector<std::string> Refs(const Neighbourhood& n, const catalog::Catalog& cat) {
  std::vector<std::string> refs;
  for (catalog::ResourceId id : n.nodes) refs.push_back(cat.resource(id).ref);
  return refs;
}

std::string Mermaid(const Neighbourhood& n, const catalog::Catalog& cat) {
  std::ostringstream out;
  WriteNeighbourhoodMermaid(n, cat, out);
  return out.str();
}

TEST(NeighbourhoodTest, PairWithTheResourceThatOrdersBoth) {
  const catalog::Catalog cat = MakeCatalog({
      Res("Package", "app"),
      Res("File", "/etc/app.conf", {{"require", "Package[app]"}}),
      Res("Exec", "use", {{"require", "Package[app]"}}),
      Res("Service", "unrelated"),
      Res("File", "/far", {{"before", "Service[unrelated]"}}),
  });
  const DependencyGraph g = DependencyGraph::Build(cat);
  NeighbourhoodFinder finder(g);
  const catalog::ResourceId focus[] = {Id(cat, "File[/etc/app.conf]"), Id(cat, "Exec[use]")};
  Neighbourhood n = finder.Around(focus);
  ASSERT_EQ(n.focus_count, 2u);
  std::vector<std::string> refs = Refs(n, cat);
  ASSERT_GE(refs.size(), 3u);
  EXPECT_EQ(refs[0], "File[/etc/app.conf]");
  EXPECT_EQ(refs[1], "Exec[use]");
  EXPECT_EQ(refs[2], "Package[app]");  // on the connection: first
  // The class holding them (2 steps up) is drawn; its other members (3 more down) and the
  // stage are not.
  EXPECT_THAT(refs, UnorderedElementsAre("File[/etc/app.conf]", "Exec[use]", "Package[app]",
                                         "Class[main]"));
  EXPECT_EQ(n.left_out, 0u);
  // Package -> both (before), Class[main] contains all three.
  ASSERT_EQ(n.edges.size(), 5u);
  size_t contains = 0;
  for (const NeighbourhoodEdge& e : n.edges) {
    contains += NeighbourhoodEdgeLabel(e) == "contains";
  }
  EXPECT_EQ(contains, 3u);
}

// The Mermaid drawing styles links by index: containment grey, the missing one thick red.
TEST(NeighbourhoodTest, MermaidDrawsTheMissingEdgeBoldAndContainmentLight) {
  const catalog::Catalog cat = MakeCatalog({
      Res("Package", "app"),
      Res("File", "/etc/app.conf", {{"require", "Package[app]"}}),
      Res("Exec", "use", {{"require", "Package[app]"}}),
  });
  const DependencyGraph g = DependencyGraph::Build(cat);
  NeighbourhoodFinder finder(g);
  const catalog::ResourceId focus[] = {Id(cat, "File[/etc/app.conf]"), Id(cat, "Exec[use]")};
  Neighbourhood n = finder.Around(focus);
  n.missing = MissingEdge{focus[0], focus[1], "notify"};
  const std::string mermaid = Mermaid(n, cat);
  ASSERT_EQ(MermaidProblem(mermaid), "") << mermaid;
  std::istringstream in(mermaid);
  std::vector<std::string> containment;
  std::string missing, grey, red;
  size_t links = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("-->") != std::string::npos || line.find("==>") != std::string::npos) {
      if (line.find("|contains|") != std::string::npos) {
        containment.push_back(std::to_string(links));
      }
      if (line.find("==>|missing notify| ") != std::string::npos) missing = std::to_string(links);
      ++links;
    } else if (line.starts_with("  linkStyle ") && line.find("#cc2222") != std::string::npos) {
      red = line;
    } else if (line.starts_with("  linkStyle ")) {
      grey = line;
    }
  }
  ASSERT_EQ(containment.size(), 3u);
  EXPECT_EQ(grey,
            "  linkStyle " + absl::StrJoin(containment, ",") + " stroke:#b0b0b0,color:#808080");
  ASSERT_EQ(missing, std::to_string(links - 1)) << mermaid;  // drawn last
  EXPECT_EQ(red, "  linkStyle " + missing + " stroke:#cc2222,stroke-width:4px,color:#cc2222");
  EXPECT_THAT(std::string(MermaidLegend()), HasSubstr("Thick red: the relationship to add"));
}

TEST(NeighbourhoodTest, BoundedAndCountsWhatItLeftOut) {
  std::vector<nlohmann::json> resources = {Res("Service", "hub")};
  for (int i = 0; i < 20; ++i) {
    resources.push_back(Res("File", "/etc/f" + std::to_string(i), {{"notify", "Service[hub]"}}));
  }
  const catalog::Catalog cat = MakeCatalog(std::move(resources));
  const DependencyGraph g = DependencyGraph::Build(cat);
  NeighbourhoodFinder finder(g);
  const catalog::ResourceId focus[] = {Id(cat, "Service[hub]")};
  Neighbourhood n = finder.Around(focus);
  EXPECT_EQ(n.nodes.size(), 8u);
  // 20 files at one step and Class[main] at two: 7 drawn, 14 left out; the closest first.
  EXPECT_EQ(n.left_out, 14u);
  EXPECT_THAT(Refs(n, cat), Not(::testing::Contains("Class[main]")));
  for (const NeighbourhoodEdge& e : n.edges) EXPECT_EQ(NeighbourhoodEdgeLabel(e), "notify");

  NeighbourhoodOptions tiny;
  tiny.max_nodes = 1;
  EXPECT_EQ(finder.Around(focus, tiny).nodes.size(), 1u);
  // Duplicates in the focus count once.
  const catalog::ResourceId twice[] = {focus[0], focus[0]};
  EXPECT_EQ(finder.Around(twice).focus_count, 1u);
}

TEST(NeighbourhoodTest, ContainerRelationshipsReachMembers) {
  // Class[a] -> Class[b]: a member of b is ordered after a's members through its class.
  nlohmann::json class_a = Res("Class", "A");
  class_a["kind"] = "class";
  nlohmann::json class_b = Res("Class", "B", {{"require", "Class[A]"}});
  class_b["kind"] = "class";
  const catalog::Catalog cat = MakeCatalog({class_a, class_b, Res("File", "/a"), Res("Exec", "b")},
                                           {{"Class[main]", "Class[A]"},
                                            {"Class[main]", "Class[B]"},
                                            {"Class[A]", "File[/a]"},
                                            {"Class[B]", "Exec[b]"}});
  const DependencyGraph g = DependencyGraph::Build(cat);
  NeighbourhoodFinder finder(g);
  const catalog::ResourceId focus[] = {Id(cat, "Exec[b]")};
  std::vector<std::string> refs = Refs(finder.Around(focus), cat);
  EXPECT_THAT(refs, ::testing::Contains("Class[B]"));
  EXPECT_THAT(refs, ::testing::Contains("Class[A]"));  // 2 up, 1 across
}

TEST(NeighbourhoodTest, MermaidLabelKeepsInjectionInert) {
  EXPECT_EQ(MermaidLabel("File[/etc/app.conf]"), "File[/etc/app.conf]");
  EXPECT_EQ(MermaidLabel("a\"b"), "a#34;b");
  EXPECT_EQ(MermaidLabel("x --> y"), "x --#62; y");
  EXPECT_EQ(MermaidLabel("`md`"), "#96;md#96;");
  EXPECT_EQ(MermaidLabel("%%{init: {}}%%"), "#37;#37;#123;init: #123;#125;#125;#37;#37;");
  EXPECT_EQ(MermaidLabel("a;b|c&d#e<f>"), "a#59;b#124;c#38;d#35;e#60;f#62;");
  EXPECT_EQ(MermaidLabel("line\nbreak"), "line break");
  EXPECT_EQ(MermaidLabel("Grüße"), "Grüße");
  EXPECT_EQ(MermaidLabel("bad\xFFutf8"), "bad\xEF\xBF\xBDutf8");
  EXPECT_EQ(MermaidLabel("a\xe2\x80\xae"
                         "b\xc2\x9b"),
            "a#92;u202eb#92;u009b");  // bidi and C1 controls shown as escapes
  EXPECT_EQ(MermaidLabel("abcdef", 3), "abc…");
  EXPECT_EQ(MermaidLabel("äöüß", 2), "äö…");
}

TEST(NeighbourhoodTest, DrawingsOfHostileTitles) {
  const std::string evil = "x\"] --> n9[\"`pwn` %%{init: {\"theme\":\"dark\"}}%% <img src=x>;";
  const catalog::Catalog cat = MakeCatalog({
      Res("File", "/etc/app.conf"),
      Res("Exec", evil, {{"subscribe", "Package[p]"}}),
      Res("Package", "p"),
  });
  const DependencyGraph g = DependencyGraph::Build(cat);
  NeighbourhoodFinder finder(g);
  const catalog::ResourceId focus[] = {Id(cat, "File[/etc/app.conf]"),
                                       Id(cat, "Exec[" + evil + "]")};
  Neighbourhood n = finder.Around(focus);
  n.missing = MissingEdge{focus[0], focus[1], "require"};

  const std::string mermaid = Mermaid(n, cat);
  EXPECT_EQ(MermaidProblem(mermaid), "") << mermaid;
  EXPECT_THAT(mermaid, HasSubstr("  n0 ==>|missing require| n1\n"));
  EXPECT_THAT(mermaid, HasSubstr("-->|notify| n1\n"));  // Package[p] ~> Exec
  EXPECT_THAT(mermaid, HasSubstr("  class n0,n1 focus\n"));
  EXPECT_THAT(mermaid, Not(HasSubstr("<img")));
  EXPECT_THAT(mermaid, Not(HasSubstr("%%")));

  std::ostringstream dot;
  WriteNeighbourhoodDot(n, cat, dot);
  EXPECT_THAT(dot.str(), HasSubstr("n0 -> n1 [label=\"missing require\", penwidth=3"));
  EXPECT_THAT(dot.str(), HasSubstr("\\\"] --> n9[\\\""));  // quoted, so inert
  EXPECT_THAT(dot.str(), HasSubstr("rankdir=LR"));
}

TEST(NeighbourhoodTest, MermaidCheckerRejectsWhatItShould) {
  EXPECT_EQ(MermaidProblem("flowchart LR\n  n0[\"a\"]\n  n0 --> n0\n"), "");
  EXPECT_NE(MermaidProblem("graph TD\n  n0[\"a\"]\n"), "");
  EXPECT_NE(MermaidProblem("flowchart LR\n  n0[\"a\"b\"]\n"), "");
  EXPECT_NE(MermaidProblem("flowchart LR\n  n0[\"a<script>\"]\n"), "");
  EXPECT_NE(MermaidProblem("flowchart LR\n  n0[\"a\"]\n  n0 --> n1\n"), "");
  EXPECT_NE(MermaidProblem("flowchart LR\n  n0[\"a`b`\"]\n"), "");
  EXPECT_NE(MermaidProblem("flowchart LR\n  n0[\"a\"]\n  click n0 call alert()\n"), "");
}

}  // namespace
}  // namespace fsmove::graph
