// The checked code's `# fsmove:ignore` comments read from manifests' text with fix's Puppet
// tokenizer (pipeline::AddSourceSuppressions), and from the files of a catalog in the checked
// code's scope only, beneath its root (pipeline::ReadSourceSuppressions).
#include "fsmove/pipeline/source_comments.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "nlohmann/json.hpp"

namespace fsmove::pipeline {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(SourceCommentsTest, CommentsAreReadWhereThePuppetTokenizerSeesThem) {
  // A `#` in a string or a heredoc is no comment; the declaration below a comment is the
  // line of its type keyword, after blank lines and other comments.
  gating::SourceSuppressions out;
  AddSourceSuppressions("/m/manifests/init.pp", "/m/manifests/init.pp", R"(class m {
  file { '/etc/m.conf': content => "# fsmove:ignore:missing-ordering in a string\n" }
  $text = @(END)
    # fsmove:ignore:missing-ordering in a heredoc
    | END
  # fsmove:ignore:missing-notifier m reads it at start only

  # (a note)
  service { 'm':
    ensure => running,   # fsmove:ignore:missing-ordering
  }
}
)",
                        &out);
  ASSERT_EQ(out.comments.size(), 2u);
  EXPECT_EQ(out.comments[0].line, 6);
  EXPECT_EQ(out.comments[0].first_line, 9);
  EXPECT_EQ(out.comments[0].last_line, 9);
  EXPECT_EQ(out.comments[0].reason, "m reads it at start only");
  EXPECT_EQ(out.comments[1].first_line, 10);
  EXPECT_THAT(out.comments[1].rules, ElementsAre("missing-ordering"));
  EXPECT_THAT(out.warnings, IsEmpty());
}

TEST(SourceCommentsTest, AManifestThatDoesNotTokenizeIsNamedWhenItHoldsADirective) {
  gating::SourceSuppressions out;
  AddSourceSuppressions("/m/a.pp", "/here/a.pp", "file { 'x': # fsmove:ignore:missing-ordering\n",
                        &out);
  AddSourceSuppressions("/m/b.pp", "/here/b.pp", "file { 'x':\n",
                        &out);  // no directive: not tokenized
  EXPECT_THAT(out.warnings, ElementsAre(HasSubstr("/here/a.pp: its fsmove comments are not read")));
}

TEST(SourceCommentsTest, OnlyTheCheckedCodesManifestsAreReadNeverThroughALink) {
  const fs::path dir =
      fs::temp_directory_path() / ("fsmove-source-comments-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "mod/manifests");
  fs::create_directories(dir / "elsewhere");
  const std::string directive = "file { '/x': }  # fsmove:ignore:missing-ordering\n";
  std::ofstream(dir / "mod/manifests/init.pp") << directive;
  std::ofstream(dir / "elsewhere/other.pp") << directive;
  fs::create_symlink(dir / "elsewhere", dir / "mod/manifests/sub");
  nlohmann::json doc = {{"catalog_format", 2},
                        {"edges", nlohmann::json::array()},
                        {"resources", nlohmann::json::array()}};
  int n = 0;
  for (const fs::path& file : {dir / "mod/manifests/init.pp", dir / "elsewhere/other.pp",
                               dir / "mod/manifests/sub/other.pp"}) {
    doc["resources"].push_back({{"type", "File"},
                                {"title", "/x" + std::to_string(n++)},
                                {"file", file.string()},
                                {"line", 1},
                                {"exported", false},
                                {"parameters", nlohmann::json::object()}});
  }
  auto cat = catalog::Catalog::LoadString(doc.dump(), "c.json");
  ASSERT_TRUE(cat.ok()) << cat.status();
  fix::FixScope scope;
  scope.root = (dir / "mod").string();
  gating::SourceSuppressions out = ReadSourceSuppressions(*cat, scope);
  ASSERT_EQ(out.comments.size(), 1u);
  EXPECT_EQ(out.comments[0].file, (dir / "mod/manifests/init.pp").string());
  EXPECT_TRUE(ReadSourceSuppressions(*cat, fix::FixScope{}).comments.empty());  // -e code
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fsmove::pipeline
