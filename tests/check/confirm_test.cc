// --confirm's replay of a missing ordering forces the order the other way round from the
// check's run: the target first, or the source first when the run applied them in reverse.
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

}  // namespace
}  // namespace fsmove::check
