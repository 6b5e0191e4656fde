// puppet:///modules/ sources rewritten to the module's file in the modulepath.
#include "fsmove/exec/local_sources.h"

#include <gtest/gtest.h>

#include <set>

#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace {

const std::vector<std::string> kModulepath = {"/run/fsmove/modules", "/etc/puppet/code/modules"};

bool Exists(const std::string& path) {
  static const std::set<std::string> files = {
      "/run/fsmove/modules/app/files/app.conf", "/run/fsmove/modules/app/files/conf.d",
      "/run/fsmove/modules/app/files", "/etc/puppet/code/modules/base/files/motd",
      "/etc/puppet/code/modules/app/files/only-here"};
  return files.contains(path);
}

TEST(LocalSourcesTest, ModuleFilesInModulepathOrder) {
  EXPECT_EQ(LocalModuleFile("puppet:///modules/app/app.conf", kModulepath, Exists),
            "/run/fsmove/modules/app/files/app.conf");
  EXPECT_EQ(LocalModuleFile("puppet://puppet.example.com/modules/base/motd", kModulepath, Exists),
            "/etc/puppet/code/modules/base/files/motd");
  EXPECT_EQ(LocalModuleFile("puppet:///modules/app/only-here", kModulepath, Exists),
            "/etc/puppet/code/modules/app/files/only-here");
  EXPECT_EQ(LocalModuleFile("puppet:///modules/app/conf.d/", kModulepath, Exists),
            "/run/fsmove/modules/app/files/conf.d");
  EXPECT_EQ(LocalModuleFile("puppet:///modules/app", kModulepath, Exists),
            "/run/fsmove/modules/app/files");
}

TEST(LocalSourcesTest, OtherUrisAndEscapesAreLeftAlone) {
  EXPECT_EQ(LocalModuleFile("puppet:///modules/app/missing", kModulepath, Exists), "");
  EXPECT_EQ(LocalModuleFile("puppet:///files/app.conf", kModulepath, Exists), "");
  EXPECT_EQ(LocalModuleFile("puppet:///modules/app/../../base/files/motd", kModulepath, Exists),
            "");
  EXPECT_EQ(LocalModuleFile("puppet:///modules/../x", kModulepath, Exists), "");
  EXPECT_EQ(LocalModuleFile("/etc/app.conf", kModulepath, Exists), "");
  EXPECT_EQ(LocalModuleFile("https://example.com/x", kModulepath, Exists), "");
}

TEST(LocalSourcesTest, RewritesSourceStringsAndArraysOnly) {
  nlohmann::json catalog = {
      {"resources",
       {{{"type", "File"},
         {"title", "/etc/app.conf"},
         {"parameters", {{"source", "puppet:///modules/app/app.conf"}, {"mode", "0644"}}}},
        {{"type", "File"},
         {"title", "/etc/motd"},
         {"parameters",
          {{"source", {"puppet:///modules/app/missing", "puppet:///modules/base/motd"}}}}},
        {{"type", "Exec"},
         {"title", "x"},
         {"parameters", {{"command", "echo puppet:///modules/app/app.conf"}}}}}},
      {"edges", nlohmann::json::array()}};
  auto out = LocalizePuppetSources(catalog.dump(), kModulepath, Exists);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->rewritten, 2u);
  ASSERT_EQ(out->unresolved.size(), 1u);
  EXPECT_EQ(out->unresolved[0], "puppet:///modules/app/missing");
  nlohmann::json got = nlohmann::json::parse(out->catalog_json);
  EXPECT_EQ(got["resources"][0]["parameters"]["source"], "/run/fsmove/modules/app/files/app.conf");
  EXPECT_EQ(got["resources"][0]["parameters"]["mode"], "0644");
  EXPECT_EQ(got["resources"][1]["parameters"]["source"][0], "puppet:///modules/app/missing");
  EXPECT_EQ(got["resources"][1]["parameters"]["source"][1],
            "/etc/puppet/code/modules/base/files/motd");
  EXPECT_EQ(got["resources"][2]["parameters"]["command"], "echo puppet:///modules/app/app.conf");
  EXPECT_FALSE(LocalizePuppetSources("[1, 2]", kModulepath, Exists).ok());
  EXPECT_FALSE(LocalizePuppetSources("not json", kModulepath, Exists).ok());
}

}  // namespace
}  // namespace fsmove::exec
