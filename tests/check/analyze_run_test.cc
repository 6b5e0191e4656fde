// `fsmove analyze` without the command line: check::Analyze on a recorded trace of traces/, with
// its catalog (the findings, reported as a check reports them) and without (the relations),
// and the outputs it refuses before reading anything.
#include "fsmove/check/analyze_run.h"

#include <filesystem>
#include <string>

#include "capturing_sink.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fsmove::check {
namespace {

namespace fs = std::filesystem;

const fs::path kTrace = fs::path(FSMOVE_SOURCE_DIR) / "traces" / "faults-configure-use-bad";

AnalyzeRequest Recorded(bool with_catalog) {
  AnalyzeRequest r;
  r.trace = (kTrace / "trace.zst").string();
  if (with_catalog) r.catalog = (kTrace / "catalog.json").string();
  r.threads = 1;
  return r;
}

TEST(AnalyzeRunTest, ReportsTheFindingsOfARecordedRunWithoutTheCommandLine) {
  pipeline::ReportSettings report;
  report.format = "json";
  CapturingSink sink;
  const Outcome outcome = Analyze(Recorded(true), report, sink);
  EXPECT_EQ(outcome.exit_code, kExitFindings) << sink.said;
  ASSERT_TRUE(outcome.verdict);
  EXPECT_EQ(*outcome.verdict, pipeline::Verdict::kFindings);
  const nlohmann::json j = nlohmann::json::parse(sink.report());
  ASSERT_EQ(j.at("faults").size(), 1u) << sink.report();
  EXPECT_EQ(j["faults"][0]["kind"], "MOR");
  EXPECT_EQ(j["faults"][0]["source"]["resource"], "File[/etc/app/app.conf]");
  EXPECT_EQ(j["faults"][0]["target"]["resource"], "Exec[use config]");
}

TEST(AnalyzeRunTest, WithoutACatalogReportsTheRelations) {
  pipeline::ReportSettings report;
  report.format = "json";
  CapturingSink sink;
  const Outcome outcome = Analyze(Recorded(false), report, sink);
  EXPECT_EQ(outcome.exit_code, kExitOk) << sink.said;
  EXPECT_FALSE(outcome.verdict);
  const nlohmann::json j = nlohmann::json::parse(sink.report());
  EXPECT_FALSE(j.at("relations").empty());
  EXPECT_GT(j.at("stats").at("lines").get<uint64_t>(), 0u) << j["stats"].dump();
}

TEST(AnalyzeRunTest, RefusesAnOutputThatIsAnInputBeforeReadingIt) {
  pipeline::ReportSettings report;
  report.format = "json";
  report.output = (kTrace / "catalog.json").string();
  CapturingSink sink;
  const Outcome outcome = Analyze(Recorded(true), report, sink);
  EXPECT_EQ(outcome.exit_code, kExitError);
  EXPECT_NE(sink.said.find("is also an input"), std::string::npos) << sink.said;
  EXPECT_TRUE(sink.report().empty());
}

TEST(AnalyzeRunTest, AMissingTraceIsAnErrorNamingIt) {
  AnalyzeRequest r = Recorded(false);
  r.trace = "/nonexistent/trace.zst";
  CapturingSink sink;
  EXPECT_EQ(Analyze(r, pipeline::ReportSettings{}, sink).exit_code, kExitError);
  EXPECT_NE(sink.said.find("/nonexistent/trace.zst"), std::string::npos) << sink.said;
}

}  // namespace
}  // namespace fsmove::check
