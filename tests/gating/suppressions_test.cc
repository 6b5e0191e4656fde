// gating::Suppress on hand-made findings (no trace): which findings an ignore_pair or a
// baseline suppresses and with what justification, the counts, the baseline entries no
// finding matched, and the warnings for pairs naming resources the catalog lacks.
// tests/gating/baseline_test.cc covers the same on recorded runs.
#include "fsmove/gating/suppressions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../test_catalog.h"
#include "nlohmann/json.hpp"

namespace fsmove::gating {
namespace {

using checker::FaultKind;
using checker::IgnoredPair;
using checker::ProjectConfig;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

catalog::Catalog MakeCatalog() {
  return testing::MakeTestCatalog({{"File", "/etc/a"}, {"File", "/etc/b"}, {"File", "/etc/c"}});
}

class SuppressTest : public ::testing::Test {
 protected:
  catalog::Catalog cat = MakeCatalog();
  catalog::ResourceId a = *cat.ResolveRef("File[/etc/a]");
  catalog::ResourceId b = *cat.ResolveRef("File[/etc/b]");
  catalog::ResourceId c = *cat.ResolveRef("File[/etc/c]");
  checker::CheckResult result;

  void Add(FaultKind kind, catalog::ResourceId source, catalog::ResourceId target,
           std::string fingerprint) {
    checker::Finding f;
    f.kind = kind;
    f.source = source;
    f.target = target;
    f.fingerprint = std::move(fingerprint);
    result.findings.push_back(std::move(f));
  }
};

IgnoredPair Pair(std::string source, std::string target, std::string reason,
                 std::optional<FaultKind> rule = std::nullopt, std::string pointer = "/p") {
  return {std::move(source), std::move(target), std::move(reason), rule, std::move(pointer)};
}

Baseline MakeBaseline(const std::vector<std::string>& fingerprints) {
  nlohmann::json doc = {{"fsmove_baseline", 1}, {"findings", nlohmann::json::array()}};
  for (const std::string& fp : fingerprints) {
    doc["findings"].push_back({{"fingerprint", fp},
                               {"rule", "missing-ordering"},
                               {"source", {{"resource", "File[/old]"}}},
                               {"target", {{"resource", "File[/new]"}}}});
  }
  auto b = Baseline::Parse(doc.dump(), "base.json");
  EXPECT_TRUE(b.ok()) << b.status();
  return std::move(*b);
}

std::string Fp(char c) { return std::string(32, c); }

TEST_F(SuppressTest, NothingToApplySuppressesNothing) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  Suppressions s = Suppress(result, cat, {}, nullptr);
  ASSERT_EQ(s.findings.size(), 1u);  // parallel to the findings even when nothing applies
  EXPECT_EQ(s.findings[0].kind, SuppressionKind::kNone);
  EXPECT_FALSE(s.findings[0].in_baseline);
  EXPECT_FALSE(s.IsSuppressed(0));
  EXPECT_EQ(s.suppressed(), 0u);
  EXPECT_FALSE(s.has_baseline());
  EXPECT_EQ(s.config_name, "");
  EXPECT_THAT(s.absent, IsEmpty());
  EXPECT_THAT(s.warnings, IsEmpty());
}

TEST_F(SuppressTest, NoFindingsLeaveEveryBaselineEntryAbsent) {
  Baseline base = MakeBaseline({Fp('1'), Fp('2')});
  Suppressions s = Suppress(result, cat, {}, &base);
  EXPECT_THAT(s.findings, IsEmpty());
  EXPECT_TRUE(s.has_baseline());
  EXPECT_EQ(s.baseline_name, "base.json");
  ASSERT_EQ(s.absent.size(), 2u);
  EXPECT_EQ(s.absent[0].fingerprint, Fp('1'));
  EXPECT_EQ(s.absent[0].source, "File[/old]");
  EXPECT_EQ(s.absent[1].fingerprint, Fp('2'));
}

// A pair is unordered: the checker picks the direction from the run, which can change.
TEST_F(SuppressTest, APairMatchesEitherDirectionOfItsTwoResources) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  Add(FaultKind::kMissingOrdering, b, a, Fp('2'));
  Add(FaultKind::kMissingOrdering, a, c, Fp('3'));  // shares only one resource
  Add(FaultKind::kMissingOrdering, c, b, Fp('4'));
  ProjectConfig config;
  config.source_name = "proj/.fsmove.json";
  config.ignore_pairs = {Pair("File[/etc/a]", "File[/etc/b]", "known race")};
  Suppressions s = Suppress(result, cat, config, nullptr);
  EXPECT_EQ(s.config_name, "proj/.fsmove.json");
  EXPECT_TRUE(s.IsSuppressed(0));
  EXPECT_TRUE(s.IsSuppressed(1));
  EXPECT_FALSE(s.IsSuppressed(2));
  EXPECT_FALSE(s.IsSuppressed(3));
  EXPECT_EQ(s.findings[0].kind, SuppressionKind::kIgnoredPair);
  EXPECT_EQ(s.findings[0].justification, "known race");
  EXPECT_EQ(s.by_pair, 2u);
  EXPECT_EQ(s.by_baseline, 0u);
  EXPECT_EQ(s.suppressed(), 2u);
  // Out of range is not suppressed (reports ask by index).
  EXPECT_FALSE(s.IsSuppressed(4));
}

TEST_F(SuppressTest, APairWithARuleMatchesOnlyThatRule) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  Add(FaultKind::kMissingNotifier, a, b, Fp('2'));
  ProjectConfig config;
  config.ignore_pairs = {
      Pair("File[/etc/a]", "File[/etc/b]", "no restart needed", FaultKind::kMissingNotifier)};
  Suppressions s = Suppress(result, cat, config, nullptr);
  EXPECT_FALSE(s.IsSuppressed(0));
  EXPECT_TRUE(s.IsSuppressed(1));
  EXPECT_EQ(s.by_pair, 1u);
}

// Of several matching pairs, the first gives the reason, and the finding counts once.
TEST_F(SuppressTest, TheFirstMatchingPairGivesTheReasonAndCountsOnce) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  ProjectConfig config;
  config.ignore_pairs = {Pair("File[/etc/b]", "File[/etc/a]", "first"),
                         Pair("File[/etc/a]", "File[/etc/b]", "second")};
  Suppressions s = Suppress(result, cat, config, nullptr);
  EXPECT_EQ(s.findings[0].justification, "first");
  EXPECT_EQ(s.by_pair, 1u);
}

TEST_F(SuppressTest, PairsNamingUnknownResourcesAreSkippedWithAWarning) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  ProjectConfig config;
  config.source_name = "p.json";
  config.ignore_pairs = {
      Pair("File[/etc/a]", "File[/gone]", "x", std::nullopt, "/ignore_pairs/0"),
      Pair("Exec[missing]", "File[/etc/b]", "y", std::nullopt, "/ignore_pairs/1"),
      Pair("File[/etc/b]", "File[/etc/a]", "valid", std::nullopt, "/ignore_pairs/2")};
  Suppressions s = Suppress(result, cat, config, nullptr);
  // Each warning names the file, the pair's pointer, the missing side and the catalog.
  EXPECT_THAT(s.warnings,
              ElementsAre("p.json: /ignore_pairs/0: File[/gone] is not in test.json; pair skipped",
                          "p.json: /ignore_pairs/1: Exec[missing] is not in test.json; pair "
                          "skipped"));
  // The valid pair after them still applies.
  EXPECT_EQ(s.findings[0].justification, "valid");
}

TEST_F(SuppressTest, TheBaselineSuppressesByFingerprintAndListsWhatIsAbsent) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  Add(FaultKind::kMissingNotifier, b, c, Fp('2'));
  Baseline base = MakeBaseline({Fp('2'), Fp('9')});
  Suppressions s = Suppress(result, cat, {}, &base);
  EXPECT_FALSE(s.IsSuppressed(0));
  EXPECT_FALSE(s.findings[0].in_baseline);
  EXPECT_TRUE(s.IsSuppressed(1));
  EXPECT_EQ(s.findings[1].kind, SuppressionKind::kBaseline);
  EXPECT_EQ(s.findings[1].justification, "in baseline base.json");
  EXPECT_TRUE(s.findings[1].in_baseline);
  EXPECT_EQ(s.by_baseline, 1u);
  EXPECT_EQ(s.by_pair, 0u);
  ASSERT_EQ(s.absent.size(), 1u);
  EXPECT_EQ(s.absent[0].fingerprint, Fp('9'));
}

// Two findings with one fingerprint (the same pair found twice) both match the entry, and
// it is not absent.
TEST_F(SuppressTest, OneBaselineEntryCanSuppressSeveralFindings) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  Baseline base = MakeBaseline({Fp('1')});
  Suppressions s = Suppress(result, cat, {}, &base);
  EXPECT_EQ(s.by_baseline, 2u);
  EXPECT_THAT(s.absent, IsEmpty());
}

// A pair's reason says more than the baseline: it wins, but the finding still counts as
// in the baseline (its entry is not absent, and `in_baseline` says so).
TEST_F(SuppressTest, APairWinsOverTheBaselineWhichStillMatches) {
  Add(FaultKind::kMissingOrdering, a, b, Fp('1'));
  Baseline base = MakeBaseline({Fp('1')});
  ProjectConfig config;
  config.source_name = "p.json";
  config.ignore_pairs = {Pair("File[/etc/a]", "File[/etc/b]", "accepted")};
  Suppressions s = Suppress(result, cat, config, &base);
  EXPECT_EQ(s.findings[0].kind, SuppressionKind::kIgnoredPair);
  EXPECT_EQ(s.findings[0].justification, "accepted");
  EXPECT_TRUE(s.findings[0].in_baseline);
  EXPECT_EQ(s.by_pair, 1u);
  EXPECT_EQ(s.by_baseline, 0u);
  EXPECT_EQ(s.suppressed(), 1u);
  EXPECT_THAT(s.absent, IsEmpty());
}

}  // namespace
}  // namespace fsmove::gating
