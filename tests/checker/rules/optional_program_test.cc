// The optional-program rule (src/checker/rules/optional_program.cc): what apt-key's clean-up
// runs only when gpgconf is installed, and everything gpgconf reads and runs meanwhile, is weak;
// the same program run by a resource itself, and what apt-key needs, keep their strength.
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

TEST(OptionalProgramRuleTest, WhatTheCallerRunsOnlyWhenInstalledIsWeak) {
  AnalysisBuilder run;
  run.Block("Package[gnupg]")
      .Writes("/usr/bin/gpgconf")
      .Writes("/usr/bin/gpg-connect-agent")
      .Writes("/usr/lib/x86_64-linux-gnu/libassuan.so.0")
      .Writes("/usr/bin/gpg");
  // apt-get update runs apt-key verify (pid 200); its clean-up forks 201 for gpgconf, which
  // forks 202 for gpg-connect-agent, which loads libassuan.
  run.Block("Exec[apt_update]").Execs(200, "/usr/bin/apt-key");
  run.By(200).LooksUp("/usr/bin/gpgconf").LooksUp("/usr/bin/gpg");
  run.Forks(200, 201).By(201).Runs("/usr/bin/gpgconf");
  run.Execs(201, "/usr/bin/gpgconf");
  run.Forks(201, 202).By(202).Runs("/usr/bin/gpg-connect-agent");
  run.Execs(202, "/usr/bin/gpg-connect-agent");
  run.By(202).Reads("/usr/lib/x86_64-linux-gnu/libassuan.so.0");
  // A resource that runs gpgconf itself needs it.
  run.Block("Exec[kill-agents]").Execs(300, "/bin/sh");
  run.Forks(300, 301).By(301).Runs("/usr/bin/gpgconf");
  run.Execs(301, "/usr/bin/gpgconf");
  RuleHarness h({{"Package", "gnupg"},
                 {"Exec", "apt_update", {{"command", "/usr/bin/apt-get update"}}},
                 {"Exec", "kill-agents", {{"command", "gpgconf --kill all"}}}},
                run);
  auto strength = [&](std::string_view consumer, std::string_view path) {
    return h.MaxStrength("optional-program", checker::kOrderingEvidence, "Package[gnupg]", consumer,
                         path);
  };
  EXPECT_EQ(strength("Exec[apt_update]", "/usr/bin/gpgconf"), 1);
  EXPECT_EQ(strength("Exec[apt_update]", "/usr/bin/gpg-connect-agent"), 1);
  EXPECT_EQ(strength("Exec[apt_update]", "/usr/lib/x86_64-linux-gnu/libassuan.so.0"), 1);
  // apt-key's own lookup of gpg: no row says apt-key does without it.
  EXPECT_EQ(strength("Exec[apt_update]", "/usr/bin/gpg"), kStrongest);
  EXPECT_EQ(strength("Exec[kill-agents]", "/usr/bin/gpgconf"), kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
