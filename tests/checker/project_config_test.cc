// .fsmove.json: what a valid file gives, and for each mistake an error naming the file and the
// JSON pointer; loading from a project directory; merging into the check options.
#include "fsmove/checker/project_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../report/recorded_check.h"

namespace fsmove::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ProjectConfigTest, ValidFile) {
  auto c = checker::ParseProjectConfig(R"({
    "$schema": "https://example.invalid/fsmove-config.json",
    "ignore_paths": ["/var/cache/app/**", "/tmp/*.lock"],
    "ignore_resources": ["Exec[apt-update]"],
    "ignore_pairs": [
      {"source": "Package[a]", "target": "Package[b]", "reason": "apt orders them"},
      {"source": "File[/x]", "target": "Service[s]", "reason": "s rereads x", "rule": "missing-notifier"}
    ],
    "package_notify": true,
    "root": "debian-13"
  })",
                                       "proj/.fsmove.json");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->source_name, "proj/.fsmove.json");
  EXPECT_THAT(c->ignore_paths, ElementsAre("/var/cache/app/**", "/tmp/*.lock"));
  EXPECT_THAT(c->ignore_resources, ElementsAre("Exec[apt-update]"));
  ASSERT_EQ(c->ignore_pairs.size(), 2u);
  EXPECT_EQ(c->ignore_pairs[0].source, "Package[a]");
  EXPECT_EQ(c->ignore_pairs[0].target, "Package[b]");
  EXPECT_EQ(c->ignore_pairs[0].reason, "apt orders them");
  EXPECT_FALSE(c->ignore_pairs[0].rule.has_value());
  EXPECT_EQ(c->ignore_pairs[1].rule, checker::FaultKind::kMissingNotifier);
  EXPECT_EQ(c->ignore_pairs[1].json_pointer, "/ignore_pairs/1");
  EXPECT_TRUE(c->package_notify);
  EXPECT_EQ(c->root, "debian-13");

  auto empty = checker::ParseProjectConfig("{}", "e.json");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->ignore_paths.empty());
  EXPECT_FALSE(empty->package_notify);
}

TEST(ProjectConfigTest, ErrorsNameTheFileAndThePointer) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([])", "c.json: /: expected an object, got an array"},
      {R"({"ignore_path": []})", "c.json: /ignore_path: unknown key"},
      {R"({"ignore_paths": "/tmp/**"})", "c.json: /ignore_paths: expected an array of strings"},
      {R"({"ignore_paths": ["/a", 3]})",
       "c.json: /ignore_paths/1: expected a string, got a number"},
      {R"({"ignore_paths": [""]})", "c.json: /ignore_paths/0: empty glob"},
      {R"({"ignore_paths": ["var/cache/**"]})",
       "c.json: /ignore_paths/0: \"var/cache/**\" matches nothing: traced paths are absolute "
       "(did you mean \"/var/cache/**\"?)"},
      {R"({"ignore_resources": ["apt-update"]})",
       "c.json: /ignore_resources/0: \"apt-update\" is not a resource reference"},
      {R"({"package_notify": "yes"})", "c.json: /package_notify: expected true or false"},
      {R"({"root": "ubuntu-24.04"})",
       "c.json: /root: expected the name of a pinned root (debian-12, debian-13)"},
      {R"({"root": 13})", "c.json: /root: expected a string, got a number"},
      {R"({"ignore_pairs": {}})", "c.json: /ignore_pairs: expected an array of objects"},
      {R"({"ignore_pairs": [{"source": "A[a]", "target": "B[b]"}]})",
       "c.json: /ignore_pairs/0: missing \"reason\": every ignored pair needs a reason"},
      {R"({"ignore_pairs": [{"source": "A[a]", "target": "B[b]", "reason": "  "}]})",
       "c.json: /ignore_pairs/0/reason: must not be empty"},
      {R"({"ignore_pairs": [{"source": "A[a]", "reason": "r"}]})",
       "c.json: /ignore_pairs/0: missing \"target\""},
      {R"({"ignore_pairs": [{"source": "A[a]", "target": "B[b]", "reason": "r", "rul": "x"}]})",
       "c.json: /ignore_pairs/0/rul: unknown key"},
      {R"({"ignore_pairs": [{"source": "A[a]", "target": "B[b]", "reason": "r", "rule": "MOR"}]})",
       "c.json: /ignore_pairs/0/rule: unknown rule \"MOR\""},
      {R"({"ignore_pairs": [{"source": "A[a]", "target": "b", "reason": "r"}]})",
       "c.json: /ignore_pairs/0/target: \"b\" is not a resource reference"},
      {R"({"a/b~c": 1})", "c.json: /a~1b~0c: unknown key"},
      {"{\n  \"ignore_paths\": [\n    \"/a\",\n  ]\n}", "c.json:4:3: not valid JSON"},
  };
  for (const auto& [text, message] : cases) {
    auto c = checker::ParseProjectConfig(text, "c.json");
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_THAT(std::string(c.status().message()), HasSubstr(message)) << text;
  }
}

TEST(ProjectConfigTest, LoadsFromTheProjectDirectoryWhenThere) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / "fsmove-project-config-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto none = checker::LoadProjectConfig(dir.string());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->source_name.empty());

  std::ofstream(dir / ".fsmove.json") << R"({"package_notify": true})";
  auto some = checker::LoadProjectConfig(dir.string());
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_EQ(some->source_name, (dir / ".fsmove.json").string());
  EXPECT_TRUE(some->package_notify);

  std::ofstream(dir / ".fsmove.json") << R"({"package_notify": 1})";
  auto bad = checker::LoadProjectConfig(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(
      std::string(bad.status().message()),
      HasSubstr((dir / ".fsmove.json").string() + ": /package_notify: expected true or false"));

  auto missing = checker::LoadProjectConfigFile((dir / "nope.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("cannot read configuration"));
  fs::remove_all(dir);
}

// A project's .fsmove.json that is a link (to a private file of whoever runs fsmove) is
// refused, naming it; a syntax error says where, never what the file holds.
TEST(ProjectConfigTest, ALinkIsRefusedAndErrorsNeverQuoteTheFile) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(::testing::TempDir()) / "fsmove-project-config-link";
  fs::remove_all(dir);
  fs::create_directories(dir / "project");
  std::ofstream(dir / "secret") << "\"SECRET-hunter2\n";
  fs::create_symlink(dir / "secret", dir / "project/.fsmove.json");
  auto linked = checker::LoadProjectConfig((dir / "project").string());
  ASSERT_FALSE(linked.ok());
  EXPECT_TRUE(absl::IsPermissionDenied(linked.status())) << linked.status();
  EXPECT_EQ(linked.status().message(),
            "cannot read configuration " + (dir / "project/.fsmove.json").string() +
                ": .fsmove.json is a symbolic link, never followed (fsmove opens the user's "
                "files only beneath their root)");
  // The same text in the project's own file: located, not quoted.
  fs::remove(dir / "project/.fsmove.json");
  fs::copy_file(dir / "secret", dir / "project/.fsmove.json");
  auto bad = checker::LoadProjectConfig((dir / "project").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr((dir / "project/.fsmove.json").string() + ":1:"));
  EXPECT_THAT(std::string(bad.status().message()), ::testing::Not(HasSubstr("SECRET")));
  fs::remove_all(dir);
}

// On a real run: the config's package_notify turns the package-service MN on, its ignored
// resource drops it, and a resource this catalog lacks is a warning, not an error.
TEST(ProjectConfigTest, AppliesToARealCheck) {
  auto config = checker::ParseProjectConfig(
      R"({"package_notify": true, "ignore_resources": ["Exec[not in this catalog]"]})", "p.json");
  ASSERT_TRUE(config.ok());
  RecordedCheck plain = CheckRecorded("faults-package-service-bad");
  ASSERT_TRUE(plain.catalog);
  EXPECT_TRUE(plain.result.findings.empty());

  checker::CheckOptions options;
  auto warnings = checker::ApplyProjectConfig(*config, *plain.catalog, &options);
  EXPECT_TRUE(options.package_notify);
  EXPECT_TRUE(options.ignore_resources.empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("p.json: /ignore_resources/0: Exec[not in this catalog] is "
                                     "not in"));
  RecordedCheck notified = CheckRecorded("faults-package-service-bad", options);
  ASSERT_TRUE(notified.catalog);
  EXPECT_EQ(notified.result.findings.size(), 1u);

  auto ignoring =
      checker::ParseProjectConfig(R"({"ignore_resources": ["Service[memcached]"]})", "p.json");
  ASSERT_TRUE(ignoring.ok());
  EXPECT_TRUE(checker::ApplyProjectConfig(*ignoring, *plain.catalog, &options).empty());
  EXPECT_THAT(options.ignore_resources, ElementsAre("Service[memcached]"));
  RecordedCheck ignored = CheckRecorded("faults-package-service-bad", options);
  ASSERT_TRUE(ignored.catalog);
  EXPECT_TRUE(ignored.result.findings.empty());
}

}  // namespace
}  // namespace fsmove::testing
