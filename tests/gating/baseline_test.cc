// Baselines and suppressions: a baseline written from a real run reads back and suppresses
// exactly that run's findings, by fingerprint; ignore_pairs suppress in either direction and
// per rule; baseline entries no finding matches are reported as absent; bad files are errors
// naming the pointer.
#include "fsmove/gating/baseline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../report/recorded_check.h"
#include "fsmove/gating/suppressions.h"

namespace fsmove::testing {
namespace {

using ::testing::HasSubstr;

std::vector<const checker::Finding*> All(const checker::CheckResult& r) {
  std::vector<const checker::Finding*> out;
  for (const auto& f : r.findings) out.push_back(&f);
  return out;
}

TEST(BaselineTest, WrittenFromARunSuppressesThatRun) {
  RecordedCheck run = CheckRecorded("faults-generate-use-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 2u);
  nlohmann::ordered_json doc = gating::BaselineToJson(All(run.result), *run.catalog);
  EXPECT_EQ(doc["fsmove_baseline"], 1);
  ASSERT_EQ(doc["findings"].size(), 2u);
  EXPECT_EQ(doc["findings"][0]["rule"], "missing-ordering");
  EXPECT_EQ(doc["findings"][0]["source"]["resource"], "Exec[generate]");
  EXPECT_EQ(doc["findings"][0]["paths"], nlohmann::ordered_json::array({"/opt/generated/release"}));

  auto baseline = gating::Baseline::Parse(doc.dump(2), "b.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  ASSERT_EQ(baseline->entries().size(), 2u);
  for (const auto& f : run.result.findings) {
    const gating::BaselineEntry* e = baseline->Find(f.fingerprint);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->target, run.catalog->resource(f.target).ref);
  }
  gating::Suppressions s = gating::Suppress(run.result, *run.catalog, {}, &*baseline);
  EXPECT_EQ(s.by_baseline, 2u);
  EXPECT_EQ(s.by_pair, 0u);
  EXPECT_TRUE(s.absent.empty());
  EXPECT_EQ(s.findings[0].kind, gating::SuppressionKind::kBaseline);
  EXPECT_EQ(s.findings[0].justification, "in baseline b.json");
  EXPECT_TRUE(s.findings[0].in_baseline);
}

// A baseline of one trace applied to another: the shared finding stays suppressed, the new
// one is reported, and the baseline's other entry is absent (fixed).
TEST(BaselineTest, OnlyNewFindingsAreReported) {
  RecordedCheck generate = CheckRecorded("faults-generate-use-bad");
  RecordedCheck configure = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(generate.catalog && configure.catalog);
  std::vector<const checker::Finding*> keep = {&generate.result.findings[1]};
  // Mix in the configure-use finding too, so one entry matches and one does not.
  nlohmann::ordered_json doc = gating::BaselineToJson(keep, *generate.catalog);
  doc["findings"].push_back(
      gating::BaselineToJson(All(configure.result), *configure.catalog)["findings"][0]);
  auto baseline = gating::Baseline::Parse(doc.dump(), "b.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status();

  gating::Suppressions s = gating::Suppress(generate.result, *generate.catalog, {}, &*baseline);
  EXPECT_FALSE(s.IsSuppressed(0));
  EXPECT_TRUE(s.IsSuppressed(1));
  EXPECT_EQ(s.by_baseline, 1u);
  ASSERT_EQ(s.absent.size(), 1u);
  EXPECT_EQ(s.absent[0].source, "File[/etc/app/app.conf]");
  EXPECT_EQ(s.absent[0].fingerprint, configure.result.findings[0].fingerprint);
}

TEST(BaselineTest, IgnoredPairsMatchEitherDirectionAndTheirRule) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 1u);
  auto config = [](const std::string& json) {
    auto c = checker::ParseProjectConfig(json, "p.json");
    EXPECT_TRUE(c.ok()) << c.status();
    return *c;
  };
  // Reversed direction, no rule: suppressed with the reason.
  gating::Suppressions s = gating::Suppress(
      run.result, *run.catalog, config(R"({"ignore_pairs": [{"source": "Exec[use config]",
                 "target": "File[/etc/app/app.conf]", "reason": "reads a default otherwise"}]})"),
      nullptr);
  EXPECT_EQ(s.by_pair, 1u);
  EXPECT_EQ(s.findings[0].kind, gating::SuppressionKind::kIgnoredPair);
  EXPECT_EQ(s.findings[0].justification, "reads a default otherwise");
  EXPECT_EQ(s.config_name, "p.json");
  // Another rule: not suppressed.
  s = gating::Suppress(run.result, *run.catalog,
                       config(R"({"ignore_pairs": [{"source": "File[/etc/app/app.conf]",
                                 "target": "Exec[use config]", "reason": "r",
                                 "rule": "missing-notifier"}]})"),
                       nullptr);
  EXPECT_EQ(s.suppressed(), 0u);
  // A resource this catalog lacks: a warning naming the pair.
  s = gating::Suppress(run.result, *run.catalog,
                       config(R"({"ignore_pairs": [{"source": "File[/nope]",
                                 "target": "Exec[use config]", "reason": "r"}]})"),
                       nullptr);
  EXPECT_EQ(s.suppressed(), 0u);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_THAT(s.warnings[0], HasSubstr("p.json: /ignore_pairs/0: File[/nope] is not in"));
}

TEST(BaselineTest, PairWinsOverBaselineButBaselineStateIsKept) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  auto baseline = gating::Baseline::Parse(
      gating::BaselineToJson(All(run.result), *run.catalog).dump(), "b.json");
  ASSERT_TRUE(baseline.ok());
  auto config = checker::ParseProjectConfig(
      R"({"ignore_pairs": [{"source": "File[/etc/app/app.conf]", "target": "Exec[use config]",
          "reason": "accepted"}]})",
      "p.json");
  ASSERT_TRUE(config.ok());
  gating::Suppressions s = gating::Suppress(run.result, *run.catalog, *config, &*baseline);
  EXPECT_EQ(s.findings[0].kind, gating::SuppressionKind::kIgnoredPair);
  EXPECT_TRUE(s.findings[0].in_baseline);
  EXPECT_EQ(s.by_pair, 1u);
  EXPECT_EQ(s.by_baseline, 0u);
  EXPECT_TRUE(s.absent.empty());
}

TEST(BaselineTest, BadFilesAreErrorsWithPointers) {
  const std::pair<const char*, const char*> cases[] = {
      {"[]", "b.json: /: expected a baseline object, got an array"},
      {"{\"findings\": []}", "b.json: /: not an fsmove baseline"},
      {"{\"fsmove_baseline\": 2, \"findings\": []}",
       "b.json: /fsmove_baseline: unsupported baseline format 2"},
      {"{\"fsmove_baseline\": 1}", "b.json: /findings: expected an array of findings"},
      {"{\"fsmove_baseline\": 1, \"findings\": [3]}", "b.json: /findings/0: expected an object"},
      {"{\"fsmove_baseline\": 1, \"findings\": [{\"fingerprint\": "
       "\"F61CECF2DC4827B419DCF7236AC2E348\"}]}",
       "b.json: /findings/0/fingerprint: expected 32 lower-case hex digits"},
      {"{\"fsmove_baseline\": 1, \"findings\": [{\"rule\": \"x\"}]}",
       "b.json: /findings/0/fingerprint: expected 32"},
      {"{\"fsmove_baseline\": 1,", "b.json:1:23: not valid JSON"},
  };
  for (const auto& [text, message] : cases) {
    auto b = gating::Baseline::Parse(text, "b.json");
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_THAT(std::string(b.status().message()), HasSubstr(message)) << text;
  }
  // A syntax error is located, never quoted: a file read by mistake may hold a secret.
  for (const char* text : {"\"SECRET-hunter2\n", "{\"fsmove_baseline\": SECRET-hunter2}",
                           "{\"fsmove_baseline\": 1, \"findings\": [\"SECRET-hunter2"}) {
    auto b = gating::Baseline::Parse(text, "b.json");
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_THAT(std::string(b.status().message()), HasSubstr("b.json:1:")) << text;
    EXPECT_THAT(std::string(b.status().message()), ::testing::Not(HasSubstr("SECRET")));
  }
  auto missing = gating::Baseline::LoadFile("/nonexistent/baseline.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("cannot read baseline /nonexistent/baseline.json: No such file"));
}

}  // namespace
}  // namespace fsmove::testing
