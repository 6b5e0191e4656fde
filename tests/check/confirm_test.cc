// --confirm's replay of a missing ordering forces the order the other way round from the
// check's run: the target first, or the source first when the run applied them in reverse; it
// confirms only a different outcome that the catalog's own order does not vary on.
#include "fsmove/check/confirm.h"

#include "gtest/gtest.h"

namespace fsmove::check {
namespace {

TEST(ConfirmTest, TheReplayForcesTheOrderTheRunDidNotTake) {
  auto cat = catalog::Catalog::LoadString(
      R"({"resources": [{"type": "Exec", "title": "generate"},
                        {"type": "File", "title": "/etc/app-release"}]})",
      "catalog.json");
  ASSERT_TRUE(cat.ok()) << cat.status();
  checker::Finding f;
  f.kind = checker::FaultKind::kMissingOrdering;
  f.source = *cat->Find("Exec", "generate");
  f.target = *cat->Find("File", "/etc/app-release");
  const ForcedOrder usual = OrderToForce(f, *cat);
  EXPECT_EQ(usual.first.ref, "File[/etc/app-release]");
  EXPECT_EQ(usual.second.ref, "Exec[generate]");

  f.applied_in_reverse = true;
  const ForcedOrder reversed = OrderToForce(f, *cat);
  EXPECT_EQ(reversed.first.ref, "Exec[generate]");
  EXPECT_EQ(reversed.second.ref, "File[/etc/app-release]");
}

// Findings 0..n-1 of a result, each a MOR with an attempted replay.
checker::CheckResult Attempted(size_t n) {
  checker::CheckResult result;
  result.findings.resize(n);
  for (checker::Finding& f : result.findings) f.confirmation.attempted = true;
  return result;
}

const exec::ReplayDifference kFailed{"Exec[use]", "Exec[use] failed: cat: /etc/a: No such file",
                                     true};
const exec::ReplayDifference kMessage{
    "File[/var/log/app.log]",
    "File[/var/log/app.log] changed owner, mode (with the catalog's order: ensure)", false};
const exec::ReplayDifference kStamp{
    "/etc/stamp", "/etc/stamp: file 0644 0:0, 11 bytes, sha256 ab (with the catalog's order: ...)",
    true};

TEST(ConfirmTest, OnlyADifferentOutcomeConfirms) {
  checker::CheckResult result = Attempted(3);
  JudgeOrderComparisons({{0, {kMessage, kFailed}}, {1, {kMessage}}, {2, {}}}, {}, "", &result);
  const checker::Confirmation& failed = result.findings[0].confirmation;
  EXPECT_TRUE(failed.confirmed);
  EXPECT_FALSE(failed.inconclusive);
  // The outcome first, Puppet's messages after it.
  EXPECT_EQ(failed.differences, (std::vector<std::string>{kFailed.text, kMessage.text}));
  // The same end state reached with other messages ("ensure created" against "owner, mode
  // changed"): not confirmed, and the reason says so.
  const checker::Confirmation& messages = result.findings[1].confirmation;
  EXPECT_FALSE(messages.confirmed);
  EXPECT_FALSE(messages.inconclusive);
  EXPECT_EQ(messages.differences, std::vector<std::string>{kMessage.text});
  EXPECT_NE(messages.reason.find("only Puppet's messages differ"), std::string::npos);
  const checker::Confirmation& same = result.findings[2].confirmation;
  EXPECT_FALSE(same.confirmed);
  EXPECT_NE(same.reason.find("no visible difference"), std::string::npos);
}

TEST(ConfirmTest, WhatTheCatalogsOwnOrderVariesOnConfirmsNothing) {
  checker::CheckResult result = Attempted(2);
  // /etc/stamp ended differently between two applies in the catalog's order (a timestamp).
  JudgeOrderComparisons({{0, {kStamp}}, {1, {kStamp, kFailed}}}, {"/etc/stamp"}, "", &result);
  const checker::Confirmation& stamp = result.findings[0].confirmation;
  EXPECT_FALSE(stamp.confirmed);
  EXPECT_NE(stamp.reason.find("not the order's doing"), std::string::npos);
  ASSERT_EQ(stamp.differences.size(), 1u);
  EXPECT_NE(stamp.differences[0].find("differs between two applies in the catalog's order too"),
            std::string::npos);
  // A failure the reference never shows still confirms beside it.
  EXPECT_TRUE(result.findings[1].confirmation.confirmed);
  EXPECT_EQ(result.findings[1].confirmation.differences.front(), kFailed.text);
}

TEST(ConfirmTest, WithoutTheSecondReferenceAnOutcomeIsInconclusive) {
  checker::CheckResult result = Attempted(2);
  JudgeOrderComparisons({{0, {kFailed}}, {1, {kMessage}}}, {}, "the replay timed out (--timeout)",
                        &result);
  const checker::Confirmation& c = result.findings[0].confirmation;
  EXPECT_FALSE(c.confirmed);
  EXPECT_TRUE(c.inconclusive);
  EXPECT_NE(c.reason.find("the replay timed out"), std::string::npos);
  // Nothing to confirm there anyway: judged as usual.
  EXPECT_FALSE(result.findings[1].confirmation.inconclusive);
}

}  // namespace
}  // namespace fsmove::check
