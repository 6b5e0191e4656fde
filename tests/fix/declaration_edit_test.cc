// The manifest editor on hand-written Puppet: finding a declaration at the catalog's line
// (strings with braces, comments, heredocs, `;`-separated bodies, defines), and adding or
// moving references the way puppet-lint --fix would leave them (aligned arrows, trailing
// commas, `[A, B]` arrays, multi-line arrays past 140 columns, CRLF kept).
#include "fsmove/fix/declaration_edit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fsmove/checker/checker.h"
#include "fsmove/fix/puppet_source.h"

namespace fsmove::fix {
namespace {

// `text` with `changes` made to the body of type[title] declared on `line`.
std::string Edit(const std::string& text, std::string_view type, std::string_view title, int line,
                 const std::vector<ReferenceChange>& changes) {
  auto source = PuppetSource::Parse(text);
  EXPECT_TRUE(source.ok()) << source.status();
  if (!source.ok()) return "";
  auto body = source->FindResource(type, title, line);
  EXPECT_TRUE(body.ok()) << body.status();
  if (!body.ok()) return "";
  auto edit = EditDeclaration(*source, *body, changes);
  EXPECT_TRUE(edit.ok()) << edit.status();
  if (!edit.ok()) return "";
  return ApplyReplacements(text, *edit);
}

TEST(DeclarationEditTest, AddsAnAlignedAttributeWithTrailingComma) {
  const std::string in =
      "exec { 'use config':\n"
      "  command => '/bin/cat /etc/app.conf',\n"
      "  path    => '/bin'\n"
      "}\n";
  EXPECT_EQ(Edit(in, "Exec", "use config", 1, {{"require", "File['/etc/app.conf']"}}),
            "exec { 'use config':\n"
            "  command => '/bin/cat /etc/app.conf',\n"
            "  path    => '/bin',\n"
            "  require => File['/etc/app.conf'],\n"
            "}\n");
}

TEST(DeclarationEditTest, RealignsWhenTheNewNameIsLonger) {
  const std::string in =
      "  service { 'memcached':\n"
      "    ensure => running,\n"
      "    enable => true,\n"
      "  }\n";
  EXPECT_EQ(Edit(in, "Service", "memcached", 1, {{"subscribe", "File['/etc/memcached.conf']"}}),
            "  service { 'memcached':\n"
            "    ensure    => running,\n"
            "    enable    => true,\n"
            "    subscribe => File['/etc/memcached.conf'],\n"
            "  }\n");
}

TEST(DeclarationEditTest, ExistingRequireBecomesAnArray) {
  const std::string in =
      "file { '/var/log/app.log':\n"
      "  ensure  => file,\n"
      "  require => Package['app'],  # the user comes with the package\n"
      "}\n";
  EXPECT_EQ(Edit(in, "File", "/var/log/app.log", 1, {{"require", "User['app']"}}),
            "file { '/var/log/app.log':\n"
            "  ensure  => file,\n"
            "  require => [Package['app'], User['app']],  # the user comes with the package\n"
            "}\n");
  // Already there (however quoted): nothing to do.
  auto source = PuppetSource::Parse(in);
  ASSERT_TRUE(source.ok());
  auto body = source->FindResource("File", "/var/log/app.log", 1);
  ASSERT_TRUE(body.ok());
  auto edit = EditDeclaration(*source, *body, {{"require", "Package[\"app\"]"}});
  ASSERT_TRUE(edit.ok());
  EXPECT_TRUE(edit->empty());
}

TEST(DeclarationEditTest, MovesAReferenceFromRequireToSubscribe) {
  const std::string in =
      "service { 'memcached':\n"
      "  ensure    => running,\n"
      "  subscribe => Package['memcached'],\n"
      "  require   => File['/etc/memcached.conf'],\n"
      "}\n";
  EXPECT_EQ(Edit(in, "Service", "memcached", 1,
                 {{"subscribe", "File['/etc/memcached.conf']"},
                  {"require", "File['/etc/memcached.conf']", true}}),
            "service { 'memcached':\n"
            "  ensure    => running,\n"
            "  subscribe => [Package['memcached'], File['/etc/memcached.conf']],\n"
            "}\n");
}

TEST(DeclarationEditTest, LongArraysGoOneReferenceALine) {
  const std::string in =
      "service { 'x':\n"
      "  require => [File['/etc/systemd/system/fsmove-demo.service'], "
      "File['/usr/local/bin/fsmove-demo'],\n"
      "              File['/etc/default/fsmove-demo']],\n"
      "}\n";
  EXPECT_EQ(Edit(in, "Service", "x", 1, {{"require", "File['/etc/x']"}}),
            "service { 'x':\n"
            "  require => [\n"
            "    File['/etc/systemd/system/fsmove-demo.service'],\n"
            "    File['/usr/local/bin/fsmove-demo'],\n"
            "    File['/etc/default/fsmove-demo'],\n"
            "    File['/etc/x'],\n"
            "  ],\n"
            "}\n");
}

TEST(DeclarationEditTest, BracesInStringsAndCommentsDoNotCount) {
  const std::string in =
      "# file { '/etc/a': }  a comment with a brace {\n"
      "file { '/etc/a':\n"
      "  content => \"x { ${facts['os']['family']} } y\\\" }\",  # } not the end\n"
      "  /* { */ mode => '0644',\n"
      "}\n"
      "exec { 'b': command => 'true' }\n";
  EXPECT_EQ(Edit(in, "File", "/etc/a", 2, {{"before", "Exec['b']"}}),
            "# file { '/etc/a': }  a comment with a brace {\n"
            "file { '/etc/a':\n"
            "  content => \"x { ${facts['os']['family']} } y\\\" }\",  # } not the end\n"
            "  /* { */ mode => '0644',\n"
            "  before  => Exec['b'],\n"
            "}\n"
            "exec { 'b': command => 'true' }\n");
}

TEST(DeclarationEditTest, HeredocBodiesAreSkipped) {
  const std::string in =
      "file { '/etc/motd':\n"
      "  content => @(EOT),\n"
      "    } not code {\n"
      "    | EOT\n"
      "  mode    => '0644',\n"
      "}\n";
  EXPECT_EQ(Edit(in, "File", "/etc/motd", 1, {{"require", "User['x']"}}),
            "file { '/etc/motd':\n"
            "  content => @(EOT),\n"
            "    } not code {\n"
            "    | EOT\n"
            "  mode    => '0644',\n"
            "  require => User['x'],\n"
            "}\n");
}

TEST(DeclarationEditTest, SemicolonSeparatedBodiesEditOnlyTheirTitle) {
  const std::string in =
      "file {\n"
      "  '/etc/a':\n"
      "    ensure => file;\n"
      "  '/etc/b':\n"
      "    ensure => file;\n"
      "}\n";
  EXPECT_EQ(Edit(in, "File", "/etc/b", 1, {{"require", "File['/etc/a']"}}),
            "file {\n"
            "  '/etc/a':\n"
            "    ensure => file;\n"
            "  '/etc/b':\n"
            "    ensure  => file,\n"
            "    require => File['/etc/a'];\n"
            "}\n");
}

TEST(DeclarationEditTest, EmptyAndOneLineBodies) {
  EXPECT_EQ(Edit("file { '/etc/a': }\n", "File", "/etc/a", 1, {{"require", "User['x']"}}),
            "file { '/etc/a':\n  require => User['x'],\n}\n");
  EXPECT_EQ(Edit("  exec { 'b': command => 'true' }\n", "Exec", "b", 1, {{"require", "User['x']"}}),
            "  exec { 'b': command => 'true', require => User['x'] }\n");
}

TEST(DeclarationEditTest, ClosingBraceOnTheLastAttributesLine) {
  EXPECT_EQ(Edit("  file { '/etc/a':\n    ensure => file }\n", "File", "/etc/a", 1,
                 {{"require", "User['x']"}}),
            "  file { '/etc/a':\n    ensure  => file,\n    require => User['x'],\n  }\n");
}

TEST(DeclarationEditTest, DefinedTypesAndExpressionTitles) {
  const std::string in =
      "define app::conf (String $dir) {\n"
      "  file { \"${dir}/app.conf\":\n"
      "    ensure => file,\n"
      "  }\n"
      "  app::reader { $title:\n"
      "    src => \"${dir}/app.conf\",\n"
      "  }\n"
      "}\n";
  auto source = PuppetSource::Parse(in);
  ASSERT_TRUE(source.ok()) << source.status();
  auto reader = source->FindResource("App::Reader", "x", 5);
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_FALSE(reader->literal_titles);
  auto file = source->FindResource("File", "/srv/app.conf", 2);
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(source->Slice(file->title_first, file->title_last), "\"${dir}/app.conf\"");
  EXPECT_EQ(file->scope_open, reader->scope_open);
  ASSERT_TRUE(file->scope_open.has_value());
  EXPECT_EQ(Edit(in, "App::Reader", "x", 5, {{"require", "File[\"${dir}/app.conf\"]"}}),
            "define app::conf (String $dir) {\n"
            "  file { \"${dir}/app.conf\":\n"
            "    ensure => file,\n"
            "  }\n"
            "  app::reader { $title:\n"
            "    src     => \"${dir}/app.conf\",\n"
            "    require => File[\"${dir}/app.conf\"],\n"
            "  }\n"
            "}\n");
}

TEST(DeclarationEditTest, CrlfLinesStayCrlf) {
  const std::string in = "exec { 'a':\r\n  command => 'true',\r\n}\r\n# end\r\n";
  EXPECT_EQ(Edit(in, "Exec", "a", 1, {{"require", "File['/x']"}}),
            "exec { 'a':\r\n  command => 'true',\r\n  require => File['/x'],\r\n}\r\n# end\r\n");
}

TEST(DeclarationEditTest, RefusesToExtendAnExpression) {
  const std::string in = "exec { 'a':\n  command => 'true',\n  require => $deps,\n}\n";
  auto source = PuppetSource::Parse(in);
  ASSERT_TRUE(source.ok());
  auto body = source->FindResource("Exec", "a", 1);
  ASSERT_TRUE(body.ok());
  auto edit = EditDeclaration(*source, *body, {{"require", "File['/x']"}});
  EXPECT_EQ(edit.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(DeclarationEditTest, FindResourceErrors) {
  auto source = PuppetSource::Parse("File { mode => '0644' }\nfile { $a: ; $b: }\n");
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ(source->FindResource("File", "x", 1).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(source->FindResource("File", "x", 2).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(PuppetSource::Parse("file { 'a': content => 'x }\n").ok());
  EXPECT_FALSE(PuppetSource::Parse("file { 'a': \n").ok());
}

TEST(DeclarationEditTest, ReferenceKeys) {
  EXPECT_EQ(ReferenceKey("File[ \"/etc/x\" ]"), ReferenceKey("file['/etc/x']"));
  EXPECT_NE(ReferenceKey("File['/etc/x']"), ReferenceKey("File['/etc/y']"));
  EXPECT_EQ(checker::SingleQuote("it's a\\b"), "'it\\'s a\\\\b'");
}

}  // namespace
}  // namespace fsmove::fix
