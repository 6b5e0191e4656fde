// Test helpers shared by the catalog and graph tests: loading the checked-in catalogs and
// building small catalogs inline in the compiled-catalog JSON format.
#ifndef FSMOVE_TESTS_CATALOG_CATALOG_TEST_SUPPORT_H_
#define FSMOVE_TESTS_CATALOG_CATALOG_TEST_SUPPORT_H_

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fsmove/catalog/catalog.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fsmove::catalog {
// Readable gMock failures.
inline void PrintTo(const CatalogWarning& warning, std::ostream* out) {
  *out << "{" << warning.json_pointer << ": " << warning.message << "}";
}
}  // namespace fsmove::catalog

namespace fsmove::testing {

inline std::string CatalogDataPath(std::string_view name) {
  return std::string(FSMOVE_SOURCE_DIR) + "/tests/data/catalogs/" + std::string(name);
}

// Loads tests/data/catalogs/NAME (e.g. "chains.json", "handwritten/module_types.json").
inline catalog::Catalog LoadTestCatalog(std::string_view name) {
  absl::StatusOr<catalog::Catalog> loaded = catalog::Catalog::LoadFile(CatalogDataPath(name));
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.status();
    return *catalog::Catalog::LoadString(R"({"resources":[],"edges":[]})", "empty");
  }
  return *std::move(loaded);
}

// One resource in catalog_format 2 form, contained in Class[main] by MakeCatalog.
inline nlohmann::json Res(std::string type, std::string title,
                          nlohmann::json parameters = nlohmann::json::object()) {
  return {{"type", std::move(type)},         {"title", std::move(title)},
          {"tags", nlohmann::json::array()}, {"exported", false},
          {"kind", "compilable_type"},       {"parameters", std::move(parameters)}};
}

// A catalog holding Stage[main] > Class[main] > `resources` (plus extra containment edges).
inline catalog::Catalog MakeCatalog(
    std::vector<nlohmann::json> resources,
    std::vector<std::pair<std::string, std::string>> extra_edges = {}) {
  nlohmann::json document = {{"catalog_format", 2}, {"name", "test"}};
  nlohmann::json all = nlohmann::json::array();
  all.push_back({{"type", "Stage"},
                 {"title", "main"},
                 {"exported", false},
                 {"kind", "compilable_type"},
                 {"parameters", {{"name", "main"}}}});
  all.push_back({{"type", "Class"},
                 {"title", "main"},
                 {"exported", false},
                 {"kind", "unknown"},
                 {"parameters", {{"name", "main"}}}});
  nlohmann::json edges = nlohmann::json::array();
  edges.push_back({{"source", "Stage[main]"}, {"target", "Class[main]"}});
  for (nlohmann::json& resource : resources) {
    const std::string ref =
        resource["type"].get<std::string>() + "[" + resource["title"].get<std::string>() + "]";
    if (resource["type"] != "Class" && resource["type"] != "Stage") {
      edges.push_back({{"source", "Class[main]"}, {"target", ref}});
    }
    all.push_back(std::move(resource));
  }
  for (auto& [source, target] : extra_edges)
    edges.push_back({{"source", source}, {"target", target}});
  document["resources"] = std::move(all);
  document["edges"] = std::move(edges);
  absl::StatusOr<catalog::Catalog> loaded = catalog::Catalog::LoadString(document.dump(), "inline");
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.status();
    return *catalog::Catalog::LoadString(R"({"resources":[],"edges":[]})", "empty");
  }
  return *std::move(loaded);
}

// The id of a resource that must exist.
inline catalog::ResourceId Id(const catalog::Catalog& catalog, std::string_view ref) {
  const std::optional<catalog::ResourceId> id = catalog.ResolveRef(ref);
  if (!id) {
    ADD_FAILURE() << "no resource " << ref << " in " << catalog.source_name();
    return 0;
  }
  return *id;
}

}  // namespace fsmove::testing

#endif  // FSMOVE_TESTS_CATALOG_CATALOG_TEST_SUPPORT_H_
