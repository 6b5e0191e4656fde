// A module's class declarations: names, parameters without defaults, privacy, the class of
// the module's own name.
#include "fsmove/scan/module_classes.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scan_test_dir.h"

namespace fsmove::scan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ModuleClasses, ReadsNamesParametersAndPrivacy) {
  auto classes = DeclaredClasses(R"(# @summary the server
class ::web::server (
  Enum['a', 'b'] $mode = 'a',
  Hash[String, Variant[String, Integer]] $options,
  $port = $web::params::port,
  Optional[String] $name = undef,
  $flag = $a == $b,
  String $last
) inherits web::params {
  file { '/etc/web': ensure => directory }
  class { 'web::tls': }
}

# Internal.
# @api private
class web::config {
}

class web::install {
  assert_private()
  $x = "class not::this"
}
define web::site ($root) {}
)");
  ASSERT_TRUE(classes.ok()) << classes.status();
  ASSERT_EQ(classes->size(), 3u);
  const ClassDeclaration& server = (*classes)[0];
  EXPECT_EQ(server.name, "web::server");
  EXPECT_EQ(server.line, 2);
  EXPECT_THAT(server.required, ElementsAre("$options", "$last"));
  EXPECT_FALSE(server.is_private);
  EXPECT_EQ((*classes)[1].name, "web::config");
  EXPECT_TRUE((*classes)[1].is_private);
  EXPECT_TRUE((*classes)[1].required.empty());
  EXPECT_EQ((*classes)[2].name, "web::install");
  EXPECT_TRUE((*classes)[2].is_private);
  EXPECT_FALSE(DeclaredClasses("class x { '\n").ok());
}

TEST(ModuleClasses, TheClassToInclude) {
  ScanTestDir d;
  d.Write("a/manifests/init.pp", "class a ($p) {}\n");
  IncludeClass a = ModuleIncludeClass((d.path() / "a").string());
  ASSERT_TRUE(a.found);
  EXPECT_THAT(a.declaration.required, ElementsAre("$p"));
  d.Write("forge-b/metadata.json", R"({"name": "someone-b"})");
  d.Write("forge-b/manifests/init.pp", "class b {}\n");
  EXPECT_EQ(ModuleName((d.path() / "forge-b").string()), "b");
  d.Write("saz-rsyslog/manifests/init.pp", "class rsyslog {}\n");  // no metadata.json
  EXPECT_EQ(ModuleName((d.path() / "saz-rsyslog/").string()), "rsyslog");
  EXPECT_TRUE(ModuleIncludeClass((d.path() / "saz-rsyslog").string()).found);
  EXPECT_TRUE(ModuleIncludeClass((d.path() / "forge-b").string()).found);
  d.Write("c/manifests/init.pp", "define c ($x) {}\n");
  EXPECT_THAT(ModuleIncludeClass((d.path() / "c").string()).why_not,
              HasSubstr("declares no class (defined types only)"));
  d.Write("e/manifests/init.pp", "class other {}\n");
  EXPECT_THAT(ModuleIncludeClass((d.path() / "e").string()).why_not,
              HasSubstr("declares class 'other' but not that one"));
  EXPECT_THAT(ModuleIncludeClass((d.path() / "none").string()).why_not,
              HasSubstr("module 'none' has no manifests/init.pp"));
  d.Write("f/manifests/init.pp", "class f { \"unterminated\n");
  // Puppet, not the tokenizer, says what is wrong with it: the include run is made.
  EXPECT_TRUE(ModuleIncludeClass((d.path() / "f").string()).found);
}

// Nothing of a module is read through a link: a metadata.json or manifests/init.pp that
// links out (to a private file of whoever runs the scan) names nothing.
TEST(ModuleClasses, LinksAreNotTheModulesFiles) {
  ScanTestDir d;
  d.Write("secret.json", R"({"name": "someone-SECRET"})");
  d.Write("secret.pp", "class SECRET {}\n");
  d.Write("g/manifests/other.pp", "class g::other {}\n");
  std::filesystem::create_symlink(d.path() / "secret.json", d.path() / "g/metadata.json");
  std::filesystem::create_symlink(d.path() / "secret.pp", d.path() / "g/manifests/init.pp");
  EXPECT_EQ(ModuleName((d.path() / "g").string()), "g");
  IncludeClass g = ModuleIncludeClass((d.path() / "g").string());
  EXPECT_FALSE(g.found);
  EXPECT_THAT(g.why_not, HasSubstr("manifests/init.pp is a symbolic link, never followed"));
  EXPECT_THAT(g.why_not, ::testing::Not(HasSubstr("SECRET")));
}

TEST(ModuleClasses, IncludableClassesArePublicAndNeedNothing) {
  ScanTestDir d;
  d.Write("m/manifests/init.pp", "class m ($x) {}\nclass m::in_init {}\n");
  d.Write("m/manifests/a.pp", "class m::a {}\n");
  d.Write("m/manifests/b.pp", "class m::b ($needed) {}\n");
  d.Write("m/manifests/params.pp", "class m::params {}\n");
  d.Write("m/manifests/c/params.pp", "class m::c::params {}\n");
  d.Write("m/manifests/c/d.pp", "class m::c::d {}\n");
  d.Write("m/manifests/other.pp", "class notm::x {}\n");
  d.Write("m/manifests/broken.pp", "class m::broken { '\n");
  const std::string m = (d.path() / "m").string();
  EXPECT_THAT(IncludableClasses(m, 10), ElementsAre("m::a", "m::c::d"));
  EXPECT_THAT(IncludableClasses(m, 1), ElementsAre("m::a"));
}

}  // namespace
}  // namespace fsmove::scan
