#include "fsmove/exec/puppet_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::exec {
namespace {

using ::testing::ElementsAre;

TEST(StraceArguments, FiltersTheGivenCallsInTheKernelLeavingReadlinkOut) {
  EXPECT_THAT(StraceArguments("strace", "/run/fsmove/trace.fifo", {"openat", "readlink", "stat64"}),
              ElementsAre("strace", "-D", "-f", "-s", "65535", "-I2", "--seccomp-bpf", "-e",
                          "trace=?openat,?stat64", "-o", "/run/fsmove/trace.fifo", "--"));
}

TEST(StraceArguments, NoListTracesEveryCall) {
  EXPECT_THAT(StraceArguments("/usr/bin/strace", "out", {}),
              ElementsAre("/usr/bin/strace", "-D", "-f", "-s", "65535", "-I2", "-o", "out", "--"));
}

TEST(StraceArguments, TheStringLimitIsStracesDashS) {
  EXPECT_THAT(StraceArguments("strace", "out", {}, 300),
              ElementsAre("strace", "-D", "-f", "-s", "300", "-I2", "-o", "out", "--"));
}

TEST(StraceArguments, TimestampsAreTimesDurationsAndDescriptorPaths) {
  EXPECT_THAT(StraceArguments("strace", "out", {"openat"}, 300, true),
              ElementsAre("strace", "-D", "-f", "-s", "300", "-I2", "-ttt", "-T", "-yy",
                          "--seccomp-bpf", "-e", "trace=?openat", "-o", "out", "--"));
}

// --facts: the compile's command line runs the script, with the facts face's settings those of
// the catalog's (no catalog terminus) and the catalog's command line last.
TEST(FactsCompileArgv, TheScriptThenTheFactsFaceThenTheCompile) {
  EXPECT_THAT(FactsCompileArgv("/usr/bin/ruby", "/run/fsmove/merge-facts.rb", "web01.yaml",
                               "/run/fsmove/facts.yaml",
                               {"/usr/bin/puppet", "catalog", "find", "--terminus", "compiler",
                                "--render-as", "json", "--certname", "web01", "web01"}),
              ElementsAre("/usr/bin/ruby", "/run/fsmove/merge-facts.rb", "web01.yaml",
                          "/run/fsmove/facts.yaml", "--", "/usr/bin/puppet", "facts", "find",
                          "--render-as", "json", "--certname", "web01", "web01", "--",
                          "/usr/bin/puppet", "catalog", "find", "--terminus", "compiler",
                          "--render-as", "json", "--certname", "web01", "web01"));
  EXPECT_EQ(FactsCopyName("facts/web01.JSON"), "facts.json");
  EXPECT_EQ(FactsCopyName("facts/web01.yml"), "facts.yaml");
}

// The node a facts file is of: `puppet facts find`'s JSON and a server's yaml cache say it; the
// facts alone do not; a name Puppet would refuse as a certname is none.
TEST(FactsFileNode, TheNameBesideTheValues) {
  EXPECT_EQ(FactsFileNode(R"({"name": "web01.example.com", "values": {"site": "lab"}})"),
            "web01.example.com");
  EXPECT_EQ(FactsFileNode(R"({"name": "not-a-node", "site": "lab"})"), "");
  EXPECT_EQ(FactsFileNode("--- !ruby/object:Puppet::Node::Facts\nname: lab01.example.com\n"
                          "values:\n  site: lab\n  name: inner\n"),
            "lab01.example.com");
  EXPECT_EQ(FactsFileNode("name: 'db01'\nvalues:\n  a: b\n"), "db01");
  EXPECT_EQ(FactsFileNode("site: lab\nname: x\n"), "");  // the facts alone: `name` is a fact
  EXPECT_EQ(FactsFileNode(R"({"name": "Web01", "values": {}})"), "");
  EXPECT_EQ(FactsFileNode(R"({"name": "../../etc", "values": {}})"), "");
  EXPECT_EQ(FactsFileNode("{not json"), "");
}

TEST(CertName, IsLowerCase) {
  const std::string name = CertName();
  EXPECT_FALSE(name.empty());
  for (char c : name) EXPECT_FALSE(c >= 'A' && c <= 'Z') << name;
}

}  // namespace
}  // namespace fsmove::exec
