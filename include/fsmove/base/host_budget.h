// fsmove's own budget on the host: how much of what module code controls (the paths its calls
// name, the catalog it compiles, the trace it makes) the host process takes in before it stops
// and ends the check as incomplete (exit 3), rather than growing until the machine's
// out-of-memory killer ends it. One table: each limit's name, flag, default and sentence
// (docs/check.md#fsmoves-own-limits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fsmove::base {

enum class BudgetLimit : uint8_t {
  kPaths,          // distinct paths the analysis records accesses of
  kInodes,         // names (inodes) the analysis's model of the file system holds at once
  kCatalogBytes,   // the compiled catalog's size
  kCatalogValues,  // JSON values of the catalog held at once while it is read
  kSavedTrace,     // bytes of trace text --save-trace writes (before compression)
};
inline constexpr size_t kBudgetLimitCount = 5;

// The defaults: about 1 GB of the analysis's memory at either of the first two (bench/
// path_memory: about 524 bytes per distinct path, each with its inodes), a catalog of about
// 700,000 resources (bench/catalog_memory: 37 MB for 200,000, read in 240 MB), 20 times the
// trace of a real module.
inline constexpr uint64_t kDefaultMaxPaths = 2'000'000;
inline constexpr uint64_t kDefaultMaxInodes = 4'000'000;
inline constexpr uint64_t kDefaultMaxCatalogBytes = uint64_t{128} << 20;
inline constexpr uint64_t kDefaultMaxCatalogValues = 4'000'000;
inline constexpr uint64_t kDefaultMaxSavedTrace = uint64_t{4} << 30;

struct HostBudget {
  uint64_t paths = kDefaultMaxPaths;
  uint64_t inodes = kDefaultMaxInodes;
  uint64_t catalog_bytes = kDefaultMaxCatalogBytes;
  uint64_t catalog_values = kDefaultMaxCatalogValues;
  uint64_t saved_trace = kDefaultMaxSavedTrace;

  uint64_t Of(BudgetLimit limit) const;
  void Set(BudgetLimit limit, uint64_t value);
};

// How a limit's flag reads its value: a positive count, or a size ("128M", "4G", "128 MiB").
enum class BudgetUnit : uint8_t { kCount, kBytes };

// The commands whose flags hold a limit: from the catalog's (fsmove graph), also the
// analysis's (fsmove analyze), also the saved trace's (fsmove check and fsmove scan).
enum class BudgetScope : uint8_t { kCatalog, kAnalyze, kCheck };

// One limit's row of the one table: its names, unit, the commands that have it, its flag's
// help, and the field of HostBudget that holds its value.
struct BudgetLimitInfo {
  BudgetLimit limit;
  std::string_view name;  // BudgetName
  std::string_view flag;  // BudgetFlag
  BudgetUnit unit;
  BudgetScope scope;  // the narrowest scope that has it
  std::string_view help;
  uint64_t HostBudget::*value;
};

// Every limit, in the enum's order.
std::span<const BudgetLimitInfo> BudgetLimits();
bool InScope(const BudgetLimitInfo& limit, BudgetScope scope);

// A value given for `limit`'s flag: a count, or a size (bytes, or K, M, G, T with an optional
// "iB", spaces ignored). None when it cannot be read or is 0 (a limit of nothing would refuse
// everything).
std::optional<uint64_t> ParseBudgetValue(BudgetLimit limit, std::string_view text);
// The value as the flag's default shows it: "2000000", "128 MiB".
std::string BudgetDefaultText(BudgetLimit limit);

// The flags (with their values) that give another check `budget` where it differs from the
// defaults, as `fsmove scan` passes its limits to each module's check: {"--max-paths",
// "100000", ...}; the limits outside `scope` are left out.
std::vector<std::string> BudgetArguments(const HostBudget& budget, BudgetScope scope);

// "paths", "inodes", "catalog_bytes", "catalog_values", "saved_trace" (JSON).
std::string_view BudgetName(BudgetLimit limit);
// "--max-paths", "--max-inodes", "--max-catalog-bytes", "--max-catalog-values",
// "--max-saved-trace".
std::string_view BudgetFlag(BudgetLimit limit);
// The limit's value as its sentence says it: "100000 distinct paths", "256 MiB".
std::string BudgetValueText(BudgetLimit limit, uint64_t value);
// "512 bytes", "4 KiB", "256 MiB", "4 GiB" (the largest unit that divides it).
std::string ByteSizeText(uint64_t bytes);
// "512M", "4G", "64k", "1048576" -> bytes: digits, then no unit or one of K, M, G, T (either
// case) up to `largest_unit`. None when malformed, past the largest unit or past 2^64 - 1.
// The budget's sizes take T (ParseBudgetValue); --memory-limit stops at G.
std::optional<uint64_t> ParseByteSize(std::string_view text, char largest_unit = 'T');

// A limit that was reached: which, its value, and where ("trace line 1234", a file's name).
struct BudgetHit {
  BudgetLimit limit = BudgetLimit::kPaths;
  uint64_t value = 0;
  std::string where;

  // One sentence: which limit, its value, what was lost, the flag that raises it. "the
  // analysis stopped at its limit of 100000 distinct paths (--max-paths) at trace line 1234:
  // what the rest of the trace did is not analysed; raise it with --max-paths N (about 524
  // bytes of memory each)".
  std::string Sentence() const;
  bool operator==(const BudgetHit&) const = default;
};

}  // namespace fsmove::base
