#include "fsmove/scan/scan_runner.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fsmove::scan {
namespace {

using ::testing::ElementsAre;

TEST(ScanRunner, CheckArgumentsAreTheWholeContract) {
  ScanOptions o;
  o.timeout_seconds = 20;
  o.save_traces = true;
  o.check_options = {"--modulepath", "/deps", "--package-notify"};
  EXPECT_THAT(CheckArguments(o, "-odd/mod", "out/mod-12345678", "/tmp/w/mod-12345678"),
              ElementsAre("/proc/self/exe", "check", "-q", "--format", "json", "-o",
                          "out/mod-12345678/report.json", "--save-catalog",
                          "out/mod-12345678/catalog.json", "--save-graph",
                          "out/mod-12345678/expanded_relationships.dot", "--puppet-log",
                          "out/mod-12345678/puppet.log", "--timeout", "20", "--work-dir",
                          "/tmp/w/mod-12345678", "--save-trace", "out/mod-12345678/trace.zst",
                          "--modulepath", "/deps", "--package-notify", "--", "-odd/mod"));
}

}  // namespace
}  // namespace fsmove::scan
