// Test helper: a compiled catalog made from a list of resources, as Puppet would write it for
// `class main { ... }` declaring them in order in /m/init.pp (lines 1, 2, ...), each contained
// in Class[main]. For tests of the stages after the catalog (checker, gating, reports) that
// need resources to refer to, not a real compilation.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "nlohmann/json.hpp"

namespace fsmove::testing {

struct TestResource {
  std::string type, title;
  nlohmann::json params = nlohmann::json::object();
};

inline catalog::Catalog MakeTestCatalog(const std::vector<TestResource>& resources) {
  nlohmann::json cat = {{"catalog_format", 2},
                        {"resources", nlohmann::json::array()},
                        {"edges", nlohmann::json::array()}};
  cat["resources"].push_back({{"type", "Class"},
                              {"title", "main"},
                              {"exported", false},
                              {"parameters", nlohmann::json::object()}});
  int line = 1;
  for (const TestResource& r : resources) {
    // "contained_in": the container (a Class listed before) instead of Class[main]; no
    // parameter of Puppet's.
    nlohmann::json params = r.params;
    std::string container = params.value("contained_in", std::string("Class[main]"));
    params.erase("contained_in");
    cat["resources"].push_back({{"type", r.type},
                                {"title", r.title},
                                {"file", "/m/init.pp"},
                                {"line", line++},
                                {"exported", false},
                                {"parameters", params}});
    cat["edges"].push_back({{"source", container}, {"target", r.type + "[" + r.title + "]"}});
  }
  auto loaded = catalog::Catalog::LoadString(cat.dump(), "test.json");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return std::move(*loaded);
}

}  // namespace fsmove::testing
