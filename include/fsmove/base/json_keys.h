// Duplicate keys in a JSON document. nlohmann's parser keeps the last value of a repeated
// key, so a trailing `"resources": []` would silently erase a catalog: every JSON input
// fsmove reads (catalogs, configuration, baselines) refuses a repeated key instead.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fsmove::base {

struct DuplicateKey {
  std::size_t offset = 0;  // byte offset of the second occurrence's opening quote
  std::string key;         // as written (escapes not decoded)
};

// Scans a syntactically valid JSON text from `start`; the first key that repeats within one
// object, or nullopt.
std::optional<DuplicateKey> FindDuplicateKey(std::string_view text, std::size_t start = 0);

}  // namespace fsmove::base
