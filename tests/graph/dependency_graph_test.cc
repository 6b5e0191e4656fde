// Tests for the dependency graph on catalogs compiled by Puppet: chains, containment,
// stages, refresh relaying, cycles, autorequire skipping, and a large graph.
#include "fsmove/graph/dependency_graph.h"

#include <chrono>

#include "../catalog/catalog_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::graph {
namespace {

using ::fsmove::testing::Id;
using ::fsmove::testing::LoadTestCatalog;
using ::fsmove::testing::MakeCatalog;
using ::fsmove::testing::Res;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A catalog and its graph, queried by reference text.
class Fixture {
 public:
  explicit Fixture(catalog::Catalog catalog, const GraphOptions& options = {})
      : catalog_(std::move(catalog)), graph_(DependencyGraph::Build(catalog_, options)) {}
  explicit Fixture(std::string_view name, const GraphOptions& options = {})
      : Fixture(LoadTestCatalog(name), options) {}

  bool Before(std::string_view a, std::string_view b) const {
    return graph_.HappensBefore(Id(catalog_, a), Id(catalog_, b));
  }
  bool Notifies(std::string_view a, std::string_view b) const {
    return graph_.Notifies(Id(catalog_, a), Id(catalog_, b));
  }
  const DependencyGraph& graph() const { return graph_; }
  const catalog::Catalog& catalog() const { return catalog_; }

 private:
  catalog::Catalog catalog_;
  DependencyGraph graph_;
};

TEST(GraphChainsTest, ArrowsArraysAndRelationshipMetaparameters) {
  const Fixture f("chains.json");
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-cat/a]", "File[/tmp/fsmove-cat/b]"));
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-cat/a]", "Exec[target]"));
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-cat/b]", "Exec[target]"));
  EXPECT_TRUE(f.Before("Exec[single-before]", "Exec[array-subscribe]"));
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-cat/virtual]", "Exec[collector-target]"));
  EXPECT_FALSE(f.Before("Exec[target]", "Exec[array-subscribe]"));
  EXPECT_FALSE(f.Before("Exec[array-subscribe]", "Exec[target]"));
  EXPECT_FALSE(f.Before("Exec[target]", "File[/tmp/fsmove-cat/a]"));
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-cat/b]", "Exec[target]"));           // ~>
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-cat/a]", "Exec[array-subscribe]"));  // subscribe
  EXPECT_FALSE(f.Notifies("File[/tmp/fsmove-cat/a]", "Exec[target]"));          // -> only
  EXPECT_FALSE(f.Notifies("File[/tmp/fsmove-cat/a]", "File[/tmp/fsmove-cat/b]"));
}

TEST(GraphChainsTest, RequireFunctionOrdersTheWholeClass) {
  const Fixture f("chains.json");
  // `require chains::base` inside chains::user.
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-cat/base]", "Exec[uses-base]"));
  EXPECT_FALSE(f.Before("Exec[uses-base]", "File[/tmp/fsmove-cat/base]"));
  EXPECT_FALSE(f.Notifies("File[/tmp/fsmove-cat/base]", "Exec[uses-base]"));
}

TEST(GraphContainmentTest, ContainAndDefinesContainIncludeAndResourceLikeDoNot) {
  const Fixture f("containment.json");
  for (const char* inside : {"Exec[in-parent]", "Exec[in-contained]", "Exec[in-outer-one]",
                             "Exec[in-inner-one-inner]"}) {
    EXPECT_TRUE(f.Before("Exec[before-parent]", inside)) << inside;
    EXPECT_TRUE(f.Before(inside, "Exec[after-parent]")) << inside;
    EXPECT_TRUE(f.Notifies("Exec[notifies-parent]", inside)) << inside;
  }
  for (const char* outside : {"Exec[in-included]", "Exec[in-resource-like]"}) {
    EXPECT_FALSE(f.Before("Exec[before-parent]", outside)) << outside;
    EXPECT_FALSE(f.Before(outside, "Exec[after-parent]")) << outside;
    EXPECT_FALSE(f.Notifies("Exec[notifies-parent]", outside)) << outside;
  }
}

TEST(GraphContainmentTest, ChangesInsideAContainerLeaveAlongItsNotifyEdges) {
  const Fixture f("containment.json");
  EXPECT_TRUE(f.Notifies("Exec[in-outer-one]", "Exec[after-outer]"));
  EXPECT_TRUE(f.Notifies("Exec[in-inner-one-inner]", "Exec[after-outer]"));  // nested define
  EXPECT_FALSE(f.Notifies("Exec[in-parent]", "Exec[after-outer]"));
  EXPECT_TRUE(f.Notifies("Containment::Outer[one]", "Exec[after-outer]"));
}

TEST(GraphContainmentTest, ContainersAsQueryEndpoints) {
  const Fixture f("containment.json");
  EXPECT_TRUE(f.Before("Exec[before-parent]", "Class[Containment::Parent]"));
  EXPECT_TRUE(f.Before("Class[Containment::Parent]", "Exec[after-parent]"));
  // A member is neither before nor after its own container.
  EXPECT_FALSE(f.Before("Exec[in-parent]", "Class[Containment::Parent]"));
  EXPECT_FALSE(f.Before("Class[Containment::Parent]", "Exec[in-parent]"));
  EXPECT_FALSE(f.Before("Stage[main]", "Stage[main]"));
}

TEST(GraphContainmentTest, EmptyClassStillOrdersButDoesNotRelay) {
  const Fixture f("containment.json");
  EXPECT_TRUE(f.Before("Exec[before-empty]", "Exec[after-empty]"));
  const Fixture inline_catalog(
      MakeCatalog({Res("Exec", "a", {{"notify", "Class[Empty]"}}),
                   Res("Class", "Empty", {{"notify", "Exec[b]"}}), Res("Exec", "b")},
                  {{"Stage[main]", "Class[Empty]"}}));
  EXPECT_TRUE(inline_catalog.Before("Exec[a]", "Exec[b]"));
  // admissible_X -> completed_X carries no refresh label in Puppet.
  EXPECT_FALSE(inline_catalog.Notifies("Exec[a]", "Exec[b]"));
}

TEST(GraphStagesTest, StagesOrderEverythingTheyContain) {
  const Fixture f("stages.json");
  EXPECT_TRUE(f.Before("Exec[early]", "Exec[in-main]"));
  EXPECT_TRUE(f.Before("Exec[in-main]", "Exec[late]"));
  EXPECT_TRUE(f.Before("Exec[early]", "Exec[late]"));
  EXPECT_FALSE(f.Before("Exec[late]", "Exec[early]"));
  EXPECT_TRUE(f.Before("Class[Stages::Early]", "Class[Stages::Late]"));
  int stage_edges = 0;
  for (const DeclaredEdge& edge : f.graph().edges()) {
    if (edge.origin == EdgeOrigin::kStage) ++stage_edges;
  }
  EXPECT_EQ(stage_edges, 4);  // main: Settings, main; pre: Early; post: Late
}

TEST(GraphNotifyTest, RefreshPassesOnlyThroughRelayingResources) {
  const Fixture f("notify_relay.json");
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-nr/a]", "Service[fsmove-svc-one]"));   // via Exec
  EXPECT_FALSE(f.Notifies("File[/tmp/fsmove-nr/b]", "Service[fsmove-svc-two]"));  // via File
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-nr/static]", "Service[fsmove-svc-two]"));
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-nr/b]", "Service[fsmove-svc-two]"));
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-nr/c]", "Service[fsmove-svc-three]"));  // via Package
  EXPECT_FALSE(f.Notifies("File[/tmp/fsmove-nr/d]", "Service[fsmove-svc-four]"));  // ~> then ->
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-nr/d]", "Service[fsmove-svc-four]"));
  EXPECT_TRUE(f.graph().RelaysRefresh(Id(f.catalog(), "Exec[relay]")));
  EXPECT_TRUE(f.graph().RelaysRefresh(Id(f.catalog(), "Package[fsmove-relay-package]")));
  EXPECT_FALSE(f.graph().RelaysRefresh(Id(f.catalog(), "File[/tmp/fsmove-nr/static]")));
}

TEST(GraphNotifyTest, NotifyingAClassRefreshesWhatItContains) {
  const Fixture f("notify_relay.json");
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-nr/e]", "Service[fsmove-svc-in-class]"));
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-nr/e]", "Exec[in-class]"));
  EXPECT_TRUE(f.Notifies("File[/tmp/fsmove-nr/in-config]", "Service[fsmove-svc-five]"));
  EXPECT_TRUE(f.Notifies("Class[Notify_relay::Config]", "Service[fsmove-svc-five]"));
  EXPECT_FALSE(f.Notifies("File[/tmp/fsmove-nr/e]", "Service[fsmove-svc-five]"));
}

TEST(GraphNotifyTest, AnchorPatternRelaysAndOrders) {
  const Fixture f("handwritten/module_types.json");
  EXPECT_TRUE(f.Notifies("File[/etc/wrapper.conf]", "Service[inner-svc]"));
  EXPECT_TRUE(f.Before("File[/etc/wrapper.conf]", "File[/etc/inner.conf]"));
  EXPECT_TRUE(f.Before("Service[inner-svc]", "Exec[after-wrapper]"));
  EXPECT_TRUE(f.Notifies("File[/etc/inner.conf]", "Anchor[wrapper::end]"));
}

TEST(GraphNotifyTest, CustomTypesRelayOnlyWhenDeclared) {
  const auto make = [] {
    return MakeCatalog({Res("File", "/etc/x", {{"notify", "Custom_reload[x]"}}),
                        Res("Custom_reload", "x", {{"notify", "Service[s]"}}),
                        Res("Service", "s")});
  };
  EXPECT_FALSE(Fixture(make()).Notifies("File[/etc/x]", "Service[s]"));
  GraphOptions options;
  options.extra_refresh_relays = {"Custom_reload"};
  EXPECT_TRUE(Fixture(make(), options).Notifies("File[/etc/x]", "Service[s]"));
  EXPECT_TRUE(
      Fixture(make()).Notifies("Custom_reload[x]", "Service[s]"));  // it can still start one
}

TEST(GraphCycleTest, ReportsTheCycleAndKeepsAnswering) {
  const Fixture f("cycle.json");
  ASSERT_EQ(f.graph().cycles().size(), 1u);
  const DependencyCycle& cycle = f.graph().cycles()[0];
  EXPECT_THAT(cycle.path, ElementsAre("Exec[x]", "Exec[y]", "Exec[z]", "Exec[x]"));
  EXPECT_THAT(cycle.members, ElementsAre(Id(f.catalog(), "Exec[x]"), Id(f.catalog(), "Exec[y]"),
                                         Id(f.catalog(), "Exec[z]")));
  EXPECT_TRUE(f.Before("Exec[x]", "Exec[x]"));
  EXPECT_TRUE(f.Before("Exec[z]", "Exec[y]"));
  EXPECT_TRUE(f.Before("Exec[y]", "Exec[outside]"));
  EXPECT_FALSE(f.Before("Exec[outside]", "Exec[x]"));
  EXPECT_FALSE(f.Notifies("Exec[x]", "Exec[outside]"));
}

TEST(GraphCycleTest, CyclesThroughContainersNameTheContainer) {
  const Fixture f(
      MakeCatalog({Res("Class", "Loop"), Res("Exec", "inside", {{"before", "Class[Loop]"}})},
                  {{"Stage[main]", "Class[Loop]"}, {"Class[Loop]", "Exec[inside]"}}));
  ASSERT_EQ(f.graph().cycles().size(), 1u);
  EXPECT_THAT(f.graph().cycles()[0].path,
              ElementsAre("Exec[inside]", "Class[Loop]", "Exec[inside]"));
}

TEST(GraphCycleTest, SelfLoop) {
  const Fixture f(MakeCatalog({Res("Exec", "me", {{"require", "Exec[me]"}})}));
  ASSERT_EQ(f.graph().cycles().size(), 1u);
  EXPECT_THAT(f.graph().cycles()[0].path, ElementsAre("Exec[me]", "Exec[me]"));
}

TEST(GraphAutorequireTest, SkippedWhenAManualEdgeJoinsThePair) {
  const Fixture f("autorequire.json");
  EXPECT_THAT(f.graph().cycles(), IsEmpty());
  const catalog::ResourceId reverse = Id(f.catalog(), "File[/tmp/fsmove-ar/reverse]");
  const catalog::ResourceId child = Id(f.catalog(), "File[/tmp/fsmove-ar/reverse/child]");
  const catalog::ResourceId tool = Id(f.catalog(), "File[/tmp/fsmove-ar/bin/tool]");
  const catalog::ResourceId manual = Id(f.catalog(), "Exec[cmd-manual]");
  for (const DeclaredEdge& edge : f.graph().edges()) {
    if (edge.origin != EdgeOrigin::kAutorequire) continue;
    EXPECT_FALSE((edge.source == reverse && edge.target == child) ||
                 (edge.source == child && edge.target == reverse));
    EXPECT_FALSE((edge.source == tool && edge.target == manual) ||
                 (edge.source == manual && edge.target == tool));
  }
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-ar/reverse/child]", "File[/tmp/fsmove-ar/reverse]"));
  EXPECT_TRUE(f.Before("Exec[cmd-manual]", "File[/tmp/fsmove-ar/bin/tool]"));
  EXPECT_TRUE(f.Before("File[/tmp/fsmove-ar]", "File[/tmp/fsmove-ar/d/e/f]"));
  EXPECT_TRUE(f.Before("Group[fsmove-group]", "Exec[cmd-path]"));  // group -> user -> exec
  // Autorelations never carry refresh.
  EXPECT_FALSE(f.Notifies("File[/tmp/fsmove-ar/d]", "Exec[cmd-path]"));
}

TEST(GraphAutorequireTest, CanBeSwitchedOff) {
  GraphOptions options;
  options.autorequires = false;
  const Fixture f("autorequire.json", options);
  EXPECT_FALSE(f.Before("File[/tmp/fsmove-ar]", "File[/tmp/fsmove-ar/a/b]"));
  for (const DeclaredEdge& edge : f.graph().edges())
    EXPECT_NE(edge.origin, EdgeOrigin::kAutorequire);
}

TEST(GraphEdgesTest, KindsAndOrigins) {
  const Fixture f(MakeCatalog(
      {Res("File", "/d"), Res("File", "/d/f", {{"notify", "Service[s]"}}), Res("Service", "s")}));
  std::vector<std::string> described;
  for (const DeclaredEdge& edge : f.graph().edges()) {
    described.push_back(f.catalog().resource(edge.source).ref + " " +
                        std::string(EdgeKindName(edge.kind)) + "/" +
                        std::string(EdgeOriginName(edge.origin)) + "/" + std::string(edge.rule) +
                        " " + f.catalog().resource(edge.target).ref);
  }
  EXPECT_THAT(described, ElementsAre("File[/d/f] notify/parameter/notify Service[s]",
                                     "File[/d] before/autorequire/file:parent-directory File[/d/f]",
                                     "Stage[main] notify/stage/contains Class[main]",
                                     "Class[main] notify/containment/contains File[/d]",
                                     "Class[main] notify/containment/contains File[/d/f]",
                                     "Class[main] notify/containment/contains Service[s]"));
  EXPECT_EQ(f.graph().ExpandedVertexName(0), "Stage[main]");
  EXPECT_EQ(f.graph().ExpandedVertexName(static_cast<VertexIndex>(f.catalog().size())),
            "Whit[admissible_Stage[main]]");
  EXPECT_EQ(f.graph().ExpandedVertexName(static_cast<VertexIndex>(f.catalog().size() + 3)),
            "Whit[completed_Class[main]]");
}

TEST(GraphScaleTest, LongChainsAndBigCyclesStayFast) {
  // A 10,000-exec notify chain (acyclic: the closure is a full triangle) and a
  // 10,000-exec ring (one cycle), each with a File hanging off its first exec.
  std::vector<nlohmann::json> resources;
  constexpr int kCount = 10000;
  for (int i = 0; i < kCount; ++i) {
    nlohmann::json chain_parameters = nlohmann::json::object();
    if (i + 1 < kCount) chain_parameters["notify"] = "Exec[c" + std::to_string(i + 1) + "]";
    resources.push_back(Res("Exec", "c" + std::to_string(i), chain_parameters));
    resources.push_back(Res("Exec", "r" + std::to_string(i),
                            {{"notify", "Exec[r" + std::to_string((i + 1) % kCount) + "]"}}));
  }
  resources.push_back(
      Res("File", "/tail", {{"require", nlohmann::json::array({"Exec[c0]", "Exec[r0]"})}}));
  const auto start = std::chrono::steady_clock::now();
  const Fixture f(MakeCatalog(std::move(resources)));
  EXPECT_TRUE(f.Before("Exec[c5]", "Exec[c9999]"));
  EXPECT_FALSE(f.Before("Exec[c9999]", "Exec[c5]"));
  EXPECT_TRUE(f.Notifies("Exec[c0]", "Exec[c9999]"));
  EXPECT_TRUE(f.Before("Exec[r5]", "Exec[r3]"));
  EXPECT_TRUE(f.Notifies("Exec[r9999]", "Exec[r1]"));
  EXPECT_TRUE(f.Before("Exec[r7]", "File[/tail]"));
  EXPECT_FALSE(f.Notifies("Exec[r7]", "File[/tail]"));
  EXPECT_FALSE(f.Before("Exec[c1]", "File[/tail]"));
  ASSERT_EQ(f.graph().cycles().size(), 1u);
  EXPECT_EQ(f.graph().cycles()[0].path.size(), static_cast<std::size_t>(kCount + 1));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

}  // namespace
}  // namespace fsmove::graph
