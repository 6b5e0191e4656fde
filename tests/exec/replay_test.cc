#include "fsmove/exec/replay.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;

constexpr std::string_view kCatalog = R"({"resources": [
  {"type": "File", "title": "/etc/a", "parameters": {"content": "x"}},
  {"type": "Exec", "title": "use", "parameters": {"require": "File[/etc/b]"}},
  {"type": "Exec", "title": "other"}
], "edges": []})";

TEST(ForceOrder, AddsToRequireWhateverShapeItHas) {
  auto forced = ForceOrder(kCatalog, 0, "Exec[use]");
  ASSERT_TRUE(forced.ok()) << forced.status();
  nlohmann::json j = nlohmann::json::parse(*forced);
  EXPECT_EQ(j["resources"][0]["parameters"]["require"], "Exec[use]");
  EXPECT_EQ(j["resources"][0]["parameters"]["content"], "x");

  forced = ForceOrder(kCatalog, 1, "File[/etc/a]");
  ASSERT_TRUE(forced.ok());
  j = nlohmann::json::parse(*forced);
  EXPECT_EQ(j["resources"][1]["parameters"]["require"],
            nlohmann::json::array({"File[/etc/b]", "File[/etc/a]"}));

  forced = ForceOrder(kCatalog, 2, "File[/etc/a]");  // no parameters at all
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(nlohmann::json::parse(*forced)["resources"][2]["parameters"]["require"], "File[/etc/a]");
}

TEST(ForceOrder, RefusesWhatIsNotACatalog) {
  EXPECT_FALSE(ForceOrder("[1]", 0, "File[/a]").ok());
  EXPECT_FALSE(ForceOrder("not json", 0, "File[/a]").ok());
  EXPECT_FALSE(ForceOrder(kCatalog, 3, "File[/a]").ok());
}

RunResult Replay(std::string_view log, std::vector<PathState> probes = {}) {
  RunResult r;
  r.outcomes = ParseApplyOutcomes(log);
  r.probes = std::move(probes);
  return r;
}

TEST(ReplayDifferences, FailuresSkipsChangesAndPaths) {
  PathState conf;
  conf.path = "/etc/a";
  conf.exists = true;
  conf.type = "file";
  conf.mode = 0644;
  conf.sha256 = "ab12";
  PathState gone;
  gone.path = "/etc/a";
  RunResult reference = Replay(
      "Notice: /Stage[main]/Main/File[/etc/a]/ensure: defined content as '{sha256}1'\n"
      "Notice: /Stage[main]/Main/Exec[use]/returns: executed successfully\n"
      "Notice: /Stage[main]/Main/Exec[same]/returns: executed successfully\n",
      {conf});
  RunResult forced = Replay(
      "Error: /Stage[main]/Main/Exec[use]/returns: change from 'notrun' to ['0'] failed: cat: "
      "/etc/a: No such file or directory\n"
      "Warning: /Stage[main]/Main/File[/etc/a]: Skipping because of failed dependencies\n"
      "Notice: /Stage[main]/Main/Exec[same]/returns: executed successfully\n",
      {gone});
  EXPECT_THAT(ReplayDifferences(reference, forced),
              ElementsAre(HasSubstr("Exec[use] failed: change from 'notrun'"),
                          "File[/etc/a] was skipped: its dependencies failed",
                          "/etc/a: absent (with the catalog's order: file 0644 0:0, 0 bytes, sha256 ab12)"));
  // The same outcomes, and messages that differ only in what they say: no difference.
  RunResult again = Replay(
      "Notice: /Stage[main]/Main/File[/etc/a]/ensure: defined content as '{sha256}2'\n"
      "Notice: /Stage[main]/Main/Exec[use]/returns: executed successfully\n"
      "Notice: /Stage[main]/Main/Exec[same]/returns: executed successfully\n",
      {conf});
  EXPECT_TRUE(ReplayDifferences(reference, again).empty());
}

TEST(ReplayRan, DependencyCycleAndFailuresAreNotProof) {
  std::string why;
  RunResult r = Replay("Error: Found 1 dependency cycle:\n");
  EXPECT_FALSE(ReplayRan(r, &why));
  EXPECT_THAT(why, HasSubstr("dependency cycle"));
  r = Replay("");
  EXPECT_TRUE(ReplayRan(r, &why));
  r.end = RunEnd::kTimedOut;
  EXPECT_FALSE(ReplayRan(r, &why));
}

}  // namespace
}  // namespace fsmove::exec
