// JUnit XML: escaping (markup, line breaks, what XML 1.0 cannot hold) and the testcase
// mapping on real runs. tests/ci/junit_test.py parses the real output with an XML parser.
#include "fsmove/report/junit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "fmt/format.h"
#include "recorded_check.h"

namespace fsmove::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(JunitTest, XmlEscape) {
  EXPECT_EQ(report::XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(report::XmlEscape("line\nnext\ttab\r"), "line&#10;next&#9;tab&#13;");
  EXPECT_EQ(report::XmlEscape("caf\xC3\xA9 \xF0\x9F\x90\xA7"), "caf\xC3\xA9 \xF0\x9F\x90\xA7");
  // Not XML 1.0 characters: C0 controls, invalid UTF-8, surrogates, U+FFFE.
  EXPECT_EQ(report::XmlEscape(std::string("a\0b\x1b", 4)),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(report::XmlEscape("\xC3"), "\xEF\xBF\xBD");
  EXPECT_EQ(report::XmlEscape("\xFF"
                              "x"),
            "\xEF\xBF\xBDx");
  EXPECT_EQ(report::XmlEscape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(report::XmlEscape("\xEF\xBF\xBE"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(report::XmlEscape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
}

TEST(JunitTest, OneCasePerCheckedResourceFailureOnTheTarget) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  ASSERT_EQ(run.result.findings.size(), 1u);
  std::ostringstream out;
  report::WriteFindingsJunit(out, run.Context(), {});
  std::string xml = out.str();
  size_t cases = run.result.stats.checked_resources.size();
  ASSERT_GE(cases, 2u);
  EXPECT_THAT(
      xml, HasSubstr(fmt::format("tests=\"{}\" failures=\"1\" errors=\"0\" skipped=\"0\"", cases)));
  EXPECT_THAT(xml, HasSubstr("name=\"Exec[use config]\" time=\"0\">\n      <failure "
                             "type=\"missing-ordering\" message=\"Exec[use config] must be "
                             "applied after File[/etc/app/app.conf]\">"));
  EXPECT_THAT(xml, HasSubstr("name=\"File[/etc/app/app.conf]\" time=\"0\"/>"));
  EXPECT_THAT(xml, HasSubstr("fix: add `require =&gt; File[&apos;/etc/app/app.conf&apos;]`"));
  EXPECT_THAT(xml, HasSubstr("fingerprint: " + run.result.findings[0].fingerprint));
}

TEST(JunitTest, SuppressedOnlyCasesAreSkipped) {
  RecordedCheck run = CheckRecorded("faults-configure-use-bad");
  ASSERT_TRUE(run.catalog);
  auto config = checker::ParseProjectConfig(
      R"({"ignore_pairs": [{"source": "File[/etc/app/app.conf]", "target": "Exec[use config]",
          "reason": "the exec <tolerates> a missing file"}]})",
      "p.json");
  ASSERT_TRUE(config.ok());
  gating::Suppressions s = gating::Suppress(run.result, *run.catalog, *config, nullptr);
  std::ostringstream out;
  report::WriteFindingsJunit(out, run.Context(&s), {});
  std::string xml = out.str();
  EXPECT_THAT(xml, HasSubstr("failures=\"0\" errors=\"0\" skipped=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"Exec[use config] must be applied after "
                             "File[/etc/app/app.conf] suppressed: the exec &lt;tolerates&gt; a "
                             "missing file\"/>"));
  EXPECT_THAT(xml, Not(HasSubstr("<failure")));
}

}  // namespace
}  // namespace fsmove::testing
