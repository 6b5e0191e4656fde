// The knowledge tables (include/fsmove/checker/knowledge.h, src/checker/knowledge/*.tsv): every
// row parses, has a source and a unique id, is read by a registered rule and is the row its own
// fact finds (no row shadowed by another: a dead row); the binary's tables are the files'; a
// malformed table fails with FILE:LINE.
#include "fsmove/checker/knowledge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "fsmove/checker/path_filter.h"
#include "fsmove/checker/resource_semantics.h"
#include "fsmove/checker/rules/registry.h"

namespace fsmove::checker::knowledge {
namespace {

using ::testing::HasSubstr;

// Who reads a table besides the rules: the step that turns listings of drop-in directories into
// relations (resource_accesses.cc). It adds evidence; no finding cites it.
constexpr std::string_view kStepsThatRead[] = {"resource-accesses"};

// A path the row's fact matches, as a reader would meet it.
std::string Example(const Row& row) {
  switch (row.match) {
    case Match::kPath:
    case Match::kTree:
    case Match::kAccountDatabase:
      return std::string(row.fact);
    case Match::kBelow:
      return std::string(row.fact) + "/x";
    case Match::kNameSuffix:
      return "/etc/x" + std::string(row.fact);
    case Match::kGlob:
    case Match::kVariable:
    case Match::kUnit: {
      std::string path(row.fact);
      std::replace(path.begin(), path.end(), '*', 'x');
      return path;
    }
    case Match::kRubyTempfile:
      return std::string(row.fact) + "/x20261124-76-93q0su";
  }
  return "";
}

TEST(KnowledgeTest, EveryRowHasAnIdAKindAFactAndASource) {
  std::set<std::string_view> ids;
  size_t rows = 0;
  for (const Table& table : Tables()) {
    EXPECT_THAT(std::string(table.file), HasSubstr("src/checker/knowledge/")) << table.name;
    for (const Row& row : table.rows) {
      ++rows;
      EXPECT_FALSE(row.id.empty()) << table.file << ":" << row.line;
      EXPECT_FALSE(row.kind.empty()) << table.file << ":" << row.line;
      EXPECT_FALSE(row.fact.empty()) << table.file << ":" << row.line;
      EXPECT_FALSE(row.source.empty()) << table.file << ":" << row.line;
      EXPECT_EQ(row.file, table.file);
      EXPECT_GT(row.line, 0);
      EXPECT_TRUE(ids.insert(row.id).second) << row.id << " twice (" << row.file << ")";
    }
  }
  EXPECT_GT(rows, 50u);
}

TEST(KnowledgeTest, EveryTableIsReadByARegisteredRule) {
  for (const Table& table : Tables()) {
    EXPECT_FALSE(table.readers.empty()) << table.file;
    for (std::string_view reader : table.readers) {
      bool step = std::find(std::begin(kStepsThatRead), std::end(kStepsThatRead), reader) !=
                  std::end(kStepsThatRead);
      EXPECT_TRUE(step || FindRule(reader) != nullptr)
          << table.file << ": read-by " << reader << " is no rule in rules/registry.cc";
    }
  }
}

// A row that an earlier row of its table already matches is never cited and never decides
// anything: dead. Each row is the one its own example finds.
TEST(KnowledgeTest, NoRowIsShadowed) {
  for (const Table& table : Tables()) {
    for (const Row& row : table.rows) {
      const std::string path = Example(row);
      EXPECT_TRUE(row.Matches(path)) << row.id << " does not match " << path;
      const Row* found = row.by.empty() ? table.Find(path) : table.FindBy(row.by, path);
      EXPECT_EQ(found, &row) << row.id << " (" << row.file << ":" << row.line << ") is shadowed by "
                             << (found == nullptr ? "nothing" : found->id) << " on " << path;
    }
  }
}

// The policies the rules call read the tables they name (TableNamed aborts on a name no table
// has), and the code reads every table there is.
TEST(KnowledgeTest, ThePoliciesReadEveryTable) {
  std::set<std::string_view> read;
  auto note = [&](const Row* row) {
    if (row != nullptr) read.insert(row->file);
  };
  for (const Table& table : Tables()) {
    for (const Row& row : table.rows) {
      const std::string path = Example(row);
      note(IsAmbientConfiguration(path));
      note(IsNameServiceDatabase(path));
      note(IsDropInDirectory(path));
      note(IsUnitDefinition(path));
      note(IsRuntimeState(path));
      note(IsRubyTempfile(path));
      note(IsAptSourcesList(path));
      note(IsPackageIndexInput(path));
      note(IsInitScriptSwitch(path));
      if (!row.by.empty()) note(IsOptionalProgram(row.by, path));
      if (!row.by.empty()) note(IsReadAgainByItself(row.by, path));
      if (!row.by.empty()) {
        note(ControlProgramRefreshes(std::string(row.by) + " " + std::string(row.kind), path));
      }
      if (row.by == "/usr/sbin/useradd") {
        catalog::Resource user, group;
        user.type = "User";
        group.type = "Group";
        user.title = group.title = "app";
        note(IsUserPrivateGroup(user, group, path));
      }
      note(PathFilter::IsEnablementLink(path));
      note(PathFilter::IsPackageManagerState(path));
      for (const auto& [parked, parked_row] : ParkedVersionsOf(path)) note(parked_row);
    }
  }
  for (const Table& table : Tables()) EXPECT_TRUE(read.contains(table.file)) << table.file;
}

// The binary's tables are the files in the source tree (the tests run from its root).
TEST(KnowledgeTest, TheCompiledTablesAreTheFiles) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator("src/checker/knowledge")) {
    if (entry.path().extension() == ".tsv") files.insert(entry.path().generic_string());
  }
  std::set<std::string> compiled;
  for (const Table& table : Tables()) {
    compiled.emplace(table.file);
    std::ifstream in{std::string(table.file)};
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = ParseTable(text.str(), table.file);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ASSERT_EQ(parsed->rows.size(), table.rows.size()) << table.file;
    for (size_t i = 0; i < table.rows.size(); ++i) {
      EXPECT_EQ(parsed->rows[i].id, table.rows[i].id);
      EXPECT_EQ(parsed->rows[i].fact, table.rows[i].fact);
      EXPECT_EQ(parsed->rows[i].by, table.rows[i].by);
      EXPECT_EQ(parsed->rows[i].source, table.rows[i].source);
      EXPECT_EQ(parsed->rows[i].line, table.rows[i].line);
    }
  }
  EXPECT_EQ(files, compiled);
}

TEST(KnowledgeTest, MatchKinds) {
  auto row = [](Match m, std::string_view fact) { return Row{"x", "x", "", m, fact, "", "", 1}; };
  EXPECT_TRUE(row(Match::kTree, "/run").Matches("/run"));
  EXPECT_TRUE(row(Match::kTree, "/run").Matches("/run/x/y"));
  EXPECT_FALSE(row(Match::kTree, "/run").Matches("/runx"));
  EXPECT_FALSE(row(Match::kBelow, "/etc/rc2.d").Matches("/etc/rc2.d"));
  EXPECT_FALSE(row(Match::kBelow, "/etc/rc2.d").Matches("/etc/rc2.d/"));
  EXPECT_TRUE(row(Match::kBelow, "/etc/rc2.d").Matches("/etc/rc2.d/S01x"));
  EXPECT_TRUE(row(Match::kNameSuffix, ".d").Matches("/etc/cron.d"));
  EXPECT_FALSE(row(Match::kNameSuffix, ".d").Matches("/.d"));
  const Row wants = row(Match::kGlob, "/etc/systemd/system/*.wants/*");
  EXPECT_TRUE(wants.Matches("/etc/systemd/system/multi-user.target.wants/a.service"));
  EXPECT_FALSE(wants.Matches("/etc/systemd/system/a.service"));
  EXPECT_FALSE(wants.Matches("/etc/systemd/system/x/y.wants/a.service"));
  EXPECT_FALSE(wants.Matches("/etc/systemd/system/a.wants/b/c"));
  const Row passwd = row(Match::kAccountDatabase, "/etc/passwd");
  for (const char* p : {"/etc/passwd", "/etc/passwd-", "/etc/passwd+", "/etc/passwd.lock",
                        "/etc/passwd.347", "/etc/npasswd"}) {
    EXPECT_TRUE(passwd.Matches(p)) << p;
  }
  for (const char* p : {"/etc/passwords", "/etc/app/passwd", "/etc/xpasswd"}) {
    EXPECT_FALSE(passwd.Matches(p)) << p;
  }
  const Row tmp = row(Match::kRubyTempfile, "/tmp");
  EXPECT_TRUE(tmp.Matches("/tmp/augeas20250101-1234-1abcxyz.conf"));
  EXPECT_FALSE(tmp.Matches("/tmp/x20261124-76-ABC"));
  EXPECT_FALSE(tmp.Matches("/var/tmp/x20261124-76-abc"));
  const Row start = row(Match::kVariable, "START_*");
  EXPECT_TRUE(start.Matches("START_KNOCKD"));
  EXPECT_TRUE(start.Matches("START_"));
  EXPECT_FALSE(start.Matches("START"));
  EXPECT_FALSE(start.Matches("RESTART_KNOCKD"));
}

// ---------------------------------------------------------------- malformed tables

std::string ErrorOf(std::string_view text) {
  auto parsed = ParseTable(text, "src/checker/knowledge/bad.tsv");
  return parsed.ok() ? "" : std::string(parsed.status().message());
}

constexpr std::string_view kHead =
    "# a comment\n"
    "read-by\tambient-configuration\n"
    "id\tkind\tmatch\tfact\tsource\n";

TEST(KnowledgeTest, AWellFormedTableParses) {
  auto parsed = ParseTable(
      std::string(kHead) + "a.b\tresolver\tpath\t/etc/x\tx(5): \"the words\"\n", "ok.tsv");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->rows.size(), 1u);
  EXPECT_EQ(parsed->rows[0].line, 4);
  EXPECT_EQ(parsed->readers, std::vector<std::string>{"ambient-configuration"});
}

// A table of what one program does names it in a `by` column; FindBy matches both.
TEST(KnowledgeTest, ATableWithAByColumnParses) {
  auto parsed = ParseTable(
      "read-by\toptional-program\nid\tkind\tby\tmatch\tfact\tsource\n"
      "a.b\toptional-program\t/usr/bin/apt-key\tpath\t/usr/bin/gpgconf\tapt-key: \"if "
      "command_available 'gpgconf'\"\n",
      "by.tsv");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->rows.size(), 1u);
  EXPECT_EQ(parsed->rows[0].by, "/usr/bin/apt-key");
  EXPECT_EQ(parsed->rows[0].fact, "/usr/bin/gpgconf");
  const std::string head = "read-by\tx\nid\tkind\tby\tmatch\tfact\tsource\n";
  EXPECT_THAT(ErrorOf(head + "a.b\tresolver\tpath\t/etc/x\tx(5): \"the words\"\n"),
              HasSubstr("bad.tsv:3: a row has 6 tab-separated fields (id, kind, by, match"));
  EXPECT_THAT(ErrorOf(head + "a.b\tresolver\tapt-key\tpath\t/etc/x\tx(5): \"the words\"\n"),
              HasSubstr("bad.tsv:3: by 'apt-key': a program's absolute path"));

  const Row row{"x", "x", "/usr/bin/apt-key", Match::kPath, "/usr/bin/gpgconf", "", "", 1};
  const Row rows[] = {row};
  const Table table{"t", "t.tsv", {}, rows};
  EXPECT_EQ(table.FindBy("/usr/bin/apt-key", "/usr/bin/gpgconf"), &rows[0]);
  EXPECT_EQ(table.FindBy("/usr/bin/apt-get", "/usr/bin/gpgconf"), nullptr);
}

TEST(KnowledgeTest, AMalformedTableNamesItsFileAndLine) {
  const std::string good = "a.b\tresolver\tpath\t/etc/x\tx(5): \"the words\"\n";
  struct Case {
    std::string rows;
    std::string error;
  };
  const Case cases[] = {
      {"a.b\tresolver\tpath\t/etc/x\n", "bad.tsv:4: a row has 5 tab-separated fields"},
      {"a.b\tresolver\tpath\t/etc/x\t\n", "bad.tsv:4: an empty field"},
      {"a.b\tresolver\tpath\t/etc/x\tman\n", "bad.tsv:4: a source too short"},
      {good + good, "bad.tsv:5: id 'a.b' again"},
      {"A.B\tresolver\tpath\t/etc/x\tx(5): \"the words\"\n", "bad.tsv:4: id 'A.B'"},
      {"a.b\tresolver\tprefix\t/etc/x\tx(5): \"the words\"\n", "bad.tsv:4: match 'prefix'"},
      {"a.b\tresolver\tpath\tetc/x\tx(5): \"the words\"\n", "bad.tsv:4: fact 'etc/x'"},
      {"a.b\tresolver\ttree\t/etc/x/\tx(5): \"the words\"\n", "bad.tsv:4: fact '/etc/x/'"},
      {"a.b\tresolver\tpath\t/etc/*\tx(5): \"the words\"\n", "bad.tsv:4: a '*' in a fact"},
      {"a.b\tdrop-in\tname-suffix\t/x.d\tx(5): \"the words\"\n", "bad.tsv:4: a name suffix"},
      {"a.b\tswitch\tvariable\t/etc/x\tx(5): \"the words\"\n", "bad.tsv:4: fact '/etc/x': a shell"},
      {good + "a.c\tresolver\tpath\t/etc/y\tx(5): \"the words\"\r\n", "bad.tsv:5: a carriage"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ErrorOf(std::string(kHead) + c.rows), HasSubstr(c.error)) << c.rows;
  }
  EXPECT_THAT(ErrorOf("id\tkind\tmatch\tfact\tsource\n" + good),
              HasSubstr("bad.tsv:1: no read-by line before the header"));
  EXPECT_THAT(ErrorOf("read-by\tx\n" + good), HasSubstr("bad.tsv:2: the header"));
  EXPECT_THAT(ErrorOf(kHead), HasSubstr("bad.tsv: no rows"));
}

}  // namespace
}  // namespace fsmove::checker::knowledge
