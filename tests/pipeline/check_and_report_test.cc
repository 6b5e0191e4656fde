// The check pipeline's last stage without a process: a recorded trace and its catalog through
// graph, checker, suppressions and the report files.
#include "fsmove/pipeline/check_and_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fsmove/strace/line_reader.h"
#include "nlohmann/json.hpp"

namespace fsmove::pipeline {
namespace {

namespace fs = std::filesystem;

// traces/faults-configure-use-bad: one MOR, File[/etc/app/app.conf] -> Exec[use config].
class CheckAndReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path dir = fs::path(FSMOVE_SOURCE_DIR) / "traces" / "faults-configure-use-bad";
    auto cat = catalog::Catalog::LoadFile((dir / "catalog.json").string());
    ASSERT_TRUE(cat.ok()) << cat.status();
    cat_.emplace(std::move(*cat));
    auto reader = strace::LineReader::Open((dir / "trace.zst").string());
    ASSERT_TRUE(reader.ok()) << reader.status();
    ASSERT_TRUE(analyzer_.Run(**reader).ok());
    ctx_.trace_name = "trace.zst";
    ctx_.analyzer = &analyzer_;
    tmp_ = fs::temp_directory_path() /
           ("fsmove-pipeline-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(tmp_);
    io_.stdout_stream = &out_;
    // Warnings and what was done (Info) apart; nothing else is said.
    io_.say = [this](const base::Diagnostic& d) {
      ASSERT_TRUE(d.severity == base::Diagnostic::Severity::kWarning ||
                  d.severity == base::Diagnostic::Severity::kInfo);
      (d.severity == base::Diagnostic::Severity::kWarning ? warnings_ : notes_).push_back(d.text);
    };
  }
  void TearDown() override { fs::remove_all(tmp_); }

  absl::StatusOr<Verdict> Run(const ReportSettings& s, const ProjectInputs& project = {},
                              const PuppetGraphInput* graph = nullptr,
                              const BeforeReport& before = nullptr) {
    return CheckAndReport(s, project, *cat_, ctx_, io_, graph, before);
  }
  static std::string Read(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }

  std::optional<catalog::Catalog> cat_;
  analysis::Analyzer analyzer_;
  report::FindingsContext ctx_;
  fs::path tmp_;
  std::ostringstream out_;
  PipelineIo io_;
  std::vector<std::string> warnings_, notes_;
};

TEST_F(CheckAndReportTest, ReportsTheFindingOnTheStream) {
  ReportSettings s;
  s.format = "json";
  auto verdict = Run(s);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(*verdict, Verdict::kFindings);
  auto j = nlohmann::json::parse(out_.str());
  ASSERT_EQ(j["faults"].size(), 1u);
  EXPECT_EQ(j["faults"][0]["kind"], "MOR");
  EXPECT_EQ(j["faults"][0]["source"]["resource"], "File[/etc/app/app.conf]");
  EXPECT_EQ(j["faults"][0]["target"]["resource"], "Exec[use config]");
}

TEST_F(CheckAndReportTest, WritesEveryReportAndABaselineThatSuppressesItNextTime) {
  ReportSettings s;
  s.output = (tmp_ / "report.txt").string();
  s.json_output = (tmp_ / "report.json").string();
  s.sarif_output = (tmp_ / "report.sarif").string();
  s.junit_output = (tmp_ / "report.xml").string();
  s.write_baseline = (tmp_ / "baseline.json").string();
  ASSERT_EQ(*Run(s), Verdict::kFindings);
  EXPECT_TRUE(out_.str().empty()) << "a report went to standard output";
  EXPECT_NE(Read(tmp_ / "report.txt").find("Exec[use config]"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(Read(tmp_ / "report.json"))["faults"].size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(Read(tmp_ / "report.sarif"))["version"], "2.1.0");
  EXPECT_NE(Read(tmp_ / "report.xml").find("<testsuites"), std::string::npos);
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_EQ(notes_[0], "wrote 1 finding to baseline " + s.write_baseline);

  auto project = LoadProjectInputs("", "", s.write_baseline);
  ASSERT_TRUE(project.ok()) << project.status();
  ReportSettings again;
  EXPECT_EQ(*Run(again, *project), Verdict::kClean);
}

TEST_F(CheckAndReportTest, IgnoredResourceMakesItClean) {
  ReportSettings s;
  s.check.ignore_resources.push_back("Exec[use config]");
  EXPECT_EQ(*Run(s), Verdict::kClean);
}

TEST_F(CheckAndReportTest, FailOnConfirmedCountsOnlyConfirmedFindings) {
  ReportSettings s;
  s.fail_on = "confirmed";
  EXPECT_EQ(*Run(s), Verdict::kClean);
  bool replayed = false;
  auto confirm = [&](const report::FindingsContext&, checker::CheckResult* result) {
    replayed = true;
    ASSERT_EQ(result->findings.size(), 1u);
    result->findings[0].confirmation.attempted = true;
    result->findings[0].confirmation.confirmed = true;
  };
  EXPECT_EQ(*Run(s, {}, nullptr, confirm), Verdict::kFindings);
  EXPECT_TRUE(replayed);
}

TEST_F(CheckAndReportTest, AnUnwritableReportFailsBeforeTheCheck) {
  ReportSettings s;
  s.sarif_output = (tmp_ / "no-such-dir" / "report.sarif").string();
  bool checked = false;
  auto verdict = Run(s, {}, nullptr, [&](auto&, auto*) { checked = true; });
  ASSERT_FALSE(verdict.ok());
  EXPECT_NE(verdict.status().message().find("no-such-dir"), std::string::npos) << verdict.status();
  EXPECT_FALSE(checked);
  EXPECT_TRUE(out_.str().empty());
}

TEST_F(CheckAndReportTest, ABadPuppetGraphFailsOnlyWhenRequired) {
  PuppetGraphInput graph{"graph.dot", "this is not a dot graph", /*required=*/true};
  ReportSettings s;
  EXPECT_FALSE(Run(s, {}, &graph).ok());
  graph.required = false;
  auto verdict = Run(s, {}, &graph);
  ASSERT_TRUE(verdict.ok()) << verdict.status();
  EXPECT_EQ(*verdict, Verdict::kFindings);
  ASSERT_FALSE(warnings_.empty());
  EXPECT_NE(warnings_[0].find("checking against fsmove's model of the catalog instead"),
            std::string::npos)
      << warnings_[0];
}

TEST_F(CheckAndReportTest, ProjectInputsNameTheBadFile) {
  const fs::path config = tmp_ / "fsmove.json";
  std::ofstream(config) << "{\"ignore_paths\": 3}";
  auto project = LoadProjectInputs(config.string(), "", "");
  ASSERT_FALSE(project.ok());
  EXPECT_NE(project.status().message().find(config.string()), std::string::npos)
      << project.status();
  auto missing = LoadProjectInputs("", "", (tmp_ / "missing.json").string());
  EXPECT_FALSE(missing.ok());
  // A project directory without .fsmove.json: an empty configuration.
  EXPECT_TRUE(LoadProjectInputs("", tmp_.string(), "").ok());
}

TEST(TraceWarningsTest, NoMarkersIsAWarningOrWithStrictAnError) {
  analysis::Analyzer analyzer;
  std::vector<std::string> warnings;
  base::DiagnosticSink warn = [&](const base::Diagnostic& d) {
    EXPECT_EQ(d.severity, base::Diagnostic::Severity::kWarning);
    warnings.push_back(d.text);
  };
  EXPECT_TRUE(TraceWarnings(false, analyzer, "t.strace", true, warn).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("t.strace has no Puppet evaltrace markers"), std::string::npos);
  absl::Status strict = TraceWarnings(true, analyzer, "t.strace", true, warn);
  EXPECT_FALSE(strict.ok());
  EXPECT_EQ(warnings.size(), 1u);
  // A run stopped before its first resource: said so, never an error.
  warnings.clear();
  EXPECT_TRUE(TraceWarnings(true, analyzer, "t.strace", false, warn).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("stopped before it applied its first resource"), std::string::npos);
}

}  // namespace
}  // namespace fsmove::pipeline
