// `--shard I/N`: parsing and the deterministic round-robin slice of the sorted module list.
#include "fsmove/scan/shard.h"

#include <charconv>

#include "fmt/format.h"
#include "fsmove/base/sha256.h"

namespace fsmove::scan {

std::string Shard::ToString() const { return fmt::format("{}/{}", index, count); }

namespace {

bool ParseInt(std::string_view s, int* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

absl::StatusOr<Shard> ParseShard(std::string_view text) {
  size_t slash = text.find('/');
  Shard s;
  if (slash == std::string_view::npos || !ParseInt(text.substr(0, slash), &s.index) ||
      !ParseInt(text.substr(slash + 1), &s.count)) {
    return absl::InvalidArgumentError(
        fmt::format("--shard {}: expected I/N, e.g. 1/4 (shards are numbered from 1)", text));
  }
  if (s.count < 1) {
    return absl::InvalidArgumentError(fmt::format("--shard {}: N must be at least 1", text));
  }
  if (s.index < 1 || s.index > s.count) {
    return absl::InvalidArgumentError(fmt::format(
        "--shard {}: I must be between 1 and {} (shards are numbered from 1; for a 0-based "
        "index such as JOB_COMPLETION_INDEX give I = index + 1)",
        text, s.count));
  }
  return s;
}

std::vector<std::string> SelectShard(const std::vector<std::string>& canonical_modules,
                                     const Shard& shard) {
  std::vector<std::string> out;
  for (size_t k = 0; k < canonical_modules.size(); ++k) {
    if (static_cast<int>(k % shard.count) + 1 == shard.index) out.push_back(canonical_modules[k]);
  }
  return out;
}

std::string ModuleListDigest(const std::vector<std::string>& canonical_modules) {
  base::Sha256 h;
  for (const auto& m : canonical_modules) {
    h.Update(m);
    h.Update(std::string_view("\n", 1));
  }
  std::string hex;
  for (uint8_t b : h.Finish()) hex += fmt::format("{:02x}", b);
  return hex;
}

}  // namespace fsmove::scan
