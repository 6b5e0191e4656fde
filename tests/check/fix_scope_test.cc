// The checked code's scope for --fix-diff and --fix: a module, a manifest of the module or
// beside it, a manifest alone, -e code (none); and analyze's --source-root, which maps the
// manifests a catalog names on the machine that compiled it onto this checkout.
#include "fsmove/check/fix_scope.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace fsmove::check {
namespace {

namespace fs = std::filesystem;

exec::ResolvedTarget Target(exec::ResolvedTarget::Kind kind, std::string module_dir,
                            std::string manifest_path) {
  exec::ResolvedTarget t;
  t.kind = kind;
  t.module_dir = std::move(module_dir);
  t.manifest_path = std::move(manifest_path);
  return t;
}

TEST(FixScopeTest, AModuleIsItsDirectory) {
  auto scope = CheckFixScope(Target(exec::ResolvedTarget::Kind::kModule, "/src/ntp", ""));
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->root, "/src/ntp");
  EXPECT_EQ(scope->only_file, "");
  EXPECT_EQ(scope->manifest, "");
}

TEST(FixScopeTest, AManifestOfTheModuleIsTheModulesAndTakesChains) {
  auto scope = CheckFixScope(
      Target(exec::ResolvedTarget::Kind::kManifest, "/src/ntp", "/src/ntp/examples/init.pp"));
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->root, "/src/ntp");
  EXPECT_EQ(scope->manifest, "/src/ntp/examples/init.pp");
  EXPECT_EQ(scope->only_file, "");

  // --with-module and a manifest elsewhere: the module's code, no chain in the manifest.
  auto beside =
      CheckFixScope(Target(exec::ResolvedTarget::Kind::kManifest, "/src/ntp", "/tmp/site.pp"));
  ASSERT_TRUE(beside.ok()) << beside.status();
  EXPECT_EQ(beside->root, "/src/ntp");
  EXPECT_EQ(beside->manifest, "");
}

TEST(FixScopeTest, AManifestAloneIsTheOneFile) {
  auto scope = CheckFixScope(Target(exec::ResolvedTarget::Kind::kManifest, "", "/srv/site.pp"));
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->root, "/srv");
  EXPECT_EQ(scope->only_file, "/srv/site.pp");
  EXPECT_EQ(scope->manifest, "/srv/site.pp");
}

TEST(FixScopeTest, CodeHasNoFileToPatch) {
  auto scope = CheckFixScope(Target(exec::ResolvedTarget::Kind::kCode, "", ""));
  EXPECT_EQ(scope.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(FixScopeTest, AnalyzeMapsTheRecordedPrefixOntoTheSourceRoot) {
  std::string dir = (fs::temp_directory_path() / "fsmove-fix-scope-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  fs::create_directories(fs::path(dir) / "manifests");
  std::ofstream(fs::path(dir) / "manifests" / "init.pp") << "class ntp {}\n";
  auto cat = catalog::Catalog::LoadString(
      R"({"resources": [
        {"type": "Class", "title": "Ntp", "file": "/build/ntp/manifests/init.pp", "line": 1},
        {"type": "File", "title": "/etc/ntp.conf", "file": "/build/ntp/manifests/init.pp",
         "line": 2}]})",
      "catalog.json");
  ASSERT_TRUE(cat.ok()) << cat.status();
  const fix::FixScope scope = AnalyzeFixScope(dir, *cat);
  EXPECT_EQ(scope.root, fs::path(dir).lexically_normal().string());
  ASSERT_TRUE(scope.locate);
  EXPECT_EQ(scope.locate("/build/ntp/manifests/init.pp"), dir + "/manifests/init.pp");
  // A file outside the recorded prefix stays where the catalog says.
  EXPECT_EQ(scope.locate("/elsewhere/site.pp"), "/elsewhere/site.pp");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace fsmove::check
