// Puppet's own graph: the DOT reader on graphs real `puppet apply --graph` runs wrote, its
// errors on bad input, the mapping onto the catalog, the safe file reader, and the two
// implementations checked against each other (fsmove's static model vs Puppet's graph) on
// the catalog of every recorded run (tests/data/puppet-graphs/regenerate.sh).
#include "fsmove/graph/puppet_graph.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "../catalog/catalog_test_support.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::graph {
namespace {

using ::fsmove::testing::CatalogDataPath;
using ::fsmove::testing::LoadTestCatalog;
using ::testing::HasSubstr;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t CountOf(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

const std::string kSource = FSMOVE_SOURCE_DIR;

// ---- the DOT reader ----

TEST(ParseDotTest, ReadsARealGraphWithAwkwardTitles) {
  const std::string text = ReadText(CatalogDataPath("titles.expanded.dot"));
  absl::StatusOr<DotGraph> dot = ParseDot(text, "titles.expanded.dot");
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_EQ(dot->name, "Expanded_relationships");
  EXPECT_EQ(dot->edges.size(), CountOf(text, "\" -> \""));
  std::set<std::string> names;
  for (const DotGraph::Vertex& v : dot->vertices) names.insert(v.name);
  EXPECT_TRUE(names.contains("Exec[quotes ' and \"]"));
  EXPECT_TRUE(names.contains("Exec[line\nbreak]"));
  EXPECT_TRUE(names.contains("Exec[ends with ]]"));
  EXPECT_TRUE(names.contains("Whit[Admissible_stage[main]]"));
  // Line numbers count the raw newline inside a title.
  for (const DotGraph::Vertex& v : dot->vertices) {
    if (v.name == "Exec[Grüße ☃]") {
      EXPECT_EQ(v.line, 25u);
    }
  }
}

TEST(ParseDotTest, BadInputIsAnErrorWithFileAndLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "g.dot:1: expected 'digraph'"},
      {"{\"resources\": []}\n", "g.dot:1: expected 'digraph'"},
      {"digraph G {\n  \"a\" -> \"b\" [\n", "g.dot:3: expected an attribute name or ']'"},
      {"digraph G {\n  \"a\" -> \"b\"\n", "g.dot:3: the graph is not closed"},
      {"digraph G {\n  \"a\n", "g.dot:2: unterminated quoted name"},
      {"digraph G {\n\n  \"a\" -> ;\n}\n", "g.dot:3: expected a node name after '->'"},
      {"digraph G {\n  \"a\" -> \"b\"\n}\n}\n", "g.dot:4: text after the graph's closing '}'"},
      {"digraph G {\n  \"a\" @ \"b\"\n}\n", "g.dot:2: unexpected character '@'"},
      {std::string("digraph G {\n \x01\n}"), "g.dot:2: unexpected character '\\x01'"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<DotGraph> dot = ParseDot(c.text, "g.dot");
    ASSERT_FALSE(dot.ok()) << c.text;
    EXPECT_THAT(std::string(dot.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(ParseDotTest, ChainsAndDefaultsAndSemicolons) {
  absl::StatusOr<DotGraph> dot =
      ParseDot("strict digraph {\n node [shape = box];\n \"a\" -> \"b\" -> c;\n}\n", "g.dot");
  ASSERT_TRUE(dot.ok()) << dot.status();
  ASSERT_EQ(dot->vertices.size(), 3u);
  ASSERT_EQ(dot->edges.size(), 2u);
  EXPECT_EQ(dot->vertices[dot->edges[1].to].name, "c");
}

// ---- mapping onto the catalog ----

TEST(MapPuppetGraphTest, WhitsMapToTheirContainersAndOnlyRelationshipsBecomeEdges) {
  const catalog::Catalog catalog = LoadTestCatalog("containment.json");
  absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph(
      ReadText(CatalogDataPath("containment.expanded.dot")), "containment.expanded.dot", catalog);
  ASSERT_TRUE(puppet.ok()) << puppet.status();
  EXPECT_THAT(puppet->warnings, ::testing::IsEmpty());
  std::set<std::pair<std::string, std::string>> edges;
  for (const ObservedEdge& e : puppet->edges) {
    edges.emplace(catalog.resource(e.source).ref, catalog.resource(e.target).ref);
    EXPECT_EQ(e.rule, "puppet:graph");
  }
  // "Whit[Completed_class[Containment::Parent]]" -> "Exec[after-parent]"
  EXPECT_TRUE(edges.contains({"Class[Containment::Parent]", "Exec[after-parent]"}));
  EXPECT_TRUE(edges.contains({"Containment::Outer[one]", "Exec[after-outer]"}));
  // Containment ("Whit[Admissible_class[Main]]" -> "Exec[before-parent]") is not an edge.
  for (const auto& [from, to] : edges) {
    EXPECT_NE(from, "Class[main]") << to;
    EXPECT_NE(to, "Stage[main]") << from;
  }
  std::size_t whits = 0;
  for (std::size_t v = 0; v < puppet->vertices.size(); ++v) {
    const PuppetVertexKind kind = puppet->vertices[v].kind;
    EXPECT_NE(kind, PuppetVertexKind::kUnknown) << puppet->dot.vertices[v].name;
    whits += kind == PuppetVertexKind::kAdmissible || kind == PuppetVertexKind::kCompleted;
  }
  EXPECT_GT(whits, 10u);
}

TEST(MapPuppetGraphTest, NotifyLabelsComeFromTheCatalog) {
  const catalog::Catalog catalog = LoadTestCatalog("notify_relay.json");
  absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph(
      ReadText(CatalogDataPath("notify_relay.expanded.dot")), "notify_relay.expanded.dot", catalog);
  ASSERT_TRUE(puppet.ok()) << puppet.status();
  std::size_t notify = 0;
  for (const ObservedEdge& e : puppet->edges) {
    bool declared = false;
    for (const catalog::Relationship& r : catalog.relationships()) {
      declared |= r.source == e.source && r.target == e.target &&
                  r.kind == catalog::RelationshipKind::kNotify;
    }
    EXPECT_EQ(e.kind == EdgeKind::kNotify, declared)
        << catalog.resource(e.source).ref << " -> " << catalog.resource(e.target).ref;
    notify += e.kind == EdgeKind::kNotify;
  }
  EXPECT_GT(notify, 3u);
  // A refresh label from Puppet's log (autonotify) applies too.
  const ObservedEdge& plain =
      *std::find_if(puppet->edges.begin(), puppet->edges.end(),
                    [](const ObservedEdge& e) { return e.kind == EdgeKind::kBefore; });
  ObservedEdge logged = plain;
  logged.kind = EdgeKind::kNotify;
  absl::StatusOr<PuppetGraph> labelled =
      LoadPuppetGraph(ReadText(CatalogDataPath("notify_relay.expanded.dot")), "n.dot", catalog,
                      std::vector<ObservedEdge>{logged});
  ASSERT_TRUE(labelled.ok());
  for (const ObservedEdge& e : labelled->edges) {
    if (e.source == plain.source && e.target == plain.target) {
      EXPECT_EQ(e.kind, EdgeKind::kNotify);
    }
  }
}

// A vertex the catalog does not have is a warning with its line, and the relationships
// through it are kept (a generated resource between two catalog resources).
TEST(MapPuppetGraphTest, UnknownVerticesWarnAndKeepPathsThroughThem) {
  const catalog::Catalog catalog = LoadTestCatalog("chains.json");
  const std::string text = ReadText(CatalogDataPath("chains.expanded.dot"));
  absl::StatusOr<DotGraph> dot = ParseDot(text, "chains.expanded.dot");
  ASSERT_TRUE(dot.ok());
  // Two resources Puppet's graph leaves unordered.
  PuppetGraph base = MapPuppetGraph(*dot, "chains.expanded.dot", catalog);
  const DependencyGraph graph = DependencyGraph::Build(catalog, PuppetGraphOptions(base));
  std::optional<std::pair<catalog::ResourceId, catalog::ResourceId>> pair;
  for (catalog::ResourceId a = 0; a < catalog.size() && !pair; ++a) {
    for (catalog::ResourceId b = 0; b < catalog.size() && !pair; ++b) {
      if (a != b && !catalog.resource(a).is_container && !catalog.resource(b).is_container &&
          !graph.HappensBefore(a, b) && !graph.HappensBefore(b, a)) {
        pair.emplace(a, b);
      }
    }
  }
  ASSERT_TRUE(pair);
  const std::string edited = text.substr(0, text.rfind('}')) + "    \"" +
                             catalog.resource(pair->first).ref +
                             "\" -> \"Ghost[one]\" [\n        fontsize = 8\n    ]\n    "
                             "\"Ghost[one]\" -> \"Ghost[two]\" -> \"" +
                             catalog.resource(pair->second).ref + "\" [\n    ]\n}\n";
  absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph(edited, "edited.dot", catalog);
  ASSERT_TRUE(puppet.ok()) << puppet.status();
  const std::string line =
      std::to_string(std::count(text.begin(), text.begin() + text.rfind('}'), '\n') + 1);
  EXPECT_THAT(puppet->warnings,
              ::testing::ElementsAre("edited.dot:" + line +
                                         ": Ghost[one] is not in the catalog (relationships "
                                         "through it are kept)",
                                     HasSubstr("Ghost[two] is not in the catalog")));
  const DependencyGraph joined = DependencyGraph::Build(catalog, PuppetGraphOptions(*puppet));
  EXPECT_TRUE(joined.HappensBefore(pair->first, pair->second));
}

TEST(MapPuppetGraphTest, ContainmentTheCatalogLacksIsAWarning) {
  const catalog::Catalog catalog = LoadTestCatalog("containment.json");
  std::string text = ReadText(CatalogDataPath("containment.expanded.dot"));
  const std::string from =
      "\"Whit[Admissible_class[Containment::Contained]]\" -> \"Exec[in-contained]\"";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "\"Whit[Admissible_class[Containment::Contained]]\" -> \"Exec[in-parent]\"");
  absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph(text, "c.dot", catalog);
  ASSERT_TRUE(puppet.ok());
  EXPECT_THAT(puppet->warnings,
              ::testing::ElementsAre(HasSubstr(
                  "Puppet's graph has Class[Containment::Contained] containing Exec[in-parent], "
                  "the catalog does not")));
}

TEST(MapPuppetGraphTest, AGraphWithoutVerticesIsAnError) {
  const catalog::Catalog catalog = LoadTestCatalog("chains.json");
  absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph("digraph G {\n}\n", "e.dot", catalog);
  ASSERT_FALSE(puppet.ok());
  EXPECT_THAT(std::string(puppet.status().message()),
              HasSubstr("e.dot: the graph has no vertices"));
}

// ---- reading a file the sandbox wrote ----

class ReadPuppetGraphFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fsmove-pg-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ReadPuppetGraphFileTest, ReadsARegularFileAndRefusesEverythingElse) {
  std::ofstream(dir_ + "/g.dot") << "digraph G {\n}\n";
  ASSERT_EQ(symlink((dir_ + "/g.dot").c_str(), (dir_ + "/link.dot").c_str()), 0);
  ASSERT_EQ(mkfifo((dir_ + "/fifo.dot").c_str(), 0600), 0);
  ASSERT_EQ(mkdir((dir_ + "/dir.dot").c_str(), 0700), 0);
  const int dir = open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(dir, 0);
  absl::StatusOr<std::string> ok = ReadPuppetGraphFile(dir, "g.dot");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, "digraph G {\n}\n");
  absl::StatusOr<std::string> link = ReadPuppetGraphFile(dir, "link.dot");
  EXPECT_THAT(std::string(link.status().message()),
              HasSubstr("cannot read Puppet's graph link.dot: a symbolic link, never followed"));
  // A FIFO would block a plain open(); this one has no writer.
  absl::StatusOr<std::string> fifo = ReadPuppetGraphFile(dir, "fifo.dot");
  EXPECT_THAT(std::string(fifo.status().message()),
              HasSubstr("cannot read Puppet's graph fifo.dot: a FIFO, not a regular file"));
  absl::StatusOr<std::string> directory = ReadPuppetGraphFile(dir, "dir.dot");
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr(": Is a directory"));
  absl::StatusOr<std::string> missing = ReadPuppetGraphFile(dir, "missing.dot");
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("cannot read Puppet's graph missing.dot: No such file or directory"));
  close(dir);
  // Too large: a sparse file past the cap.
  const int big = open((dir_ + "/big.dot").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(big, 0);
  ASSERT_EQ(ftruncate(big, static_cast<off_t>(kMaxPuppetGraphBytes + 1)), 0);
  close(big);
  absl::StatusOr<std::string> large = ReadPuppetGraphFile(AT_FDCWD, dir_ + "/big.dot");
  EXPECT_THAT(std::string(large.status().message()), HasSubstr(": larger than 64 MiB"));
}

// ---- the two implementations against each other ----

// Where fsmove's static model and Puppet disagree, by design (tests/data/puppet-graphs/
// README.md): autorequires of types defined in modules' Ruby code, which a reading of the
// catalog cannot know. `fsmove check` gets them from Puppet's graph (and its --debug log).
const std::set<std::string> kKnownDifferences = {
    // filemagic's fm_prepend / fm_replace: `autorequire :file do [self[:path]] end`.
    "corpus/geoffwilliams-auditd: File[/etc/audit/auditd.conf] before "
    "Fm_prepend[/etc/audit/auditd.conf] (puppet's)",
    "corpus/geoffwilliams-auditd-defaults: File[/etc/audit/auditd.conf] before "
    "Fm_prepend[/etc/audit/auditd.conf] (puppet's)",
    "corpus/geoffwilliams-auditd-example: File[/etc/audit/auditd.conf] before "
    "Fm_prepend[/etc/audit/auditd.conf] (puppet's)",
    "corpus/geoffwilliams-auditd-example: File[/etc/audit/auditd.conf] before "
    "Fm_replace[/etc/audit/auditd.conf:local_events] (puppet's)",
    "corpus/geoffwilliams-auditd-example: File[/etc/audit/auditd.conf] before "
    "Fm_replace[/etc/audit/auditd.conf:log_format] (puppet's)",
    "corpus/geoffwilliams-auditd-example: File[/etc/audit/auditd.conf] before "
    "Fm_replace[/etc/audit/auditd.conf:max_log_file] (puppet's)",
    "corpus/geoffwilliams-auditd-example: File[/etc/audit/auditd.conf] before "
    "Fm_replace[/etc/audit/auditd.conf:max_log_file_action] (puppet's)",
    "corpus/geoffwilliams-auditd-example: File[/etc/audit/auditd.conf] before "
    "Fm_replace[/etc/audit/auditd.conf:num_logs] (puppet's)",
    // ... and through Fm_replace[...] ~> Service[auditd].
    "corpus/geoffwilliams-auditd-example: File[/etc/audit/auditd.conf] before Service[auditd] "
    "(puppet's)",
    // openldap_access / openldap_dbindex: `autorequire(:openldap_database) { [value(:suffix)] }`,
    // and File[/var/lib/ldap] before the database, so before them too.
    "corpus/puppet-openldap: Openldap_database[dc=example,dc=com] before "
    "Openldap_access[0 on dc=example,dc=com] (puppet's)",
    "corpus/puppet-openldap: Openldap_database[dc=example,dc=com] before "
    "Openldap_dbindex[uid index] (puppet's)",
    "corpus/puppet-openldap: File[/var/lib/ldap] before Openldap_access[0 on dc=example,dc=com] "
    "(puppet's)",
    "corpus/puppet-openldap: File[/var/lib/ldap] before Openldap_dbindex[uid index] (puppet's)",
    // Ours on purpose: Puppet orders the File a Concat_file generates (after the Concat_file)
    // after its directory's File and its owner; the generated File's block, the write, is
    // charged to the Concat_file, so the model orders the Concat_file after them
    // (generated-file:*, autorequire.h).
    "puppet-graphs/generated_file: File[/tmp/fsmove-gen] before "
    "Concat_file[/tmp/fsmove-gen/app.conf] (ours)",
    "puppet-graphs/generated_file: User[fsmovegen] before Concat_file[/tmp/fsmove-gen/app.conf] "
    "(ours)",
};

std::string DescribeDifference(const std::string& run, const catalog::Catalog& catalog,
                               const OrderingDifference& d) {
  return run + ": " + catalog.resource(d.first).ref + " before " + catalog.resource(d.second).ref +
         (d.ours ? " (ours)" : " (puppet's)");
}

struct RecordedRun {
  std::string name;
  std::string catalog;
  std::string graph;
};

std::vector<RecordedRun> RecordedRuns() {
  std::vector<RecordedRun> runs;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/traces")) {
    const std::string name = entry.path().filename().string();
    const std::string catalog = entry.path().string() + "/catalog.json";
    const std::string graph =
        absl::StrCat(kSource, "/tests/data/puppet-graphs/", name, ".expanded.dot");
    if (std::filesystem::exists(catalog)) runs.push_back({name, catalog, graph});
  }
  for (const char* name :
       {"chains", "containment", "stages", "aliases", "titles", "autorequire", "notify_relay"}) {
    runs.push_back({std::string("catalogs/") + name, CatalogDataPath(std::string(name) + ".json"),
                    CatalogDataPath(std::string(name) + ".expanded.dot")});
  }
  // Catalogs compiled for these tests (tests/data/puppet-graphs/src).
  for (const char* name : {"generated_file", "a2mod"}) {
    const std::string data = kSource + "/tests/data/puppet-graphs/" + name;
    runs.push_back({std::string("puppet-graphs/") + name, data + ".json", data + ".expanded.dot"});
  }
  // The hand-judged corpus of real Forge modules, when it is beside the checkout.
  const std::string corpus = kSource + "/../shared/corpus";
  if (std::filesystem::is_directory(corpus)) {
    for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
      const std::string name = entry.path().filename().string();
      const std::string catalog = entry.path().string() + "/catalog.json";
      if (!std::filesystem::exists(catalog)) continue;
      runs.push_back(
          {"corpus/" + name, catalog,
           absl::StrCat(kSource, "/tests/data/puppet-graphs/corpus/", name, ".expanded.dot")});
    }
  }
  std::sort(runs.begin(), runs.end(),
            [](const RecordedRun& a, const RecordedRun& b) { return a.name < b.name; });
  return runs;
}

// For every recorded run: HappensBefore over every ordered pair of non-container resources,
// fsmove's static model (catalog + modelled autorequires) against Puppet's graph, and the
// graph built from Puppet's (what `fsmove check` uses) against Puppet's itself.
TEST(StaticVersusPuppetGraphTest, EveryRecordedRunOrdersTheSamePairs) {
  const std::vector<RecordedRun> runs = RecordedRuns();
  ASSERT_GE(runs.size(), 32u);
  std::set<std::string> differences;
  std::size_t pairs = 0;
  for (const RecordedRun& run : runs) {
    SCOPED_TRACE(run.name);
    ASSERT_TRUE(std::filesystem::exists(run.graph))
        << run.graph << " missing: run tests/data/puppet-graphs/regenerate.sh";
    absl::StatusOr<catalog::Catalog> catalog = catalog::Catalog::LoadFile(run.catalog);
    ASSERT_TRUE(catalog.ok()) << catalog.status();
    absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph(ReadText(run.graph), run.graph, *catalog);
    ASSERT_TRUE(puppet.ok()) << puppet.status();
    EXPECT_THAT(puppet->warnings, ::testing::IsEmpty());

    const DependencyGraph from_puppet =
        DependencyGraph::Build(*catalog, PuppetGraphOptions(*puppet));
    for (const OrderingDifference& d : CompareOrderings(from_puppet, *puppet)) {
      ADD_FAILURE() << "graph from Puppet's: " << DescribeDifference(run.name, *catalog, d);
    }
    const DependencyGraph ours = DependencyGraph::Build(*catalog);
    for (const OrderingDifference& d : CompareOrderings(ours, *puppet)) {
      differences.insert(DescribeDifference(run.name, *catalog, d));
    }
    std::size_t resources = 0;
    for (const PuppetVertex& v : puppet->vertices) {
      resources +=
          v.kind == PuppetVertexKind::kResource && !catalog->resource(v.resource).is_container;
    }
    pairs += resources * (resources - 1);
  }
  for (const std::string& d : differences) {
    EXPECT_TRUE(kKnownDifferences.contains(d)) << "static model vs Puppet: " << d;
  }
  for (const std::string& d : kKnownDifferences) {
    if (d.starts_with("corpus/") && !std::filesystem::is_directory(kSource + "/../shared/corpus"))
      continue;
    EXPECT_TRUE(differences.contains(d)) << "no longer differs (update the list): " << d;
  }
  EXPECT_GT(pairs, 500u);
}

// A File whose link target is a File a Concat_file generates comes after the Concat_file
// and after what the generated File autorequires (found comparing apache's catalog).
TEST(StaticVersusPuppetGraphTest, GeneratedFilesOrderWhatRequiresThem) {
  const catalog::Catalog catalog =
      *catalog::Catalog::LoadFile(kSource + "/tests/data/puppet-graphs/generated_file.json");
  const DependencyGraph graph = DependencyGraph::Build(catalog);
  const catalog::ResourceId link = *catalog.ResolveRef("File[/tmp/fsmove-gen-link]");
  // In Puppet's graph, the generated File is no warning: paths through it are kept.
  const std::string dot = kSource + "/tests/data/puppet-graphs/generated_file.expanded.dot";
  absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph(ReadText(dot), dot, catalog);
  ASSERT_TRUE(puppet.ok()) << puppet.status();
  EXPECT_THAT(puppet->warnings, ::testing::IsEmpty());
  std::size_t generated = 0;
  for (const PuppetVertex& v : puppet->vertices)
    generated += v.kind == PuppetVertexKind::kGenerated;
  EXPECT_EQ(generated, 1u);
  for (const char* first :
       {"Concat_file[/tmp/fsmove-gen/app.conf]", "File[/tmp/fsmove-gen]", "User[fsmovegen]"}) {
    EXPECT_TRUE(graph.HappensBefore(*catalog.ResolveRef(first), link)) << first;
  }
}

// The comparison sees a missing rule: without its autorequires the static model misses
// File[/srv/app] before File[/srv/app/conf] that Puppet has.
TEST(StaticVersusPuppetGraphTest, AMissingAutorequireShowsUp) {
  const std::string run = kSource + "/traces/faults-autorequire-bad";
  absl::StatusOr<catalog::Catalog> catalog = catalog::Catalog::LoadFile(run + "/catalog.json");
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  const std::string graph =
      kSource + "/tests/data/puppet-graphs/faults-autorequire-bad.expanded.dot";
  absl::StatusOr<PuppetGraph> puppet = LoadPuppetGraph(ReadText(graph), graph, *catalog);
  ASSERT_TRUE(puppet.ok()) << puppet.status();
  GraphOptions no_autorequires;
  no_autorequires.autorequires = false;
  const DependencyGraph ours = DependencyGraph::Build(*catalog, no_autorequires);
  std::set<std::string> differences;
  for (const OrderingDifference& d : CompareOrderings(ours, *puppet)) {
    differences.insert(DescribeDifference("run", *catalog, d));
  }
  EXPECT_EQ(differences,
            std::set<std::string>{"run: File[/srv/app] before File[/srv/app/conf] (puppet's)"});
}

}  // namespace
}  // namespace fsmove::graph
