// The check pipeline without the command line: check::Run on a recorded run (a trace and its
// catalog from traces/, Puppet's graph from tests/data/puppet-graphs), through a Machine that
// replays it instead of running Puppet. Shows the findings, the verdict and exit code, what is
// said, the work directory's fate and the ends before a report.
#include "fsmove/check/check_run.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "capturing_sink.h"
#include "fsmove/strace/line_reader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fsmove::check {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

// A run recorded under traces/NAME, replayed: the trace into the analyzer, the catalog as the
// run's, Puppet's graph when tests/data/puppet-graphs has one. Its work directory is a fresh
// temporary directory, which the check removes or keeps.
class RecordedMachine : public Machine {
 public:
  explicit RecordedMachine(std::string name) : name_(std::move(name)) {}

  absl::Status Prepare(const std::string& root, exec::CheckRequest* request, Sink&) override {
    prepared_root = root;
    if (!refuse.ok()) return refuse;
    request->root = {"host", "/", "7.23.0"};
    return absl::OkStatus();
  }

  absl::StatusOr<exec::RunResult> RunTraced(const exec::CheckRequest& request, bool,
                                            analysis::Analyzer& analyzer) override {
    exec::RunResult run;
    std::string work = (fs::temp_directory_path() / "fsmove-check-run-test-XXXXXX").string();
    if (mkdtemp(work.data()) == nullptr) return absl::InternalError("mkdtemp");
    run.work_dir = work_dir = work;
    run.end = end;
    run.compile_log = "Error: Could not find class ::nosuch";
    run.summary.target = request.target.path;
    run.summary.sandbox = "overlay";
    run.summary.root = "host";
    run.summary.init = request.init;
    inits.push_back(request.init);
    work_dirs.push_back(work);
    if (unit_only_service && request.init == "none") {
      run.summary.failed.push_back(
          {"Service[app]", "Could not find init script for 'app' (a systemd unit only)"});
    }
    if (end != exec::RunEnd::kApplied) return run;
    const fs::path dir = fs::path(FSMOVE_SOURCE_DIR) / "traces" / name_;
    auto reader = strace::LineReader::Open((dir / "trace.zst").string());
    if (!reader.ok()) return reader.status();
    if (absl::Status st = analyzer.Run(**reader); !st.ok()) return st;
    run.catalog_path = (dir / "catalog.json").string();
    run.catalog_text = ReadText(dir / "catalog.json");
    const fs::path dot = fs::path(FSMOVE_SOURCE_DIR) / "tests" / "data" / "puppet-graphs" /
                         (name_ + ".expanded.dot");
    if (with_graph) {
      run.puppet_graph = ReadText(dot);
      run.puppet_graph_path = dot.string();
    } else {
      run.puppet_graph_note = "none written";
    }
    return run;
  }

  absl::Status refuse = absl::OkStatus();
  exec::RunEnd end = exec::RunEnd::kApplied;
  bool with_graph = true;
  std::string prepared_root;
  std::string work_dir;
  // Without systemd as PID 1, a Service of the run fails for want of an init script.
  bool unit_only_service = false;
  std::vector<std::string> inits;      // of each run made
  std::vector<std::string> work_dirs;  // of each run made

 private:
  std::string name_;
};

Request RequestFor(const std::string& name) {
  Request r;
  r.run.target.path = "fixtures/faults/" + name;
  r.root = "host";
  return r;
}

// The resource pairs of a JSON report's findings: "MOR Exec[a] -> Exec[b]".
std::vector<std::string> Pairs(const std::string& json_report) {
  std::vector<std::string> pairs;
  const nlohmann::json j = nlohmann::json::parse(json_report);
  for (const nlohmann::json& f : j.at("faults")) {
    pairs.push_back(f.at("kind").get<std::string>() + " " +
                    f.at("source").at("resource").get<std::string>() + " -> " +
                    f.at("target").at("resource").get<std::string>());
  }
  return pairs;
}

TEST(CheckRunTest, RunsTheCheckPipelineWithoutTheCommandLine) {
  RecordedMachine machine("faults-generate-use-bad");
  Settings settings;
  settings.report.format = "json";
  settings.machine = &machine;
  CapturingSink sink;
  const Outcome outcome = check::Run(RequestFor("generate-use"), settings, sink);
  EXPECT_EQ(outcome.exit_code, kExitFindings) << sink.said;
  ASSERT_TRUE(outcome.verdict);
  EXPECT_EQ(*outcome.verdict, pipeline::Verdict::kFindings);
  EXPECT_EQ(machine.prepared_root, "host");
  EXPECT_EQ(Pairs(sink.report()),
            (std::vector<std::string>{"MOR Exec[generate] -> Exec[use generated]",
                                      "MOR Exec[generate] -> File[/etc/app-release]"}));
  const nlohmann::json report = nlohmann::json::parse(sink.report());
  // Puppet's own graph, not kept (a clean run removes the work directory).
  EXPECT_EQ(report.at("graph").at("model"), "puppet") << report.at("graph").dump();
  EXPECT_EQ(report.at("graph").at("puppet_graph"), "not kept: --save-graph FILE keeps it");
  // A clean run leaves nothing behind.
  EXPECT_FALSE(fs::exists(machine.work_dir));
  EXPECT_EQ(sink.said.find("error"), std::string::npos) << sink.said;
}

// --init auto: a run whose only failures are Services with no init script is made again under
// systemd, and that run is the one reported, saying why; the first leaves nothing behind.
TEST(CheckRunTest, InitAutoAppliesAgainUnderSystemdForAUnitOnlyService) {
  RecordedMachine machine("faults-generate-use-bad");
  machine.unit_only_service = true;
  Settings settings;
  settings.report.format = "json";
  settings.machine = &machine;
  CapturingSink sink;
  Request request = RequestFor("generate-use");
  request.run.sandbox = exec::SandboxMode::kOverlay;
  request.run.init = std::string(kAutoInit);
  const Outcome outcome = check::Run(request, settings, sink);
  EXPECT_EQ(outcome.exit_code, kExitFindings) << sink.said;
  EXPECT_EQ(machine.inits, (std::vector<std::string>{"none", "systemd"}));
  ASSERT_EQ(machine.work_dirs.size(), 2u);
  EXPECT_FALSE(fs::exists(machine.work_dirs[0]));
  EXPECT_NE(sink.said.find(
                "Service[app] failed without systemd (no init script of that name, a systemd unit "
                "or alias only; or the systemd provider): "
                "applying again with systemd as PID 1 (--init auto)"),
            std::string::npos)
      << sink.said;
  const nlohmann::json run = nlohmann::json::parse(sink.report()).at("run");
  EXPECT_EQ(run.at("init"), "systemd");
  EXPECT_EQ(run.at("init_choice"),
            "Service[app] failed without systemd (no init script of that name, a systemd unit "
            "or alias only; or the systemd provider)");
  EXPECT_TRUE(run.at("failed_resources").empty());

  // Named, --init stays as it was: the failure is reported.
  RecordedMachine named("faults-generate-use-bad");
  named.unit_only_service = true;
  settings.machine = &named;
  request.run.init = "none";
  CapturingSink said;
  EXPECT_EQ(check::Run(request, settings, said).exit_code, kExitIncomplete) << said.said;
  EXPECT_EQ(named.inits, (std::vector<std::string>{"none"}));
}

// --root auto (the default in the sandbox): the root the module's metadata.json asks for, and
// why, for the run's summary; the host without a sandbox.
TEST(CheckRunTest, RootAutoTakesTheRootTheModulesMetadataAsksFor) {
  const fs::path dir = fs::temp_directory_path() / ("fsmove-root-auto-" + std::to_string(getpid()));
  fs::create_directories(dir / "puppet8" / "manifests");
  std::ofstream(dir / "puppet8" / "metadata.json")
      << R"({"name": "acme-puppet8", "requirements": [{"name": "puppet",
            "version_requirement": ">= 8.0.0 < 9.0.0"}]})";
  std::ofstream(dir / "puppet8" / "manifests" / "init.pp") << "class puppet8 {}\n";
  Request request;
  request.run.target.path = (dir / "puppet8").string();
  ASSERT_TRUE(RootAgrees(&request).ok());
  EXPECT_EQ(request.root, "debian-13");
  EXPECT_EQ(request.run.root_choice,
            (dir / "puppet8" / "metadata.json").string() + " asks for puppet >= 8.0.0 < 9.0.0");
  EXPECT_TRUE(request.run.root_warning.empty());

  Request example;
  example.run.target.path = fs::path(FSMOVE_SOURCE_DIR) / "fixtures" / "example" / "cachedemo";
  ASSERT_TRUE(RootAgrees(&example).ok());
  EXPECT_EQ(example.root, "debian-12");

  Request none;
  none.run.target.path = (dir / "puppet8").string();
  none.run.sandbox = exec::SandboxMode::kNone;
  ASSERT_TRUE(RootAgrees(&none).ok());
  EXPECT_EQ(none.root, "host");
  EXPECT_TRUE(none.run.root_choice.empty());

  std::ofstream(dir / "puppet8" / "metadata.json")
      << R"({"name": "acme-puppet8", "requirements": [{"name": "puppet",
            "version_requirement": "eight"}]})";
  Request bad;
  bad.run.target.path = (dir / "puppet8").string();
  const absl::Status st = RootAgrees(&bad);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("metadata.json"), std::string::npos) << st;
  fs::remove_all(dir);
}

// A node's manifest with --modulepath (site.pp and the modules it declares): the root the
// modulepath's modules admit, as for a control repo; without --modulepath, the default.
TEST(CheckRunTest, RootAutoOfAManifestTakesWhatItsModulepathAsks) {
  const fs::path dir =
      fs::temp_directory_path() / ("fsmove-root-modulepath-" + std::to_string(getpid()));
  auto module = [&](const std::string& name, const std::string& range) {
    fs::create_directories(dir / "modules" / name / "manifests");
    std::ofstream(dir / "modules" / name / "metadata.json")
        << R"({"name": "acme-)" << name << R"(", "version": "1.0.0", "requirements": [{"name": )"
        << R"("puppet", "version_requirement": ")" << range << R"("}]})";
    std::ofstream(dir / "modules" / name / "manifests" / "init.pp") << "class " << name << " {}\n";
  };
  module("ulogd", ">= 7.24.0 < 9.0.0");
  module("stdlib", ">= 7.0.0 < 9.0.0");
  std::ofstream(dir / "site.pp") << "include ulogd\n";
  Request request;
  request.run.target.path = (dir / "site.pp").string();
  request.run.target.modulepath = {(dir / "modules").string()};
  ASSERT_TRUE(RootAgrees(&request).ok());
  EXPECT_EQ(request.root, "debian-13");
  EXPECT_EQ(request.run.root_choice,
            "every one of the --modulepath modules that asks admits it (2 of them)");
  EXPECT_TRUE(request.run.root_warning.empty());

  Request alone;
  alone.run.target.path = (dir / "site.pp").string();
  ASSERT_TRUE(RootAgrees(&alone).ok());
  EXPECT_EQ(alone.root, "debian-12");
  fs::remove_all(dir);
}

TEST(CheckRunTest, RootAutoTakesTheRootTheProjectConfigurationNames) {
  // A control repo has no metadata.json: its .fsmove.json names the root; it wins over a
  // module's metadata too, and an explicit --root over both.
  checker::ProjectConfig config;
  config.source_name = "repo/.fsmove.json";
  config.root = "debian-13";
  Request request;
  request.run.target.path = fs::path(FSMOVE_SOURCE_DIR) / "fixtures" / "example" / "cachedemo";
  ASSERT_TRUE(RootAgrees(&request, config).ok());
  EXPECT_EQ(request.root, "debian-13");
  EXPECT_EQ(request.run.root_choice, "the root repo/.fsmove.json names");
  Request given;
  given.root = "debian-12";
  ASSERT_TRUE(RootAgrees(&given, config).ok());
  EXPECT_EQ(given.root, "debian-12");
  config.root = "debian-99";
  Request unknown;
  const absl::Status st = RootAgrees(&unknown, config);
  EXPECT_EQ(st.message(),
            "repo/.fsmove.json: /root: debian-99 is not a pinned root (see fsmove "
            "root list)");
}

TEST(CheckRunTest, TheFixedCodeIsClean) {
  RecordedMachine machine("faults-generate-use-fixed");
  Settings settings;
  settings.machine = &machine;
  CapturingSink sink;
  const Outcome outcome = check::Run(RequestFor("generate-use"), settings, sink);
  EXPECT_EQ(outcome.exit_code, kExitOk) << sink.said;
  ASSERT_TRUE(outcome.verdict);
  EXPECT_EQ(*outcome.verdict, pipeline::Verdict::kClean);
  EXPECT_NE(sink.report().find("0 missing ordering relationships"), std::string::npos)
      << sink.report();
}

TEST(CheckRunTest, WithoutPuppetsGraphItWarnsAndChecksAgainstTheModel) {
  RecordedMachine machine("faults-generate-use-bad");
  machine.with_graph = false;
  Settings settings;
  settings.machine = &machine;
  CapturingSink sink;
  EXPECT_EQ(check::Run(RequestFor("generate-use"), settings, sink).exit_code, kExitFindings);
  EXPECT_NE(sink.said.find("fsmove: warning: no graph from Puppet (none written); checking "
                           "against fsmove's model of the catalog"),
            std::string::npos)
      << sink.said;
}

TEST(CheckRunTest, AMachineThatCannotBePreparedIsAnError) {
  RecordedMachine machine("faults-generate-use-bad");
  machine.refuse = absl::FailedPreconditionError("strace is not installed");
  Settings settings;
  settings.machine = &machine;
  CapturingSink sink;
  const Outcome outcome = check::Run(RequestFor("generate-use"), settings, sink);
  EXPECT_EQ(outcome.exit_code, kExitError);
  EXPECT_FALSE(outcome.verdict);
  EXPECT_EQ(sink.said, "fsmove: error: strace is not installed\n");
  EXPECT_EQ(sink.report(), "");
}

TEST(CheckRunTest, ACompileFailureEndsBeforeAReport) {
  RecordedMachine machine("faults-generate-use-bad");
  machine.end = exec::RunEnd::kCompileFailed;
  Settings settings;
  settings.machine = &machine;
  CapturingSink sink;
  const Outcome outcome = check::Run(RequestFor("generate-use"), settings, sink);
  EXPECT_EQ(outcome.exit_code, kExitError);
  EXPECT_FALSE(outcome.verdict);
  EXPECT_EQ(sink.report(), "");
  EXPECT_NE(sink.said.find("Could not find class ::nosuch"), std::string::npos) << sink.said;
  // Puppet's error is said in full: the work directory is not needed.
  EXPECT_FALSE(fs::exists(machine.work_dir));
}

// CI reads the files it asked for whatever happened: SARIF and JUnit of a check that did not
// compile say so (an upload step would otherwise fail on a missing file); the main format
// without -o goes to standard output, JSON (a run's report) is not written.
TEST(CheckRunTest, ACompileFailureStillWritesTheReportsCiReads) {
  const fs::path dir = fs::temp_directory_path() / ("fsmove-failed-" + std::to_string(getpid()));
  fs::create_directories(dir);
  RecordedMachine machine("faults-generate-use-bad");
  machine.end = exec::RunEnd::kCompileFailed;
  Settings settings;
  settings.machine = &machine;
  settings.report.format = "sarif";
  settings.report.junit_output = (dir / "junit.xml").string();
  settings.report.json_output = (dir / "report.json").string();
  settings.report.codequality_output = (dir / "cq.json").string();
  CapturingSink sink;
  EXPECT_EQ(check::Run(RequestFor("generate-use"), settings, sink).exit_code, kExitError);
  const nlohmann::json sarif = nlohmann::json::parse(sink.report());
  const nlohmann::json& invocation = sarif.at("runs").at(0).at("invocations").at(0);
  EXPECT_EQ(invocation.at("executionSuccessful"), false);
  EXPECT_NE(invocation.at("toolExecutionNotifications")
                .at(0)
                .at("message")
                .at("text")
                .get<std::string>()
                .find("Could not find class ::nosuch"),
            std::string::npos);
  EXPECT_TRUE(sarif.at("runs").at(0).at("results").empty());
  std::ifstream junit(dir / "junit.xml");
  const std::string xml((std::istreambuf_iterator<char>(junit)), {});
  EXPECT_NE(xml.find("errors=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error message=\"Puppet could not compile the catalog"), std::string::npos)
      << xml;
  std::ifstream cq(dir / "cq.json");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(cq)), {}), "[]\n");
  EXPECT_FALSE(fs::exists(dir / "report.json"));
  fs::remove_all(dir);
}

TEST(CheckRunTest, KeepWorkKeepsTheWorkDirectoryAndNamesIt) {
  RecordedMachine machine("faults-generate-use-fixed");
  Settings settings;
  settings.machine = &machine;
  Request request = RequestFor("generate-use");
  request.keep_work = true;
  CapturingSink sink;
  EXPECT_EQ(check::Run(request, settings, sink).exit_code, kExitOk);
  EXPECT_TRUE(fs::exists(machine.work_dir));
  EXPECT_NE(sink.said.find("fsmove: note: the run's work directory (Puppet's log) is kept: " +
                           machine.work_dir),
            std::string::npos)
      << sink.said;
  std::error_code ec;
  fs::remove_all(machine.work_dir, ec);
}

TEST(CheckRunTest, CatalogWarningsNameTheFileAndThePointer) {
  auto cat = catalog::Catalog::LoadString(
      R"({"resources": [{"type": "File", "title": "/a", "require": "File[/missing]"}]})",
      "cat.json");
  ASSERT_TRUE(cat.ok()) << cat.status();
  const std::vector<Diagnostic> warnings = CatalogWarnings(*cat);
  ASSERT_FALSE(warnings.empty());
  for (const Diagnostic& w : warnings) {
    EXPECT_EQ(w.severity, Diagnostic::Severity::kWarning);
    EXPECT_EQ(w.text.rfind("cat.json: /", 0), 0u) << w.text;
  }
}

}  // namespace
}  // namespace fsmove::check
