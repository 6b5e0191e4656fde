// The findings report's functions on hand-made inputs (a catalog from a JSON string, findings
// filled by hand, no trace): the headline and evidence sentences, the not-idempotent
// sentences and fingerprint, the completeness text and JSON, what counts toward the exit
// code (suppressed, hidden, fixed in place, --fail-on confirmed), and where the text and JSON
// reports put suppressed and hidden findings. The golden tests cover whole reports of runs.
#include "fsmove/report/findings_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "../test_catalog.h"
#include "fsmove/base/sha256.h"
#include "fsmove/fstrace/lowering.h"
#include "nlohmann/json.hpp"

namespace fsmove::report {
namespace {

using checker::FaultKind;
using ::testing::HasSubstr;
using ::testing::Not;

catalog::Catalog MakeCatalog() {
  return testing::MakeTestCatalog(
      {{"File", "/etc/app.conf"}, {"Exec", "use config"}, {"Service", "app"}});
}

class FindingsReportTest : public ::testing::Test {
 protected:
  catalog::Catalog cat = MakeCatalog();
  catalog::ResourceId file = *cat.ResolveRef("File[/etc/app.conf]");
  catalog::ResourceId exec = *cat.ResolveRef("Exec[use config]");
  catalog::ResourceId service = *cat.ResolveRef("Service[app]");
  graph::DependencyGraph graph = graph::DependencyGraph::Build(cat);
  analysis::Analyzer analyzer;
  checker::CheckResult result;

  checker::Finding& Add(FaultKind kind, catalog::ResourceId source, catalog::ResourceId target,
                        std::string fingerprint) {
    checker::Finding f;
    f.kind = kind;
    f.source = f.source_declaration = source;
    f.target = f.target_declaration = target;
    f.fingerprint = std::move(fingerprint);
    f.fix = "the fix";
    result.findings.push_back(std::move(f));
    return result.findings.back();
  }

  FindingsContext Context(const gating::Suppressions* sup = nullptr) {
    FindingsContext c;
    c.trace_name = "trace.zst";
    c.analyzer = &analyzer;
    c.catalog = &cat;
    c.graph = &graph;
    c.result = &result;
    c.suppressions = sup;
    return c;
  }

  std::string Text(const FindingsContext& c) {
    std::ostringstream out;
    WriteFindingsText(out, c);
    return out.str();
  }
};

TEST_F(FindingsReportTest, HeadlinesNameTheDependentSideFirst) {
  checker::Finding& mor = Add(FaultKind::kMissingOrdering, file, exec, "f1");
  EXPECT_EQ(FindingHeadline(mor, cat),
            "Exec[use config] must be applied after File[/etc/app.conf]");
  checker::Finding& mn = Add(FaultKind::kMissingNotifier, file, service, "f2");
  EXPECT_EQ(FindingHeadline(mn, cat), "Service[app] must be notified by File[/etc/app.conf]");
}

// Each side's verb follows its access: produced, removed, needed as directory, listed,
// consumed, managed; "(call failed)" is added to a failed call.
TEST_F(FindingsReportTest, EvidenceTextSaysWhatEachSideDid) {
  checker::PathEvidence e;
  e.path = "/etc/app.conf";
  e.source.effect = fstrace::Effect::kProduced;
  e.source.syscall = fstrace::FindSyscallIndex("rename");
  e.source.line = 431418;
  e.target.effect = fstrace::Effect::kConsumed;
  e.target.syscall = fstrace::FindSyscallIndex("openat");
  e.target.line = 431759;
  const catalog::Resource& src = cat.resource(file);
  const catalog::Resource& dst = cat.resource(exec);
  EXPECT_EQ(EvidenceText(e, src, dst),
            "/etc/app.conf: produced by File[/etc/app.conf] (rename at line 431418), consumed by "
            "Exec[use config] (openat at line 431759)");
  auto target_verb = [&](analysis::Access a) {
    checker::PathEvidence x = e;
    x.target = a;
    std::string text = EvidenceText(x, src, dst);
    size_t from = text.find("), ") + 3;
    return text.substr(from, text.find(" by Exec") - from);
  };
  analysis::Access a;
  a.effect = fstrace::Effect::kExpunged;
  EXPECT_EQ(target_verb(a), "removed");
  a.effect = fstrace::Effect::kConsumed;
  a.parent = true;
  EXPECT_EQ(target_verb(a), "needed as directory");
  a.parent = false;
  a.listing = true;
  EXPECT_EQ(target_verb(a), "listed its directory");
  a.listing = false;
  a.failed = true;
  EXPECT_EQ(target_verb(a), "consumed (call failed)");
  a.managed = true;  // managed wins over everything else
  EXPECT_EQ(target_verb(a), "managed (looked at)");
}

// Evidence a rule weakened by a row of a knowledge table cites the rule and the row, with the
// row's source, under the evidence in the text (--all shows the low-confidence finding) and as
// `citations` on the path in JSON; evidence no row weakened has neither.
TEST_F(FindingsReportTest, WeakenedEvidenceCitesTheRuleAndTheRow) {
  const checker::knowledge::Row* row =
      checker::knowledge::TableNamed("ambient_configuration").Find("/etc/resolv.conf");
  ASSERT_NE(row, nullptr);
  checker::Finding& f = Add(FaultKind::kMissingOrdering, file, exec, "f1");
  f.confidence = checker::Confidence::kLow;
  checker::PathEvidence e;
  e.path = "/etc/resolv.conf";
  e.source.effect = fstrace::Effect::kProduced;
  e.target.effect = fstrace::Effect::kConsumed;
  e.strength = 1;
  e.citations.push_back({"ambient-configuration", row});
  f.evidence.push_back(e);
  checker::PathEvidence plain = e;
  plain.path = "/etc/app.conf";
  plain.citations.clear();
  f.evidence.push_back(plain);
  f.evidence_total = 2;
  FindingsContext c = Context();
  c.show_low = true;
  const std::string text = Text(c);
  EXPECT_THAT(text, HasSubstr("\n      weakened by ambient-configuration, row ambient.resolv-conf "
                              "(src/checker/knowledge/ambient_configuration.tsv:" +
                              std::to_string(row->line) + "): resolv.conf(5): \"The resolver"));
  EXPECT_EQ(text.find("weakened by"), text.rfind("weakened by"));  // once: the plain one has none
  const nlohmann::json doc = FindingsToJson(c);
  ASSERT_EQ(doc["faults"].size(), 1u);
  const nlohmann::json& j = doc["faults"][0];
  ASSERT_EQ(j["paths"].size(), 2u);
  const nlohmann::json& cited = j["paths"][0]["citations"];
  ASSERT_EQ(cited.size(), 1u);
  EXPECT_EQ(cited[0]["rule"], "ambient-configuration");
  EXPECT_EQ(cited[0]["row"], "ambient.resolv-conf");
  EXPECT_EQ(cited[0]["kind"], "resolver");
  EXPECT_EQ(cited[0]["match"], "path");
  EXPECT_EQ(cited[0]["fact"], "/etc/resolv.conf");
  EXPECT_EQ(cited[0]["table"], "src/checker/knowledge/ambient_configuration.tsv");
  EXPECT_EQ(cited[0]["line"], row->line);
  EXPECT_THAT(cited[0]["source"].get<std::string>(), HasSubstr("resolv.conf(5)"));
  EXPECT_FALSE(j["paths"][1].contains("citations"));
}

TEST_F(FindingsReportTest, NotIdempotentSentencesFollowTheBehaviourAndType) {
  NotIdempotent n{"Exec[use config]", "changes-every-apply", {}, {}};
  EXPECT_EQ(NotIdempotentBehaviour(n), "changes on every apply");
  EXPECT_EQ(NotIdempotentResource(n, cat), &cat.resource(exec));
  EXPECT_THAT(NotIdempotentFix(n, cat), HasSubstr("give Exec['use config'] a guard"));
  n.resource = "File[/etc/app.conf]";
  EXPECT_THAT(NotIdempotentFix(n, cat), HasSubstr("make File['/etc/app.conf']'s desired state"));
  n.resource = "Service[app]";
  EXPECT_THAT(NotIdempotentFix(n, cat), HasSubstr("Puppet finds already in place"));
  // The behaviour decides before the type.
  n.behaviour = "fails-on-reapply";
  EXPECT_EQ(NotIdempotentBehaviour(n), "fails when applied again");
  EXPECT_THAT(NotIdempotentFix(n, cat), HasSubstr("succeed on a machine it already configured"));
  n.behaviour = "converged-on-third-apply";
  EXPECT_EQ(NotIdempotentBehaviour(n), "changed again on the second apply, converged on the third");
  EXPECT_THAT(NotIdempotentFix(n, cat), HasSubstr("reach its final state in one apply"));
  n.behaviour = "changed-on-second-apply";
  EXPECT_EQ(NotIdempotentBehaviour(n), "changed again on the second apply");
  // A generated resource (not in the catalog): named as given, typed from its reference.
  NotIdempotent gen{"Exec[generated]", "changes-every-apply", {}, {}};
  EXPECT_EQ(NotIdempotentResource(gen, cat), nullptr);
  EXPECT_THAT(NotIdempotentFix(gen, cat), HasSubstr("give Exec[generated] a guard"));
}

// Stable identity: 32 hex digits of SHA-256 over a fixed prefix and the reference.
TEST_F(FindingsReportTest, NotIdempotentFingerprintIsStable) {
  NotIdempotent n{"Exec[x]", "changes-every-apply", {}, {}};
  std::string fp = NotIdempotentFingerprint(n);
  EXPECT_EQ(fp, base::Sha256Hex("fsmove-finding/v1\nnot-idempotent\nExec[x]").substr(0, 32));
  n.behaviour = "fails-on-reapply";  // the behaviour is not part of it
  EXPECT_EQ(NotIdempotentFingerprint(n), fp);
  n.resource = "Exec[y]";
  EXPECT_NE(NotIdempotentFingerprint(n), fp);
}

TEST_F(FindingsReportTest, CompletenessTextIsEmptyWhenComplete) {
  checker::Completeness c;
  c.catalog_resources = c.evaluated = 3;
  std::ostringstream out;
  WriteCompletenessText(out, c, false);
  EXPECT_EQ(out.str(), "");
}

// At most max_listed resources of each kind, then how many more.
TEST_F(FindingsReportTest, CompletenessTextListsAtMostMaxListedOfEachKind) {
  checker::Completeness c;
  c.catalog_resources = 10;
  c.evaluated = 6;
  for (int i = 0; i < 3; ++i) {
    c.gaps.push_back({checker::GapKind::kNotEvaluated, "Exec[n" + std::to_string(i) + "]",
                      std::nullopt, "", "no block"});
  }
  c.gaps.push_back(
      {checker::GapKind::kFailed, "Exec[f]", std::nullopt, "boom\nsecond line", "cut short"});
  c.apply_problems.push_back("puppet apply exited with code 1");
  std::ostringstream out;
  WriteCompletenessText(out, c, /*allow_failed=*/false, /*max_listed=*/2);
  std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("exit code 3"));
  EXPECT_THAT(text, HasSubstr("  1 failed; evidence lost: cut short:\n"
                              "    Exec[f]: boom\n      second line\n"));
  EXPECT_THAT(text, HasSubstr("  3 never evaluated; evidence lost: no block:\n"
                              "    Exec[n0]\n    Exec[n1]\n    ... and 1 more"));
  EXPECT_THAT(text, Not(HasSubstr("Exec[n2]")));
  EXPECT_THAT(text, HasSubstr("  puppet apply exited with code 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("skipped")));
  std::ostringstream allowed;
  WriteCompletenessText(allowed, c, /*allow_failed=*/true, /*max_listed=*/3);
  EXPECT_THAT(allowed.str(), HasSubstr("--allow-failed: judged on its findings alone"));
  EXPECT_THAT(allowed.str(), HasSubstr("Exec[n2]"));
  EXPECT_THAT(allowed.str(), Not(HasSubstr("more")));

  // JSON lists every gap under its kind; only failures carry a message.
  nlohmann::json j = CompletenessToJson(c, true);
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["not_evaluated"].size(), 3u);
  EXPECT_FALSE(j["not_evaluated"][0].contains("message"));
  ASSERT_EQ(j["failed"].size(), 1u);
  EXPECT_EQ(j["failed"][0]["message"], "boom\nsecond line");
  EXPECT_EQ(j["skipped"].size(), 0u);
  EXPECT_EQ(j["allow_failed"], true);
  EXPECT_EQ(j["evaluated"], 6);
}

// What fails the run: findings not suppressed, not hidden, not fixed in place; with
// --fail-on confirmed only the confirmed ones; always the resources that are not idempotent.
TEST_F(FindingsReportTest, ReportedCountLeavesOutWhatDoesNotFailTheRun) {
  Add(FaultKind::kMissingOrdering, file, exec, "f0");
  Add(FaultKind::kMissingOrdering, exec, service, "f1").confidence = checker::Confidence::kLow;
  Add(FaultKind::kMissingNotifier, file, service, "f2").confirmation.confirmed = true;
  checker::Finding& fixed = Add(FaultKind::kMissingOrdering, service, file, "f3");
  fixed.patch.emplace();
  fixed.patch->applied = true;
  Add(FaultKind::kMissingOrdering, service, exec, "f4");
  gating::Suppressions sup;
  sup.findings.resize(5);
  sup.findings[4].kind = gating::SuppressionKind::kIgnoredPair;
  sup.by_pair = 1;
  FindingsContext c = Context(&sup);
  EXPECT_TRUE(c.IsHidden(1));
  EXPECT_FALSE(c.IsHidden(0));
  EXPECT_TRUE(c.IsSuppressed(4));
  EXPECT_EQ(c.ReportedCount(), 2u);  // f0, f2
  EXPECT_EQ(c.ReportedCount(/*confirmed_only=*/true), 1u);
  c.show_low = true;  // --all: low confidence counts too
  EXPECT_FALSE(c.IsHidden(1));
  EXPECT_EQ(c.ReportedCount(), 3u);
  RunSummary run;
  run.idempotence.resources.push_back({"Exec[use config]", "changes-every-apply", {}, {}});
  c.run = &run;
  EXPECT_EQ(c.ReportedCount(), 4u);
  EXPECT_EQ(c.ReportedCount(/*confirmed_only=*/true), 2u);
  // Without a result, only the resources that are not idempotent.
  c.result = nullptr;
  EXPECT_EQ(c.ReportedCount(), 1u);
}

TEST_F(FindingsReportTest, NoFindingsSayNothingWasFound) {
  std::string text = Text(Context());
  EXPECT_THAT(text, HasSubstr("No missing ordering relationships or notifiers found.\n"));
  EXPECT_THAT(text, HasSubstr("0 missing ordering relationships, 0 missing notifiers\n"));
  nlohmann::json j = FindingsToJson(Context());
  EXPECT_EQ(j["faults"].size(), 0u);
  EXPECT_EQ(j["summary"], nlohmann::json({{"MOR", 0}, {"MN", 0}, {"suppressed", 0}}));
  EXPECT_EQ(j["catalog"], "test.json");
  EXPECT_FALSE(j.contains("baseline"));
}

// Suppressed findings: a line each in text (in full with show_suppressed), under
// "suppressed" in JSON with their suppression, and not in the MOR/MN counts.
TEST_F(FindingsReportTest, SuppressedFindingsAreListedApart) {
  Add(FaultKind::kMissingOrdering, file, exec, std::string(32, 'a'));
  Add(FaultKind::kMissingNotifier, file, service, std::string(32, 'b'));
  gating::Suppressions sup;
  sup.findings.resize(2);
  sup.findings[1] = {gating::SuppressionKind::kBaseline, "in baseline base.json", true, "", 0};
  sup.by_baseline = 1;
  sup.baseline_name = "base.json";
  sup.absent.push_back({std::string(32, 'c'), "missing-ordering", "File[/x]", "Exec[y]"});
  std::string text = Text(Context(&sup));
  EXPECT_THAT(text, HasSubstr("Missing ordering relationship (MOR)"));
  EXPECT_THAT(text, Not(HasSubstr("Missing notifier (MN)")));
  EXPECT_THAT(text, HasSubstr("1 suppressed finding (1 in baseline base.json):\n"
                              "  MN File[/etc/app.conf] -> Service[app] [" +
                              std::string(32, 'b') + "]: in baseline base.json\n"));
  EXPECT_THAT(text, HasSubstr("1 baseline finding no longer found"));
  EXPECT_THAT(text, HasSubstr("  MOR File[/x] -> Exec[y] [" + std::string(32, 'c') + "]\n"));
  EXPECT_THAT(text, HasSubstr("1 missing ordering relationship, 0 missing notifiers, 1 "
                              "suppressed\n"));
  FindingsContext shown = Context(&sup);
  shown.show_suppressed = true;
  EXPECT_THAT(Text(shown), HasSubstr("Missing notifier (MN)"));
  EXPECT_THAT(Text(shown), HasSubstr("  suppressed (baseline): in baseline base.json\n"));

  nlohmann::json j = FindingsToJson(Context(&sup));
  ASSERT_EQ(j["faults"].size(), 1u);
  EXPECT_EQ(j["faults"][0]["kind"], "MOR");
  EXPECT_EQ(j["faults"][0]["fingerprint"], std::string(32, 'a'));
  ASSERT_EQ(j["suppressed"].size(), 1u);
  EXPECT_EQ(j["suppressed"][0]["kind"], "MN");
  EXPECT_EQ(j["suppressed"][0]["suppression"],
            nlohmann::json({{"kind", "baseline"}, {"justification", "in baseline base.json"}}));
  EXPECT_EQ(j["summary"], nlohmann::json({{"MOR", 1}, {"MN", 0}, {"suppressed", 1}}));
  EXPECT_EQ(j["baseline"]["file"], "base.json");
  EXPECT_EQ(j["baseline"]["absent"][0]["target"], "Exec[y]");
}

// Low-confidence findings are hidden from text without --all (and counted), never from
// JSON.
TEST_F(FindingsReportTest, LowConfidenceFindingsAreHiddenOnlyFromText) {
  Add(FaultKind::kMissingOrdering, file, exec, "f0").confidence = checker::Confidence::kLow;
  std::string text = Text(Context());
  EXPECT_THAT(text, Not(HasSubstr("Missing ordering relationship (MOR)")));
  EXPECT_THAT(text, HasSubstr("1 of low confidence hidden"));
  FindingsContext all = Context();
  all.show_low = true;
  EXPECT_THAT(Text(all), HasSubstr("Missing ordering relationship (MOR)"));
  EXPECT_THAT(Text(all), Not(HasSubstr("hidden")));
  EXPECT_EQ(FindingsToJson(Context())["faults"].size(), 1u);
}

}  // namespace
}  // namespace fsmove::report
