// Puppet's version ranges as metadata.json writes them (semantic_puppet's VersionRange).
#include "fsmove/exec/version_range.h"

#include <string>

#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

bool In(const std::string& range, const std::string& version) {
  absl::StatusOr<VersionRange> r = VersionRange::Parse(range);
  EXPECT_TRUE(r.ok()) << range << ": " << r.status();
  absl::StatusOr<SemVer> v = ParseSemVer(version);
  EXPECT_TRUE(v.ok()) << version;
  return r.ok() && v.ok() && r->Contains(*v);
}

TEST(VersionRangeTest, ComparisonsAndTheirConjunction) {
  EXPECT_TRUE(In(">= 7.0.0 < 9.0.0", "7.23.0"));
  EXPECT_TRUE(In(">= 7.0.0 < 9.0.0", "8.10.0"));
  EXPECT_FALSE(In(">= 7.0.0 < 9.0.0", "9.0.0"));
  EXPECT_FALSE(In(">= 7.0.0 < 9.0.0", "6.28.0"));
  EXPECT_TRUE(In(">=8.0.0 <9.0.0", "8.10.0"));
  EXPECT_FALSE(In(">=8.0.0 <9.0.0", "7.23.0"));
  EXPECT_TRUE(In(">6.0.0", "6.0.1"));
  EXPECT_FALSE(In(">6.0.0", "6.0.0"));
  EXPECT_TRUE(In("<=7.23.0", "7.23.0"));
  EXPECT_TRUE(In("=7.23.0", "7.23.0"));
  EXPECT_TRUE(In("7.23.0", "7.23.0"));
  EXPECT_FALSE(In("7.23.0", "7.23.1"));
}

// A partial version is its prefix: its first version with >= and <, past its last with >
// and <=.
TEST(VersionRangeTest, PartialVersionsAndWildcards) {
  EXPECT_TRUE(In("7.x", "7.23.0"));
  EXPECT_FALSE(In("7.x", "8.0.0"));
  EXPECT_TRUE(In("7", "7.0.0"));
  EXPECT_TRUE(In("8.10.x", "8.10.4"));
  EXPECT_FALSE(In("8.10.x", "8.11.0"));
  EXPECT_TRUE(In("*", "1.0.0"));
  EXPECT_TRUE(In(">= 7 < 9", "8.10.0"));
  EXPECT_FALSE(In(">7", "7.99.0"));
  EXPECT_TRUE(In(">7", "8.0.0"));
  EXPECT_TRUE(In("<=8", "8.10.0"));
  EXPECT_FALSE(In("<8", "8.0.0"));
  EXPECT_TRUE(In("<8.1", "8.0.9"));
  EXPECT_FALSE(In(">*", "1.0.0"));
}

TEST(VersionRangeTest, TildeCaretHyphenAndAlternatives) {
  EXPECT_TRUE(In("~7.23.0", "7.23.5"));
  EXPECT_FALSE(In("~7.23.0", "7.24.0"));
  EXPECT_TRUE(In("~>7.2", "7.2.9"));
  EXPECT_TRUE(In("~7", "7.99.0"));
  EXPECT_TRUE(In("^7.2.0", "7.23.0"));
  EXPECT_FALSE(In("^7.2.0", "8.0.0"));
  EXPECT_TRUE(In("^0.2.1", "0.2.5"));
  EXPECT_FALSE(In("^0.2.1", "0.3.0"));
  EXPECT_TRUE(In("7.0.0 - 8", "8.10.0"));
  EXPECT_FALSE(In("7.0.0 - 8", "9.0.0"));
  EXPECT_TRUE(In("7.0.0 - 8.1.0", "8.1.0"));
  EXPECT_TRUE(In("6.x || >= 8.0.0", "8.10.0"));
  EXPECT_FALSE(In("6.x || >= 8.0.0", "7.23.0"));
}

TEST(VersionRangeTest, PreReleasesComeBeforeTheirRelease) {
  EXPECT_FALSE(In(">= 8.0.0", "8.0.0-rc1"));
  EXPECT_TRUE(In(">= 7.0.0", "8.0.0-rc1"));
  EXPECT_LT(*ParseSemVer("8.0.0-rc1"), *ParseSemVer("8.0.0"));
  EXPECT_LT(*ParseSemVer("8.0.0-rc1"), *ParseSemVer("8.0.0-rc2"));
}

TEST(VersionRangeTest, BadRangesSayWhatCouldNotBeRead) {
  for (const char* bad : {"", "   ", ">= seven", "1.x.3", "1.2.3.4", ">= 7 ||", "7 -", "a - b"}) {
    absl::StatusOr<VersionRange> r = VersionRange::Parse(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "'";
  }
  absl::StatusOr<VersionRange> r = VersionRange::Parse(">= seven < 9");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(">= seven < 9"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("seven"), std::string::npos);
  EXPECT_FALSE(ParseSemVer("7.23").ok());
}

TEST(VersionRangeTest, ADebianVersionIsItsUpstreamPart) {
  EXPECT_EQ(DebianUpstreamVersion("8.10.0-5+deb13u1").Text(), "8.10.0");
  EXPECT_EQ(DebianUpstreamVersion("7.23.0-1").Text(), "7.23.0");
  EXPECT_EQ(DebianUpstreamVersion("1:7.23.0-1").Text(), "7.23.0");
  EXPECT_EQ(DebianUpstreamVersion("8.4.0~rc1-2").Text(), "8.4.0");
}

}  // namespace
}  // namespace fsmove::exec
