// The literal manifests of acceptance specs, in the shapes Beaker, Litmus and voxpupuli's
// shared examples write them, and what is not one.
#include "fsmove/scan/acceptance_specs.h"

#include "fsmove/scan/module_list.h"
#include "gtest/gtest.h"
#include "scan_test_dir.h"

namespace fsmove::scan {
namespace {

constexpr const char* kSpec = R"rb(require 'spec_helper_acceptance'

describe 'ntp class' do
  context 'with defaults' do
    pp = <<-MANIFEST
      class { 'ntp': }
    MANIFEST

    it 'applies idempotently' do
      idempotent_apply(pp)
    end
  end

  context 'with servers' do
    it 'works' do
      apply_manifest(<<~PP, catch_failures: true)
        class { 'ntp':
          servers => ['a.example'],
        }
      PP
    end
  end

  context 'interpolated' do
    pp = <<-EOS
      class { 'ntp': servers => ['#{host}'] }
    EOS
  end

  it 'runs a command' do
    shell(<<-EOS)
      service ntp { restart }
    EOS
  end

  quoted = <<-'PUPPET'
    file { '/tmp/x': content => "#{not ruby}" }
  PUPPET

  text = <<-TEXT
    just words
  TEXT
  x = y << FOO
end
)rb";

TEST(LiteralSpecManifests, ShapesThatCountAndThatDoNot) {
  std::vector<SpecManifest> m = LiteralSpecManifests(kSpec);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].line, 5);
  EXPECT_EQ(m[0].text, "class { 'ntp': }\n");
  EXPECT_EQ(m[1].line, 16);
  EXPECT_EQ(m[1].text, "class { 'ntp':\n  servers => ['a.example'],\n}\n");
  // A single-quoted delimiter: Ruby does not interpolate, so the body is literal.
  EXPECT_EQ(m[2].line, 36);
  EXPECT_EQ(m[2].text, "file { '/tmp/x': content => \"#{not ruby}\" }\n");
}

TEST(LiteralSpecManifests, NothingWithoutApplyingNorFromAnUnclosedHeredoc) {
  EXPECT_TRUE(LiteralSpecManifests("pp = <<-PP\n  include ntp\nPP\n").empty());
  EXPECT_TRUE(LiteralSpecManifests("apply_manifest(<<-PP)\n  include ntp\n").empty());
  EXPECT_TRUE(LiteralSpecManifests("").empty());
}

TEST(AcceptanceRuns, NamedBySpecAndLineAndReadAgain) {
  ScanTestDir tmp;
  const std::string module = (tmp.path() / "ntp").string();
  tmp.Write("ntp/manifests/init.pp", "class ntp {}\n");
  tmp.Write("ntp/spec/acceptance/class_spec.rb", kSpec);
  // The same manifest again in another file (white space aside) is one run.
  tmp.Write("ntp/spec/acceptance/z/again_spec.rb",
            "apply_manifest(<<-PP)\n  class {'ntp':}\nPP\n  apply_manifest(<<-PP)\n"
            "  include ntp\nPP\n");
  tmp.Write("ntp/spec/acceptance/nodesets/default.yml", "HOSTS: {}\n");
  std::vector<std::string> runs = AcceptanceRuns(module, 10);
  const std::string spec = module + "/spec/acceptance/class_spec.rb";
  ASSERT_EQ(runs, (std::vector<std::string>{spec + ":5", spec + ":16", spec + ":36",
                                            module + "/spec/acceptance/z/again_spec.rb:4"}));
  EXPECT_EQ(AcceptanceRuns(module, 2).size(), 2u);
  EXPECT_TRUE(IsAcceptanceRun(runs[0]));
  EXPECT_EQ(AcceptanceRunModule(runs[3]), module);
  EXPECT_EQ(RunSource(runs[1]), "acceptance");
  EXPECT_EQ(RunModule(runs[1]), module);
  auto text = AcceptanceManifest(runs[1]);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "class { 'ntp':\n  servers => ['a.example'],\n}\n");
  EXPECT_FALSE(AcceptanceManifest(spec + ":6").ok());
  EXPECT_FALSE(IsAcceptanceRun(module + "/spec/acceptance/class_spec.rb"));
  EXPECT_FALSE(IsAcceptanceRun(module + "/spec/classes/x_spec.rb:3"));
  EXPECT_FALSE(IsAcceptanceRun("/spec/acceptance/x_spec.rb:3"));
  // A module's runs: include, then the acceptance manifests.
  std::vector<std::string> all = ExpandModuleRuns(module);
  ASSERT_EQ(all.size(), 1 + kMaxAcceptanceRuns);
  EXPECT_EQ(all[0], module);
  EXPECT_EQ(all[1], spec + ":5");
  // Folders of two runs of one spec differ, and name the module.
  EXPECT_NE(ModuleDirName(all[1]), ModuleDirName(all[2]));
  EXPECT_EQ(ModuleDirName(all[1]).rfind("ntp_acceptance_class_spec.rb_5-", 0), 0u)
      << ModuleDirName(all[1]);
}

}  // namespace
}  // namespace fsmove::scan
