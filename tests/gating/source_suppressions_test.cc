// `# fsmove:ignore:RULE reason` comments: which lines each covers (gating::ReadSourceSuppressions
// on a manifest's comments and code lines), and gating::Suppress with them: the findings
// they suppress, before ignore_pairs and the baseline, and the comments that suppress none.
// tests/pipeline/source_comments_test.cc reads the same from manifests' text.
#include "fsmove/gating/source_suppressions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../test_catalog.h"
#include "fsmove/gating/suppressions.h"

namespace fsmove::gating {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

SourceComment Own(int line, std::string text) { return {line, false, std::move(text)}; }
SourceComment After(int line, std::string text) { return {line, true, std::move(text)}; }

struct Covered {
  int line, first, last;
  std::vector<std::string> rules;
  std::string reason;
  bool operator==(const Covered&) const = default;
};

std::vector<Covered> Read(const std::vector<SourceComment>& comments,
                          const std::vector<int>& code_lines, SourceSuppressions* out) {
  ReadSourceSuppressions("/m/init.pp", "/m/init.pp", comments, code_lines, out);
  std::vector<Covered> covered;
  for (const SourceSuppression& s : out->comments) {
    covered.push_back({s.line, s.first_line, s.last_line, s.rules, s.reason});
  }
  return covered;
}

TEST(SourceSuppressionsTest, ACommentAfterCodeCoversItsOwnLine) {
  SourceSuppressions out;
  EXPECT_THAT(
      Read({After(4, " fsmove:ignore:missing-notifier the daemon rereads it")}, {1, 4, 5}, &out),
      ElementsAre(Covered{4, 4, 4, {"missing-notifier"}, "the daemon rereads it"}));
  EXPECT_THAT(out.warnings, IsEmpty());
}

TEST(SourceSuppressionsTest, ACommentAloneCoversTheNextLineOfCode) {
  // Comments and blank lines between the directive and the declaration are skipped.
  SourceSuppressions out;
  EXPECT_THAT(Read({Own(3, " fsmove:ignore:missing-ordering  ordered by apt's hook "),
                    Own(4, " an explanation")},
                   {1, 2, 6, 7}, &out),
              ElementsAre(Covered{3, 6, 6, {"missing-ordering"}, "ordered by apt's hook"}));
}

TEST(SourceSuppressionsTest, ABlockCoversUpToItsEndignoreTheInnermostClosedFirst) {
  SourceSuppressions out;
  EXPECT_THAT(
      Read({Own(2, " fsmove:ignore:missing-ordering above one declaration"),
            Own(5, "fsmove:ignore:missing-ordering fsmove:ignore:missing-notifier generated"),
            Own(9, " fsmove:endignore")},
           {3, 4, 6, 7, 8, 10, 11}, &out),
      ElementsAre(Covered{2, 3, 3, {"missing-ordering"}, "above one declaration"},
                  Covered{5, 6, 8, {"missing-ordering", "missing-notifier"}, "generated"}));
  EXPECT_THAT(out.warnings, IsEmpty());
}

TEST(SourceSuppressionsTest, AnEndignoreWithNoneOpenIsNamed) {
  SourceSuppressions out;
  EXPECT_THAT(Read({Own(1, " fsmove:endignore")}, {2}, &out), IsEmpty());
  EXPECT_THAT(out.warnings, ElementsAre("/m/init.pp:1: `# fsmove:endignore` closes no "
                                        "`# fsmove:ignore:RULE` comment above it"));
}

TEST(SourceSuppressionsTest, AnUnknownRuleOrDirectiveIsNamedAndCoversNothing) {
  SourceSuppressions out;
  EXPECT_THAT(Read({After(1, " fsmove:ignore:missing-relationship typo"),
                    After(2, " fsmove:disable:missing-ordering"),
                    After(3, " see fsmove:ignore:missing-ordering in the docs")},
                   {1, 2, 3}, &out),
              IsEmpty());
  EXPECT_THAT(out.warnings,
              ElementsAre(HasSubstr("/m/init.pp:1: `fsmove:ignore:missing-relationship` names "
                                    "no rule: fsmove's findings are missing-ordering and "
                                    "missing-notifier"),
                          HasSubstr("/m/init.pp:2: not an fsmove directive")));
}

class SourceSuppressTest : public ::testing::Test {
 protected:
  // File[/etc/a] is declared on line 1 of /m/init.pp, b on 2, c on 3.
  catalog::Catalog cat =
      testing::MakeTestCatalog({{"File", "/etc/a"}, {"File", "/etc/b"}, {"File", "/etc/c"}});
  catalog::ResourceId a = *cat.ResolveRef("File[/etc/a]");
  catalog::ResourceId b = *cat.ResolveRef("File[/etc/b]");
  catalog::ResourceId c = *cat.ResolveRef("File[/etc/c]");
  checker::CheckResult result;

  void Add(checker::FaultKind kind, catalog::ResourceId source, catalog::ResourceId target) {
    checker::Finding f;
    f.kind = kind;
    f.source = f.source_declaration = source;
    f.target = f.target_declaration = target;
    f.fingerprint = std::to_string(result.findings.size());
    result.findings.push_back(std::move(f));
  }
};

TEST_F(SourceSuppressTest, ACommentAtEitherDeclarationSuppressesItsRulesFindingsOnly) {
  Add(checker::FaultKind::kMissingOrdering, a, b);
  Add(checker::FaultKind::kMissingNotifier, a, b);
  Add(checker::FaultKind::kMissingOrdering, c, a);
  SourceSuppressions in_source;
  // Matched by the catalog's name of the manifest, said where it was read.
  ReadSourceSuppressions("/m/init.pp", "/checkout/init.pp",
                         {After(2, "fsmove:ignore:missing-ordering made by hand")}, {1, 2, 3},
                         &in_source);
  checker::ProjectConfig config;
  config.source_name = ".fsmove.json";
  config.ignore_pairs.push_back(
      {"File[/etc/a]", "File[/etc/b]", "the pair's reason", std::nullopt, "/ignore_pairs/0"});
  Suppressions s = Suppress(result, cat, config, nullptr, &in_source);
  // The comment at b's declaration wins over the pair; the pair takes the MN it does not name.
  EXPECT_EQ(s.findings[0].kind, SuppressionKind::kInSource);
  EXPECT_EQ(s.findings[0].justification, "made by hand");
  EXPECT_EQ(s.findings[0].file, "/checkout/init.pp");
  EXPECT_EQ(s.findings[0].line, 2);
  EXPECT_EQ(s.findings[1].kind, SuppressionKind::kIgnoredPair);
  EXPECT_EQ(s.findings[2].kind, SuppressionKind::kNone);
  EXPECT_EQ(s.by_source, 1u);
  EXPECT_EQ(s.suppressed(), 2u);
  EXPECT_THAT(s.warnings, IsEmpty());
}

TEST_F(SourceSuppressTest, ACommentThatSuppressesNothingIsNamed) {
  Add(checker::FaultKind::kMissingOrdering, a, b);
  SourceSuppressions in_source;
  ReadSourceSuppressions("/m/init.pp", "/m/init.pp", {Own(2, "fsmove:ignore:missing-notifier")},
                         {1, 3}, &in_source);
  Suppressions s = Suppress(result, cat, checker::ProjectConfig{}, nullptr, &in_source);
  EXPECT_EQ(s.suppressed(), 0u);
  EXPECT_THAT(s.warnings, ElementsAre("/m/init.pp:2: `# fsmove:ignore:missing-notifier` "
                                      "suppresses no finding of this run"));
}

}  // namespace
}  // namespace fsmove::gating
