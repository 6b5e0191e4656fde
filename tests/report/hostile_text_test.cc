// Every report format with a resource title, a path and Puppet's messages that hold a screen
// clear (ESC [2J), a line break and a right-to-left override (U+202E): the text and Markdown
// reports show them as escapes, the JSON formats (JSON, SARIF, rdjson, GitLab Code Quality)
// escape them in their strings (and give the same string back to a JSON reader), JUnit XML as
// character references, and the fix stays a valid Puppet reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "../test_catalog.h"
#include "fsmove/base/json_output.h"
#include "fsmove/report/code_quality.h"
#include "fsmove/report/findings_report.h"
#include "fsmove/report/junit.h"
#include "fsmove/report/markdown_report.h"
#include "fsmove/report/rdjson.h"
#include "fsmove/report/sarif.h"
#include "nlohmann/json.hpp"

namespace fsmove::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kRlo = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE
// A title that, printed raw, clears the screen, draws a green all-clear, and starts a new line.
const std::string kTitle =
    "x\x1b[2J\x1b[32mNo missing ordering relationships\n" + std::string(kRlo) + "evil";
const std::string kPath = "/tmp/a" + std::string(kRlo) + "b\x1b[2J";

// No byte a terminal or a viewer would obey: ESC, any other C0 control but the writer's own
// line breaks, U+202E.
void ExpectNoRawControls(const std::string& out, std::string_view format) {
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << format << ":\n" << out;
  EXPECT_EQ(out.find(kRlo), std::string::npos) << format << ":\n" << out;
  EXPECT_EQ(out.find("\nNo missing ordering relationships\n"), std::string::npos) << format;
  for (char c : out) {
    auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 || c == '\n' || c == '\t') << format << ": byte " << int(u);
  }
}

class HostileTextTest : public ::testing::Test {
 protected:
  catalog::Catalog cat = testing::MakeTestCatalog({{"File", kPath}, {"Notify", kTitle}});
  catalog::ResourceId file = *cat.ResolveRef("File[" + kPath + "]");
  catalog::ResourceId notify = *cat.ResolveRef("Notify[" + kTitle + "]");
  graph::DependencyGraph graph = graph::DependencyGraph::Build(cat);
  analysis::Analyzer analyzer;
  checker::CheckResult result;
  RunSummary run;

  void SetUp() override {
    checker::Finding f;
    f.kind = checker::FaultKind::kMissingOrdering;
    f.source = f.source_declaration = file;
    f.target = f.target_declaration = notify;
    f.fingerprint = "0123456789abcdef0123456789abcdef";
    f.fix = "add `require => " + checker::PuppetReference(cat.resource(file)) + "` to " +
            checker::PuppetReference(cat.resource(notify));
    checker::PathEvidence e;
    e.path = kPath;
    e.source.effect = fstrace::Effect::kProduced;
    e.source.syscall = fstrace::FindSyscallIndex("openat");
    e.source.line = 10;
    e.target.effect = fstrace::Effect::kConsumed;
    e.target.syscall = fstrace::FindSyscallIndex("openat");
    e.target.line = 20;
    f.evidence.push_back(e);
    f.evidence_total = 1;
    result.findings.push_back(std::move(f));
    run.target = "/m";
    run.sandbox = "overlay";
    run.failed.push_back(
        {"Notify[" + kTitle + "]", "Could not \x1b[2Jevaluate" + std::string(kRlo)});
    run.errors.push_back("error \x1b]0;title\x07" + std::string(kRlo));
    run.notes.push_back("note \x1b[2J");
  }

  FindingsContext Context() {
    FindingsContext c;
    c.trace_name = "trace.zst";
    c.analyzer = &analyzer;
    c.catalog = &cat;
    c.graph = &graph;
    c.result = &result;
    c.run = &run;
    return c;
  }
};

TEST_F(HostileTextTest, TheFixIsValidPuppetAndPrintable) {
  EXPECT_EQ(checker::PuppetReference(cat.resource(notify)),
            "Notify[\"x\\u001B[2J\\u001B[32mNo missing ordering relationships\\n\\u202Eevil\"]");
  EXPECT_EQ(checker::PuppetReference(cat.resource(file)), "File[\"/tmp/a\\u202Eb\\u001B[2J\"]");
  // Single quotes while nothing needs escaping; in double quotes, '$' cannot interpolate.
  const catalog::Catalog others = testing::MakeTestCatalog(
      {{"Exec", "it's $x \"q\" \\ y"}, {"Exec", "$x \"q\" \\\t"}, {"Exec", "ü\xc2\x85"}});
  EXPECT_EQ(
      checker::PuppetReference(others.resource(*others.ResolveRef("Exec[it's $x \"q\" \\ y]"))),
      "Exec['it\\'s $x \"q\" \\\\ y']");
  EXPECT_EQ(checker::PuppetReference(others.resource(*others.ResolveRef("Exec[$x \"q\" \\\t]"))),
            "Exec[\"\\$x \\\"q\\\" \\\\\\t\"]");
  EXPECT_EQ(checker::PuppetReference(others.resource(*others.ResolveRef("Exec[ü\xc2\x85]"))),
            "Exec[\"ü\\u0085\"]");
}

TEST_F(HostileTextTest, TextShowsEscapes) {
  std::ostringstream out;
  WriteFindingsText(out, Context());
  const std::string text = out.str();
  ExpectNoRawControls(text, "text");
  EXPECT_THAT(text,
              HasSubstr("Notify[x\\e[2J\\e[32mNo missing ordering relationships\\n\\u202eevil]"));
  EXPECT_THAT(text, HasSubstr("/tmp/a\\u202eb\\e[2J: produced by"));
  EXPECT_THAT(text, HasSubstr("fix: add `require => File[\"/tmp/a\\u202Eb\\u001B[2J\"]`"));
  EXPECT_THAT(text, HasSubstr("Could not \\e[2Jevaluate\\u202e"));
  EXPECT_THAT(text, HasSubstr("puppet error: error \\e]0;title\\x07\\u202e"));
}

TEST_F(HostileTextTest, JsonFormatsEscapeInTheirStrings) {
  const FindingsContext c = Context();
  const SourceRoot root = SourceRoot::FromDirectory("/m");
  const std::pair<std::string_view, nlohmann::json> kFormats[] = {
      {"json", FindingsToJson(c)},
      {"sarif", FindingsToSarif(c, {root})},
      {"rdjson", FindingsToRdjson(c, root)},
      {"codequality", FindingsToCodeQuality(c, root)}};
  for (const auto& [format, j] : kFormats) {
    const std::string dumped = base::DumpJson(j);
    ExpectNoRawControls(dumped, format);
    EXPECT_THAT(dumped, HasSubstr("\\u202e")) << format;
    EXPECT_THAT(dumped, HasSubstr("\\u001b[2J")) << format;
    // The same document to a JSON reader.
    EXPECT_EQ(nlohmann::json::parse(dumped), j) << format;
  }
  const nlohmann::json j = FindingsToJson(c);
  EXPECT_EQ(j["faults"][0]["target"]["resource"], "Notify[" + kTitle + "]");
}

TEST_F(HostileTextTest, JunitUsesCharacterReferences) {
  std::ostringstream out;
  WriteFindingsJunit(out, Context(), {SourceRoot::FromDirectory("/m")});
  const std::string xml = out.str();
  ExpectNoRawControls(xml, "junit");
  EXPECT_THAT(xml, HasSubstr("&#x202E;evil"));
  EXPECT_THAT(xml, HasSubstr("&#10;"));
}

TEST_F(HostileTextTest, MarkdownShowsEscapes) {
  std::ostringstream out;
  MarkdownOptions o;
  o.source_root = SourceRoot::FromDirectory("/m");
  WriteFindingsMarkdown(out, Context(), o);
  const std::string md = out.str();
  ExpectNoRawControls(md, "markdown");
  EXPECT_THAT(md, HasSubstr("u202e"));
  EXPECT_THAT(md, Not(HasSubstr("No missing ordering relationships\n")));
}

}  // namespace
}  // namespace fsmove::report
