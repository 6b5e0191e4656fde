// The conffile-kept rule (src/checker/rules/conffile_kept.cc): dpkg read a conffile another
// resource wrote first, and parked its own version beside it (FILE.dpkg-dist).
#include <gtest/gtest.h>

#include "rule_harness.h"

namespace fsmove::testing {
namespace {

using checker::kStrongest;

std::vector<TestResource> Resources() {
  return {{"File", "/etc/default/knockd"}, {"Package", "knockd"}, {"Exec", "use"}};
}

// File writes the path; the Package's dpkg reads it, then renames its own version aside
// (`parked`: FILE.dpkg-dist, FILE.ucf-dist, or nothing: dpkg overwrote nothing it kept).
AnalysisBuilder Install(std::string_view parked) {
  AnalysisBuilder run;
  run.Block("File[/etc/default/knockd]").Writes("/etc/default/knockd");
  run.Block("Package[knockd]").Reads("/etc/default/knockd");
  if (!parked.empty()) {
    run.Block("Package[knockd]")
        .Renames("/etc/default/knockd.dpkg-new",
                 std::string("/etc/default/knockd") + std::string(parked));
  }
  run.Block("Exec[use]").Reads("/etc/default/knockd");
  return run;
}

TEST(ConffileKeptRuleTest, APackageThatKeptTheFileItFoundDoesNotNeedItsWriter) {
  for (std::string_view suffix : {".dpkg-dist", ".ucf-dist"}) {
    RuleHarness h(Resources(), Install(suffix));
    EXPECT_EQ(h.MaxStrength("conffile-kept", checker::kOrderingEvidence,
                            "File[/etc/default/knockd]", "Package[knockd]", "/etc/default/knockd"),
              0)
        << suffix;
    // Another consumer of the file is not the package manager: it needs the writer.
    EXPECT_EQ(h.MaxStrength("conffile-kept", checker::kOrderingEvidence,
                            "File[/etc/default/knockd]", "Exec[use]", "/etc/default/knockd"),
              kStrongest);
  }
}

TEST(ConffileKeptRuleTest, APackageThatParkedNothingReadTheFileForItself) {
  RuleHarness h(Resources(), Install(""));
  EXPECT_EQ(h.MaxStrength("conffile-kept", checker::kOrderingEvidence, "File[/etc/default/knockd]",
                          "Package[knockd]", "/etc/default/knockd"),
            kStrongest);
  // .dpkg-old is dpkg replacing the file with the package's (--force-confnew): not kept.
  RuleHarness replaced(Resources(), Install(".dpkg-old"));
  EXPECT_EQ(
      replaced.MaxStrength("conffile-kept", checker::kOrderingEvidence, "File[/etc/default/knockd]",
                           "Package[knockd]", "/etc/default/knockd"),
      kStrongest);
}

}  // namespace
}  // namespace fsmove::testing
