// The Markdown pull-request comment: on a real recorded run with a hand-made patch (counts,
// both resources with file:line, the evidence in two lines, a well-formed Mermaid picture
// with the missing edge dashed, the diff and its verification), with titles, paths and code
// built to break out (all inert), and bounded.
#include "fsmove/report/markdown_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "../catalog/catalog_test_support.h"
#include "../graph/mermaid_check.h"
#include "fsmove/report/markdown_text.h"
#include "fsmove/report/sarif.h"
#include "hand_made_patch.h"
#include "markdown_check.h"
#include "recorded_check.h"

namespace fsmove::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Markdown(const report::FindingsContext& c, const report::MarkdownOptions& o = {}) {
  std::ostringstream out;
  report::WriteFindingsMarkdown(out, c, o);
  return out.str();
}

TEST(MarkdownReportTest, RealFindingWithItsPatch) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  checker::Finding& f = run.result.findings.at(0);
  f.patch = RequirePatch(run, f);
  const catalog::Resource& target = run.catalog->resource(f.target);
  report::MarkdownOptions o;
  o.source_root = report::SourceRoot::FromDirectory(target.file.substr(
      0, target.file.size() - std::string("/fixtures/faults/configure-use/bad.pp").size()));
  const std::string md = Markdown(run.Context(), o);
  EXPECT_THAT(md, ::testing::StartsWith("<!-- fsmove-report -->\n## fsmove: 1 finding\n\n"
                                        "1 missing ordering relationship in `trace.zst`"));
  // The kind links its rule's page (docs/rules/missing-ordering.md).
  EXPECT_THAT(md, HasSubstr("### 1. Missing ordering relationship ([MOR](" +
                            report::RuleHelpUri("missing-ordering") +
                            "))\n\n"
                            "Nothing makes Puppet apply `File[/etc/app/app.conf]` "
                            "(`fixtures/faults/configure-use/bad.pp:10`) before `Exec[use config]` "
                            "(`fixtures/faults/configure-use/bad.pp:15`)."));
  // The evidence: two lines, a hard break between, in the text report's words.
  EXPECT_THAT(md, HasSubstr("**Evidence:** `/etc/app/app.conf` was produced by "
                            "`File[/etc/app/app.conf]` (`rename`, trace line "));
  EXPECT_THAT(md, HasSubstr("),\\\nthen consumed by `Exec[use config]` (`openat`, trace line "));
  EXPECT_THAT(md, HasSubstr("**Suggested change** (verified:"));
  MarkdownShape shape = CheckMarkdown(md);
  EXPECT_EQ(shape.problem, "") << md;
  ASSERT_THAT(shape.fences, ElementsAre("mermaid", "diff"));
  EXPECT_EQ(MermaidProblem(shape.blocks[0]), "") << shape.blocks[0];
  EXPECT_THAT(shape.blocks[0], HasSubstr("  n0 ==>|missing require| n1\n"));
  // The legend under the picture says what its lines mean.
  EXPECT_THAT(md, HasSubstr("```\n<sub>Thick red: the relationship to add."));
  EXPECT_THAT(shape.blocks[0], HasSubstr("n0[\"File[/etc/app/app.conf]<br/>bad.pp:10\"]"));
  EXPECT_EQ(shape.blocks[1], f.patch->diff);

  // Without a patch: the fix sentence.
  f.patch.reset();
  const std::string plain = Markdown(run.Context(), o);
  EXPECT_THAT(plain, HasSubstr("**Fix:** add `require => File['/etc/app/app.conf']` to Exec\\['use "
                               "config'\\] \\(/work"));
  EXPECT_THAT(CheckMarkdown(plain).fences, ElementsAre("mermaid"));
}

TEST(MarkdownReportTest, HostileTextStaysInert) {
  const std::string evil =
      "x` <img src=x onerror=alert(1)> @octocat #1 [a](javascript:alert(1)) ``` ~~~\n# owned";
  nlohmann::json producer = Res("File", "/etc/" + evil);
  producer["file"] = "/repo/manifests/<b>init</b>.pp";
  producer["line"] = 3;
  nlohmann::json consumer = Res("Exec", "run \"" + evil + "\" --> x");
  consumer["file"] = "/repo/manifests/init.pp";
  consumer["line"] = 9;
  const catalog::Catalog cat = MakeCatalog({producer, consumer});
  const graph::DependencyGraph graph = graph::DependencyGraph::Build(cat);
  checker::CheckResult result;
  checker::Finding f;
  f.source = f.source_declaration = Id(cat, "File[/etc/" + evil + "]");
  f.target = f.target_declaration = Id(cat, "Exec[run \"" + evil + "\" --> x]");
  checker::PathEvidence e;
  e.path = "/etc/" + evil;
  e.source.effect = fstrace::Effect::kProduced;
  e.source.line = 4;
  e.target.line = 7;
  f.evidence.push_back(e);
  f.paths = {e.path, "/other"};
  f.fix = "add `require => File['/etc/" + evil + "']` to Exec['x']";
  f.fingerprint = "0123";
  checker::FixPatch p;
  p.root = "/repo";
  p.diff =
      "--- a/manifests/init.pp\n+++ b/manifests/init.pp\n@@ -9,1 +9,2 @@\n exec { 'x':\n"
      "+  require => File['```\n<script>alert(1)</script>'],\n";
  p.edits.push_back({"/repo/manifests/init.pp", 10, 10, "  require => x,\n", ""});
  p.description = evil;
  f.patch = p;
  result.findings.push_back(f);
  report::FindingsContext c;
  c.trace_name = "trace `" + evil;
  c.catalog = &cat;
  c.graph = &graph;
  c.result = &result;
  report::MarkdownOptions o;
  o.source_root = report::SourceRoot::FromDirectory("/repo");
  const std::string md = Markdown(c, o);
  MarkdownShape shape = CheckMarkdown(md);
  EXPECT_EQ(shape.problem, "") << md;
  ASSERT_THAT(shape.fences, ElementsAre("mermaid", "diff")) << md;
  EXPECT_EQ(MermaidProblem(shape.blocks[0]), "") << shape.blocks[0];
  EXPECT_THAT(shape.blocks[0], Not(HasSubstr("<img")));
  EXPECT_EQ(shape.blocks[1], p.diff);  // the code as it is, in a longer fence
  EXPECT_THAT(md, HasSubstr("````diff\n"));
}

TEST(MarkdownReportTest, NoFindingsAndTheBound) {
  RecordedCheck fixed = CheckRecorded("faults-configure-use-fixed");
  ASSERT_TRUE(fixed.catalog);
  EXPECT_THAT(Markdown(fixed.Context()),
              HasSubstr("## fsmove: no findings\n\n"
                        "no missing ordering relationships or notifiers"));

  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  report::MarkdownOptions o;
  o.max_detailed = 0;
  const std::string md = Markdown(run.Context(), o);
  EXPECT_THAT(md, HasSubstr("### More findings\n\n- MOR `File[/etc/app/app.conf]`"));
  EXPECT_THAT(md, Not(HasSubstr("```mermaid")));
  o.max_detailed = 20;
  o.max_chars = 100;  // the heading alone is longer: every finding gets a line
  EXPECT_THAT(Markdown(run.Context(), o), HasSubstr("### More findings"));
}

TEST(MarkdownReportTest, CheckRunNamesItsTargetAndNotIdempotentResources) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  report::RunSummary summary;
  summary.target = "modules/app";
  summary.idempotence.checked = true;
  summary.idempotence.resources.push_back(
      {"Exec[use config]", "changes-every-apply", {"executed successfully"}, {}});
  report::FindingsContext c = run.Context();
  c.run = &summary;
  const std::string md = Markdown(c);
  EXPECT_THAT(md, HasSubstr("## fsmove: 2 findings\n\n1 missing ordering relationship, 1 "
                            "resource not idempotent in the Puppet run of `modules/app`.\n"));
  EXPECT_THAT(md, HasSubstr("### 2. Not idempotent ([NI](" + report::RuleHelpUri("not-idempotent") +
                            "))\n\nResource `Exec[use config]` ("));
  EXPECT_THAT(md, HasSubstr("changes on every apply. Second apply: `executed successfully`.\n"));
  EXPECT_THAT(md, HasSubstr("**Fix:** give Exec\\['use config'\\] a guard"));
  EXPECT_EQ(CheckMarkdown(md).problem, "") << md;
}

TEST(MarkdownTextTest, Escaping) {
  EXPECT_EQ(report::MarkdownText("a [b](c) <d> *e* _f_"),
            "a \\[b\\]\\(c\\) \\<d\\> \\*e\\* \\_f\\_");
  EXPECT_EQ(report::MarkdownText("@me #1"),
            "\\@\xE2\x80\x8Bme \\#\xE2\x80\x8B"
            "1");
  EXPECT_EQ(report::MarkdownText("a\nb"), "a\\\\nb");  // made visible, then escaped
  EXPECT_EQ(report::MarkdownCode("File[/x]"), "`File[/x]`");
  EXPECT_EQ(report::MarkdownCode("a`b"), "``a`b``");
  EXPECT_EQ(report::MarkdownCode("`a``"), "``` `a`` ```");
  EXPECT_EQ(report::MarkdownCode(""), "` `");
  EXPECT_EQ(report::MarkdownCode("a\nb"), "`a\\nb`");
  EXPECT_EQ(report::MarkdownTextWithCode("add `a => B['x']` to C['y']"),
            "add `a => B['x']` to C\\['y'\\]");
  EXPECT_EQ(report::MarkdownTextWithCode("odd ` one"), "odd \\` one");
  EXPECT_EQ(report::MarkdownFence("x\n", "diff"), "```diff\nx\n```\n");
  EXPECT_EQ(report::MarkdownFence("```\n", ""), "````\n```\n````\n");
  EXPECT_EQ(report::MarkdownFence("no newline", "text"), "```text\nno newline\n```\n");
}

}  // namespace
}  // namespace fsmove::testing
